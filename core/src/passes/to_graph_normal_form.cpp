// ToGraphNormalForm: every let disappears, each use of its variable becoming
// the bound value itself (shared, not copied), as Relay's
// (src/relay/transforms/to_graph_normal_form.cc). Iterative on deep graphs.
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

// A node built from `from` with new children keeps its span.
template <typename T, typename... Args>
Expr rebuilt(const ExprNode& from, Args&&... args) {
  Ref<T> node(new T(std::forward<Args>(args)...));
  node->span = from.span;
  return Expr(std::move(node));
}

class GraphNormalizer {
 public:
  Expr run(const Expr& root) {
    post_order_visit(root, [&](const Expr& e) {
      if (auto* l = e.as<LetNode>()) let_of_.emplace(l->var.get(), l);
    });
    detail::post_order(
        root, [&](const ExprNode* n) { return handled_.count(n) > 0; },
        [&](const ExprNode* n) {
          handled_.insert(n);
          if (n->kind != ExprKind::kVar) memo_.emplace(n, rewrite(*n));
        });
    return get(root);
  }

 private:
  // What a handled node became. A variable is looked up at each use: its
  // let's value is done once the value's walk has finished.
  Expr get(const Expr& e) {
    Expr use = e;
    while (use->kind == ExprKind::kVar) {  // `let %y = %x` chains are followed without recursion
      auto it = let_of_.find(static_cast<const VarNode*>(use.get()));
      if (it == let_of_.end()) return use;  // a parameter
      const LetNode& let = *it->second;
      if (let.value->kind == ExprKind::kVar) {
        use = let.value;
        continue;
      }
      auto value = memo_.find(let.value.get());
      if (value == memo_.end()) {
        // A use inside its own value (a recursive closure): the variable
        // stays, and the value stays bound to it, as Relay's `let %f = value; %f`.
        recursive_.insert(&let);
        return use;
      }
      if (!recursive_.count(&let)) return value->second;
      auto [wrapped, fresh] = wrapped_.try_emplace(&let);
      if (fresh) wrapped->second = weft::let(let.var, value->second, let.var);
      return wrapped->second;
    }
    return memo_.at(use.get());
  }

  // Children mapped through get(); the node itself when none changed.
  std::vector<Expr> mapped(const std::vector<Expr>& children, bool& changed) {
    std::vector<Expr> out;
    out.reserve(children.size());
    for (const Expr& c : children) {
      out.push_back(get(c));
      changed |= !out.back().same_as(c);
    }
    return out;
  }

  Expr rewrite(const ExprNode& n) {
    Expr self(const_cast<ExprNode*>(&n));
    bool changed = false;
    switch (n.kind) {
      case ExprKind::kCall: {
        auto& c = static_cast<const CallNode&>(n);
        Expr op = get(c.op);
        changed = !op.same_as(c.op);
        std::vector<Expr> args = mapped(c.args, changed);
        return changed ? rebuilt<CallNode>(n, op, std::move(args), c.attrs) : self;
      }
      case ExprKind::kFunction: {
        auto& f = static_cast<const FunctionNode&>(n);
        Expr body = get(f.body);
        return body.same_as(f.body) ? self : rebuilt<FunctionNode>(n, f.params, body, f.ret_type, f.attrs);
      }
      case ExprKind::kTuple: {
        std::vector<Expr> fields = mapped(static_cast<const TupleNode&>(n).fields, changed);
        return changed ? rebuilt<TupleNode>(n, std::move(fields)) : self;
      }
      case ExprKind::kTupleGetItem: {
        auto& t = static_cast<const TupleGetItemNode&>(n);
        Expr tuple = get(t.tuple);
        return tuple.same_as(t.tuple) ? self : rebuilt<TupleGetItemNode>(n, tuple, t.index);
      }
      case ExprKind::kIf: {
        auto& i = static_cast<const IfNode&>(n);
        std::vector<Expr> parts = mapped({i.cond, i.then_branch, i.else_branch}, changed);
        return changed ? rebuilt<IfNode>(n, parts[0], parts[1], parts[2]) : self;
      }
      case ExprKind::kLet:
        return get(static_cast<const LetNode&>(n).body);
      default:
        return self;  // GlobalVar, Constant, Op
    }
  }

  std::unordered_map<const VarNode*, const LetNode*> let_of_;
  std::unordered_set<const ExprNode*> handled_;
  std::unordered_map<const ExprNode*, Expr> memo_;
  std::unordered_set<const LetNode*> recursive_;
  std::unordered_map<const LetNode*, Expr> wrapped_;
};

}  // namespace

Expr to_graph_normal_form(const Expr& expr) { return GraphNormalizer().run(expr); }

Pass ToGraphNormalForm() {
  return create_function_pass({"ToGraphNormalForm", 1, {}}, [](Function fn, const IRModule&, const PassContext&) {
    return downcast<FunctionNode>(to_graph_normal_form(fn));
  });
}

}  // namespace weft
