// Dead code elimination: drops let bindings whose variable is never used and
// whose value is pure (see passes.h for the purity rule, which follows Relay's
// analysis with every op pure).
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

/// Whether evaluating an expression can have an effect, module-wide.
class PurityAnalysis final : public ExprFunctor<bool> {
 public:
  explicit PurityAnalysis(const IRModule& mod) : mod_(mod) {
    // Calls through a let-bound closure need its function before the let is
    // reached bottom-up, so find those bindings first.
    for (const auto& [gv, fn] : mod.functions()) {
      post_order_visit(fn, [&](const Expr& e) {
        if (auto* l = e.as<LetNode>(); l && l->value->kind == ExprKind::kFunction)
          let_functions_[l->var.get()] = downcast<FunctionNode>(l->value);
      });
    }
    // Bottom-up, a let's value comes before its body, so a closure's purity is
    // known before its calls, except for calls from inside itself.
    for (const auto& [gv, fn] : mod.functions()) visit(fn);
  }

  bool pure(const Expr& e) { return visit(e); }

 protected:
  bool visit_var(const Var&) override { return true; }
  bool visit_global_var(const GlobalVar&) override { return true; }
  bool visit_constant(const Constant&) override { return true; }
  bool visit_op(const Op&) override { return true; }
  bool visit_function(const Function&) override { return true; }  // making a closure does nothing
  bool visit_call(const Call& c) override {
    for (const Expr& a : c->args)
      if (!visit(a)) return false;
    return visit(c->op) && call_is_pure(c->op);
  }
  bool visit_tuple(const Tuple& t) override {
    for (const Expr& f : t->fields)
      if (!visit(f)) return false;
    return true;
  }
  bool visit_tuple_get_item(const TupleGetItem& t) override { return visit(t->tuple); }
  bool visit_let(const Let& l) override { return visit(l->value) && visit(l->body); }
  bool visit_if(const If& i) override { return visit(i->cond) && visit(i->then_branch) && visit(i->else_branch); }

 private:
  // Whether calling `callee` is pure: known functions when their bodies are;
  // unknown callees never.
  bool call_is_pure(const Expr& callee) {
    switch (callee->kind) {
      case ExprKind::kOp: return true;
      case ExprKind::kFunction: return body_is_pure(downcast<FunctionNode>(callee));
      case ExprKind::kGlobalVar: return global_is_pure(callee.as<GlobalVarNode>()->name);
      case ExprKind::kVar: {
        auto it = let_functions_.find(callee.as<VarNode>());
        return it != let_functions_.end() && body_is_pure(it->second);
      }
      default: return false;
    }
  }

  bool body_is_pure(const Function& fn) {
    if (auto it = memo_.find(fn->body.get()); it != memo_.end()) return it->second;
    return true;  // a closure calling itself from its own body: assume pure, as Relay does
  }

  bool global_is_pure(const std::string& name) {
    if (!mod_.contains(name)) return false;
    auto [it, first] = global_purity_.emplace(name, true);  // recursion sees "pure", as in Relay
    if (!first) return it->second;
    bool pure = visit(mod_.lookup(name)->body);
    global_purity_[name] = pure;
    return pure;
  }

  const IRModule& mod_;
  std::unordered_map<const VarNode*, Function> let_functions_;
  std::unordered_map<std::string, bool> global_purity_;
};

/// Let-bound variables whose value must be computed: used by something that
/// is itself needed, starting from the function's result.
std::unordered_set<const VarNode*> live_vars(const Function& fn, PurityAnalysis& purity) {
  std::unordered_set<const VarNode*> live;
  std::unordered_map<const VarNode*, const ExprNode*> values;  // of the lets seen so far
  std::unordered_set<const ExprNode*> seen;
  std::vector<Expr> stack{fn};
  while (!stack.empty()) {
    Expr e = std::move(stack.back());
    stack.pop_back();
    if (auto* v = e.as<VarNode>()) {
      if (!live.insert(v).second) continue;
      if (auto it = values.find(v); it != values.end()) stack.emplace_back(const_cast<ExprNode*>(it->second));
      continue;
    }
    if (!seen.insert(e.get()).second) continue;
    if (auto* l = e.as<LetNode>()) {
      values[l->var.get()] = l->value.get();
      // An impure value runs whether or not its variable is used.
      if (live.count(l->var.get()) || !purity.pure(l->value)) stack.push_back(l->value);
      stack.push_back(l->body);
      continue;
    }
    for_each_child(*e, [&](const Expr& c) { stack.push_back(c); });
  }
  return live;
}

class Eliminator : public ExprMutator {
 public:
  Eliminator(std::unordered_set<const VarNode*> live, PurityAnalysis& purity)
      : live_(std::move(live)), purity_(purity) {}

 protected:
  Expr visit_let(const Let& l) override {
    if (!live_.count(l->var.get()) && purity_.pure(l->value)) return visit(l->body);
    return ExprMutator::visit_let(l);
  }

 private:
  std::unordered_set<const VarNode*> live_;
  PurityAnalysis& purity_;
};

}  // namespace

Pass DeadCodeElimination() {
  return create_module_pass({"DeadCodeElimination", 1, {}}, [](IRModule mod, const PassContext&) {
    PurityAnalysis purity(mod);
    IRModule out = mod;
    for (const auto& [gv, fn] : mod.functions()) {
      Eliminator eliminator(live_vars(fn, purity), purity);
      Expr result = eliminator.mutate(fn);
      if (!result.same_as(fn)) out.add(gv, downcast<FunctionNode>(result));
    }
    return out;
  });
}

}  // namespace weft
