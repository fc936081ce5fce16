// run_opt_pass / run_infer_type wrap an expression as main, run, and unwrap.
#include <gtest/gtest.h>

#include "weft/passes.h"
#include "weft/testing/count_ops.h"
#include "weft/testing/gtest_helpers.h"
#include "weft/testing/passes.h"

namespace weft::testing {
namespace {

TEST(RunInferType, TypesABareExpressionAndReturnsIt) {
  const Var x = var("x", tensor_type({2, 3}));
  const Expr typed = run_infer_type(call("add", {x, x}));
  ASSERT_EQ(typed->kind, ExprKind::kCall);
  EXPECT_EQ(type_to_text(typed->checked_type()), "Tensor[(2, 3), float32]");
}

TEST(RunInferType, ReturnsAFunctionForAFunction) {
  const Var x = var("x", tensor_type({4}));
  const Expr typed = run_infer_type(function({x}, call("negative", {x})));
  ASSERT_EQ(typed->kind, ExprKind::kFunction);
  EXPECT_EQ(type_to_text(typed->checked_type()), "fn (Tensor[(4), float32]) -> Tensor[(4), float32]");
}

TEST(RunOptPass, AppliesThePassToTheExpression) {
  const Var x = var("x", tensor_type({4}));
  const Expr twice = call("add", {call("exp", {x}), call("exp", {x})});
  const Expr merged = run_opt_pass(function({x}, twice), EliminateCommonSubexpr());
  EXPECT_EQ(count_ops(merged).at("exp"), 1);

  const Var y = var("y", tensor_type({4}));
  const Expr e = call("exp", {y});
  EXPECT_STRUCTURAL_EQ(run_opt_pass(function({y}, call("add", {e, e})), EliminateCommonSubexpr()),
                       merged);
}

TEST(RunOptPass, RunsSeveralPassesAsASequentialUnderTheCurrentContext) {
  const Var x = var("x", tensor_type({4}));
  const Expr twice = call("add", {call("exp", {x}), call("exp", {x})});
  const std::vector<Pass> passes{EliminateCommonSubexpr(), InferType()};
  // EliminateCommonSubexpr is an opt_level 3 pass: the default context (2) skips it.
  const Expr skipped = run_opt_pass(twice, passes);
  EXPECT_EQ(count_ops(skipped).at("exp"), 2);
  EXPECT_TRUE(skipped->has_type());
  PassContext level3;
  level3.opt_level = 3;
  PassContext::Scope scope(level3);
  EXPECT_EQ(count_ops(run_opt_pass(twice, passes)).at("exp"), 1);
}

}  // namespace
}  // namespace weft::testing
