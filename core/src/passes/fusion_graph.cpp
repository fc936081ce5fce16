// Building the forward graph FuseOps partitions and its post-dominator tree,
// after Relay's IndexedForwardGraphCreator and DominatorTree::PostDom.
#include "fusion_graph.h"

#include <algorithm>
#include <string>

#include "weft/functor.h"
#include "weft/pass.h"

namespace weft::fusion {

namespace {

bool left_alone(const ExprNode& e) {
  if (e.kind != ExprKind::kFunction) return false;
  Function fn(static_cast<const FunctionNode*>(&e));
  return has_attr(fn, "Primitive") || has_attr(fn, "Compiler");
}

bool in_graph(ExprKind k) {
  return k != ExprKind::kOp && k != ExprKind::kGlobalVar && k != ExprKind::kFunction;
}

const TensorTypeNode* tensor_of(const Type& t) {
  return t && t->kind == TypeKind::kTensor ? static_cast<const TensorTypeNode*>(t.get()) : nullptr;
}

std::string describe(const ExprNode& e) {
  if (e.kind == ExprKind::kVar) return "variable %" + static_cast<const VarNode&>(e).name_hint;
  if (e.kind == ExprKind::kCall) {
    const Expr& callee = static_cast<const CallNode&>(e).op;
    if (callee->kind == ExprKind::kOp) return "the call of " + static_cast<const OpNode&>(*callee).name();
  }
  return "a " + std::string(expr_kind_name(e.kind));
}

void require_type(const ExprNode& e, const char* pass) {
  if (e.has_type()) return;
  Error err(std::string(pass) + " needs a typed program: " + describe(e) + " has no type");
  err.expected("the output of InferType");
  if (e.span) err.at(*e.span);
  throw err;
}

// A scalar of a dtype the code generators take as an immediate fuses like an
// elementwise op; any other constant stays a parameter of its users' group.
OpPattern constant_pattern(const ConstantNode& c) {
  DataType dt = c.data.dtype();
  bool simple = dt == DataType::Int(32) || dt == DataType::Int(64) || dt == DataType::Float(32) ||
                dt == DataType::Float(64) || dt == DataType::Bool();
  return c.data.ndim() == 0 && simple ? OpPattern::kElemWise : OpPattern::kOpaque;
}

}  // namespace

ForwardGraph ForwardGraph::build(const Function& fn, const char* pass) {
  ForwardGraph g;
  std::unordered_set<const ExprNode*> seen;
  std::vector<const FunctionNode*> functions;
  detail::post_order(
      fn, [&](const ExprNode* n) { return seen.count(n) > 0; },
      [&](const ExprNode* n) {
        seen.insert(n);
        if (left_alone(*n)) {
          g.opaque_functions.emplace_back(n);
        } else if (n->kind == ExprKind::kFunction) {
          functions.push_back(static_cast<const FunctionNode*>(n));
        } else if (in_graph(n->kind)) {
          require_type(*n, pass);
          g.index.emplace(n, static_cast<uint32_t>(g.nodes.size()));
          g.nodes.push_back(Node{n, false, OpPattern::kOpaque, {}});
        }
      },
      [&](const ExprNode& e, const auto& visit) {
        if (!left_alone(e)) for_each_child(e, visit);
      });

  auto mark_extern = [&](const Expr& e) {
    if (uint32_t i = g.find(e.get()); i != kNone) g.nodes[i].extern_ref = true;
  };
  auto link = [&](const Expr& input, uint32_t user, OpPattern pattern) {
    if (uint32_t i = g.find(input.get()); i != kNone) g.nodes[i].outputs.push_back({user, pattern});
  };
  for (const FunctionNode* f : functions) {
    for (const Var& p : f->params) mark_extern(p);
    mark_extern(f->body);
  }
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const ExprNode& e = *g.nodes[i].ref;
    OpPattern& pattern = g.nodes[i].pattern;
    switch (e.kind) {
      case ExprKind::kConstant:
        pattern = constant_pattern(static_cast<const ConstantNode&>(e));
        break;
      case ExprKind::kCall: {
        auto& c = static_cast<const CallNode&>(e);
        if (c.op->kind == ExprKind::kOp) pattern = static_cast<const OpNode&>(*c.op).def->pattern;
        mark_extern(c.op);
        const TensorTypeNode* result = tensor_of(c.checked_type());
        for (const Expr& a : c.args) {
          // A broadcast of an input to its own shape is elementwise on it.
          const TensorTypeNode* arg = tensor_of(a->checked_type());
          bool same_shape = arg && result && arg->shape == result->shape;
          link(a, i, pattern == OpPattern::kBroadcast && same_shape ? OpPattern::kElemWise : pattern);
        }
        break;
      }
      case ExprKind::kTuple:
        pattern = OpPattern::kTuple;
        for (const Expr& f : static_cast<const TupleNode&>(e).fields) {
          if (tensor_of(f->checked_type())) link(f, i, OpPattern::kInjective);
          else mark_extern(f);
        }
        break;
      case ExprKind::kTupleGetItem: {
        // Fused functions take tensors and tuples of tensors only: a tuple
        // holding anything else is not fused through.
        const Expr& t = static_cast<const TupleGetItemNode&>(e).tuple;
        const Type& type = t->checked_type();
        bool all_tensors = type->kind == TypeKind::kTuple;
        if (all_tensors) {
          const auto& fields = static_cast<const TupleTypeNode&>(*type).fields;
          all_tensors = std::all_of(fields.begin(), fields.end(), [](const Type& f) { return tensor_of(f); });
        }
        if (all_tensors) {
          pattern = OpPattern::kInjective;
          link(t, i, OpPattern::kInjective);
        } else {
          mark_extern(t);
        }
        break;
      }
      case ExprKind::kLet:
      case ExprKind::kIf:
        for_each_child(e, mark_extern);  // nothing fuses through a let or an if
        break;
      default:
        break;  // variables: opaque inputs
    }
  }
  return g;
}

