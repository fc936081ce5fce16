// InlineLocalFunctions: a call of a function written in place (not a
// Primitive group, referenced by nothing but that call) becomes the
// function's body with its parameters bound to the arguments, as Relay's
// DeadCodeElimination(inline_once=True) inlines a binding used once. The zoo's
// lstm calls one such cell function per step, with the step's weights as
// arguments: inlined, the weights reach their dense layers as the constants
// they are bound to, so FoldConstant packs them at build, not at every run.
#include <unordered_map>
#include <vector>

#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

class LocalFunctionInliner : public ExprMutator {
 public:
  explicit LocalFunctionInliner(const Function& fn) {
    post_order_visit(fn, [&](const Expr& e) { for_each_child(*e.get(), [&](const Expr& c) { ++references_[c.get()]; }); });
  }

 protected:
  Expr visit_call(const Call& c) override {
    Expr rebuilt = ExprMutator::visit_call(c);
    const auto* original = c->op.as<FunctionNode>();
    if (!original || references_[c->op.get()] != 1 || has_attr(downcast<FunctionNode>(c->op), "Primitive")) return rebuilt;
    const Call call = downcast<CallNode>(rebuilt);
    const Function fn = downcast<FunctionNode>(call->op);  // its own calls already inlined
    if (fn->params.size() != call->args.size()) return rebuilt;  // ill-typed: left for InferType to report
    std::unordered_map<const VarNode*, Expr> arguments;
    for (size_t i = 0; i < fn->params.size(); ++i) arguments.emplace(fn->params[i].get(), call->args[i]);
    return substitute_vars(fn->body, std::move(arguments));
  }

 private:
  std::unordered_map<const ExprNode*, int> references_;  // per node: how many times a parent refers to it
};

}  // namespace

Pass InlineLocalFunctions() {
  return create_function_pass({"InlineLocalFunctions", 1, {}}, [](Function fn, const IRModule&, const PassContext&) {
    return downcast<FunctionNode>(LocalFunctionInliner(fn).mutate(fn));
  });
}

}  // namespace weft
