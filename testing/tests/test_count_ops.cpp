// count_ops counts call nodes per op, as Relay's list_op_freqs.
#include <gtest/gtest.h>

#include "weft/testing/count_ops.h"

namespace weft::testing {
namespace {

using Counts = std::map<std::string, int>;

TEST(CountOps, CountsDistinctCallNodesPerOp) {
  const Var x = var("x", tensor_type({4}));
  const Expr e = call("exp", {x});          // shared: one node, counted once
  const Expr a = call("add", {e, e});
  const Expr b = call("add", {a, call("exp", {a})});
  EXPECT_EQ(count_ops(function({x}, b)), (Counts{{"add", 2}, {"exp", 2}}));
}

TEST(CountOps, CountsInsideNestedFunctionsButNotFunctionCalls) {
  const Var p = var("p", tensor_type({4}));
  const Function fused = function({p}, call("negative", {call("exp", {p})}), nullptr,
                                  make_attrs({{"Primitive", 1}}));
  const Var x = var("x", tensor_type({4}));
  const Expr body = call("add", {call_function(fused, {x}), call_function(fused, {x})});
  EXPECT_EQ(count_ops(function({x}, body)), (Counts{{"add", 1}, {"exp", 1}, {"negative", 1}}));
}

TEST(CountOps, ModuleCountsMainOnly) {
  const Var y = var("y", tensor_type({4}));
  IRModule mod;
  const GlobalVar helper = mod.add("helper", function({y}, call("exp", {y})));
  const Var x = var("x", tensor_type({4}));
  mod.add("main", function({x}, call("negative", {call_function(helper, {x})})));
  EXPECT_EQ(count_ops(mod), (Counts{{"negative", 1}}));
}

TEST(CountOps, DeepChainDoesNotRecurse) {
  const Var x = var("x", tensor_type({1}));
  Expr e = x;
  for (int i = 0; i < 10000; ++i) e = call("negative", {e});
  EXPECT_EQ(count_ops(e), (Counts{{"negative", 10000}}));
}

TEST(OwnCalls, ListsTheBodysCallsButNotThoseInsideItsFunctions) {
  const Var p = var("p", tensor_type({4}));
  const Function fused = function({p}, call("negative", {call("exp", {p})}), nullptr,
                                  make_attrs({{"Primitive", 1}}));
  const Var x = var("x", tensor_type({4}));
  const Expr first = call_function(fused, {x});
  const Expr second = call_function(fused, {first});
  const Expr sum = call("add", {first, second});
  const std::vector<const CallNode*> calls = own_calls(function({x}, sum));
  ASSERT_EQ(calls.size(), 3u);  // the two calls of the fused function, then add; not exp or negative
  EXPECT_EQ(calls[0], first.get());
  EXPECT_EQ(calls[1], second.get());
  EXPECT_EQ(calls[2], sum.get());
}

}  // namespace
}  // namespace weft::testing
