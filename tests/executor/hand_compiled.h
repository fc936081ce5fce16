// A CompiledModule put together by hand for the executor's tests, as
// weft::build would leave it: main typed by InferType, each call of a
// Primitive function a group, compiled by the target the test picks for it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "weft/build.h"
#include "weft/group_storage.h"
#include "weft/functor.h"
#include "weft/module.h"
#include "weft/passes.h"

namespace weft::testing {

/// `main` typed, its Primitive calls numbered in post-order, group i compiled
/// by targets.at(target_of(i)).
inline std::shared_ptr<const CompiledModule> compile_by_hand(
    const Function& main, const std::map<std::string, std::shared_ptr<Target>>& targets,
    const std::function<std::string(size_t group)>& target_of) {
  auto compiled = std::make_shared<CompiledModule>();
  compiled->main = infer_type(IRModule::from_function(main)).main();
  compiled->targets = targets;
  post_order_visit(compiled->main->body, [&](const Expr& e) {
    auto* call = e.as<CallNode>();
    if (!call || call->op->kind != ExprKind::kFunction) return;
    Function fn = downcast<FunctionNode>(call->op);
    if (compiled->group_of.count(fn.get())) return;
    std::vector<Tensor> constants;
    for (const Expr& a : call->args) constants.push_back(a->kind == ExprKind::kConstant ? downcast<ConstantNode>(a)->data : Tensor());
    CompiledGroup group{fn, target_of(compiled->groups.size()), nullptr, {}, {}, 0};
    group.kernel = targets.at(group.target)->compile(fn, constants);
    group.inplace_param = inplace_parameter(fn);  // as the build's, for targets that name none
    post_order_visit(fn->body, [&](const Expr& inner) {
      if (auto* c = inner.as<CallNode>(); c && c->op->kind == ExprKind::kOp) group.ops.push_back(downcast<OpNode>(c->op)->name());
    });
    compiled->group_of[fn.get()] = compiled->groups.size();
    compiled->groups.push_back(std::move(group));
  });
  return compiled;
}

}  // namespace weft::testing