PostDominatorTree::PostDominatorTree(const ForwardGraph& graph) {
  const uint32_t n = static_cast<uint32_t>(graph.nodes.size());
  parent_.assign(n, ForwardGraph::kNone);
  pattern_.assign(n, OpPattern::kOpaque);
  depth_.assign(n, 1);
  uint32_t levels = 1;
  while (levels < 32 && (uint64_t{1} << levels) <= n) ++levels;
  jumps_.assign(levels, std::vector<Jump>(n, Jump{ForwardGraph::kNone, OpPattern::kOpaque}));
  // Users come after their inputs, so walking backwards meets every user's
  // tree node before the nodes it uses.
  for (uint32_t i = n; i-- > 0;) {
    const ForwardGraph::Node& node = graph.nodes[i];
    if (!node.extern_ref && !node.outputs.empty()) {
      OpPattern pattern = OpPattern::kElemWise;
      uint32_t parent = node.outputs.front().user;
      pattern = std::max(pattern, node.outputs.front().pattern);
      for (size_t k = 1; k < node.outputs.size(); ++k) {
        parent = least_common_ancestor(parent, node.outputs[k].user, pattern);
        pattern = std::max(pattern, node.outputs[k].pattern);
      }
      parent_[i] = parent;
      pattern_[i] = pattern;
      if (parent != ForwardGraph::kNone) depth_[i] = depth_[parent] + 1;
    }
    jumps_[0][i] = {parent_[i], pattern_[i]};
    for (uint32_t k = 1; k < levels; ++k) {
      Jump half = jumps_[k - 1][i];
      if (half.to == ForwardGraph::kNone) break;
      Jump rest = jumps_[k - 1][half.to];
      jumps_[k][i] = {rest.to, std::max(half.pattern, rest.pattern)};
    }
  }
}

PostDominatorTree::Jump PostDominatorTree::lift(uint32_t node, uint32_t levels) const {
  OpPattern pattern = OpPattern::kElemWise;
  for (uint32_t k = 0; levels != 0 && node != ForwardGraph::kNone; ++k, levels >>= 1) {
    if (!(levels & 1)) continue;
    pattern = std::max(pattern, jumps_[k][node].pattern);
    node = jumps_[k][node].to;
  }
  return {node, pattern};
}

// As Relay's LeastCommonAncestor: the patterns of every tree node left on the
// way up from a and b join `pattern`.
uint32_t PostDominatorTree::least_common_ancestor(uint32_t a, uint32_t b, OpPattern& pattern) const {
  if (a == ForwardGraph::kNone || b == ForwardGraph::kNone) return ForwardGraph::kNone;
  if (depth_[a] < depth_[b]) std::swap(a, b);
  Jump lifted = lift(a, depth_[a] - depth_[b]);
  if (depth_[a] != depth_[b]) pattern = std::max(pattern, lifted.pattern);
  a = lifted.to;
  if (a == b) return a;
  for (uint32_t k = static_cast<uint32_t>(jumps_.size()); k-- > 0;) {
    if (jumps_[k][a].to == jumps_[k][b].to) continue;
    pattern = std::max({pattern, jumps_[k][a].pattern, jumps_[k][b].pattern});
    a = jumps_[k][a].to;
    b = jumps_[k][b].to;
  }
  pattern = std::max({pattern, pattern_[a], pattern_[b]});
  return parent_[a];
}

}  // namespace weft::fusion
