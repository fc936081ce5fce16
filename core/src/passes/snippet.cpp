// Short printed forms of expressions for error messages.
#include "snippet.h"

#include <unordered_set>
#include <vector>

#include "weft/functor.h"
#include "weft/printer.h"

namespace weft::detail {

namespace {

// Graphs up to this many nodes print in full.
constexpr size_t kFullTextLimit = 40;

bool small_graph(const Expr& root) {
  std::unordered_set<const ExprNode*> seen{root.get()};
  std::vector<const ExprNode*> stack{root.get()};
  while (!stack.empty()) {
    const ExprNode* n = stack.back();
    stack.pop_back();
    bool too_big = false;
    for_each_child(*n, [&](const Expr& c) {
      if (too_big || !c || !seen.insert(c.get()).second) return;
      too_big = seen.size() > kFullTextLimit;
      stack.push_back(c.get());
    });
    if (too_big) return false;
  }
  return true;
}

// A few characters standing for e.
std::string head(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kVar: return "%" + e.as<VarNode>()->name_hint;
    case ExprKind::kGlobalVar: return "@" + e.as<GlobalVarNode>()->name;
    case ExprKind::kConstant: return "<constant " + describe(e.as<ConstantNode>()->data) + ">";
    case ExprKind::kOp: return e.as<OpNode>()->name();
    case ExprKind::kCall: {
      const Expr& callee = e.as<CallNode>()->op;
      return (callee->kind == ExprKind::kFunction ? std::string("fn") : head(callee)) + "(...)";
    }
    case ExprKind::kFunction: return "fn (...) {...}";
    case ExprKind::kTuple: return "(...)";
    case ExprKind::kTupleGetItem: {
      auto* t = e.as<TupleGetItemNode>();
      return head(t->tuple) + "." + std::to_string(t->index);
    }
    case ExprKind::kLet: return "let " + head(e.as<LetNode>()->var) + " = ...; ...";
    case ExprKind::kIf: return "if (...) {...} else {...}";
  }
  return "?";
}

std::string join_heads(const std::vector<Expr>& exprs) {
  std::string out;
  for (const Expr& x : exprs) out += (out.empty() ? "" : ", ") + head(x);
  return out;
}

std::string one_line(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kCall: {
      auto* c = e.as<CallNode>();
      std::string out = (c->op->kind == ExprKind::kFunction ? std::string("fn (...) {...}") : head(c->op)) + "(" +
                        join_heads(c->args);
      if (c->attrs)
        for (const auto& [name, value] : c->attrs->entries) out += ", " + name + "=" + value.str();
      return out + ")";
    }
    case ExprKind::kFunction: {
      auto* f = e.as<FunctionNode>();
      std::string params;
      for (const Var& p : f->params) {
        params += (params.empty() ? "" : ", ") + head(p);
        if (p->type_annotation) params += ": " + type_to_text(p->type_annotation);
      }
      return "fn (" + params + ") { " + head(f->body) + " }";
    }
    case ExprKind::kTuple: return "(" + join_heads(e.as<TupleNode>()->fields) + ")";
    case ExprKind::kLet: {
      auto* l = e.as<LetNode>();
      return "let " + head(l->var) + " = " + head(l->value) + "; " + head(l->body);
    }
    case ExprKind::kIf: {
      auto* i = e.as<IfNode>();
      return "if (" + head(i->cond) + ") { " + head(i->then_branch) + " } else { " + head(i->else_branch) + " }";
    }
    default: return head(e);
  }
}

}  // namespace

std::string expr_snippet(const Expr& e) {
  if (small_graph(e)) {
    PrintOptions options;
    options.show_types = false;
    options.header = false;
    options.show_meta_data = false;  // a message quotes the program, not its tensors
    return to_text(e, options);
  }
  return one_line(e);
}

}  // namespace weft::detail
