// The whole -O3 pipeline on 100,000-node programs, on a small stack so that
// a pass recursing once per node crashes instead of passing by luck (the
// issue's scale goal).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/small_stack.h"
#include "o3.h"
#include "weft/functor.h"

namespace weft::testing {
namespace {

constexpr int kLength = 100000;

TensorType small() { return tensor_type({2, 3}); }

Tensor filled(float value) {
  Tensor t = Tensor::zeros({2, 3}, DataType::Float(32));
  for (int i = 0; i < 6; ++i) t.data_as<float>()[i] = value;
  return t;
}

// Calls of primitive functions in main and the ops they hold, all told.
int count_op_calls(const IRModule& mod) {
  int n = 0;
  post_order_visit(mod.main()->body, [&](const Expr& e) {
    auto* c = e.as<CallNode>();
    n += c && c->op->kind == ExprKind::kOp;
  });
  return n;
}

// fn (%x) { relu(add(...relu(add(%x, %x))..., %x)) }: kLength nodes of alternating
// add and relu. On x = 1 each add-relu step adds 1, so the result is kLength / 2 + 1.
TEST(DeepProgramsAtO3, AnAddReluChainOf100000NodesKeepsItsValue) {
  run_with_stack(kSmallStack, [] {
    Var x = var("x", small());
    Expr e = x;
    for (int i = 0; i < kLength / 2; ++i) e = call("nn.relu", {call("add", {e, x})});
    IRModule after = optimize_o3(infer_type(IRModule::from_function(function({x}, e))));
    EXPECT_EQ(count_op_calls(after), kLength);  // nothing to fold: every op stays, inside fused functions
    Tensor out = Interpreter(after).run_main({Value(filled(1))}).tensor("chain output");
    EXPECT_EQ(out.data_as<float>()[5], kLength / 2 + 1.0f);
  });
}

// fn (%x) { let %v0 = add(%x, c); let %v1 = relu(%v0); ... } with c = 1 and
// kLetLength bindings: the same sum through lets, a constant operand on every
// add. Shorter than kLength: -O3 on a let chain takes 66 s at 100,000 bindings
// on a loaded machine, too slow for every CI run (its work is linear, see
// test_o3_linear_work.cpp; the wall time grows faster with the cache and
// allocator footprint); each pass alone handles 100,000 lets in
// tests/core/test_deep_graph_passes.cpp.
constexpr int kLetLength = 20000;
TEST(DeepProgramsAtO3, ALetChainOf20000BindingsKeepsItsValue) {
  run_with_stack(kSmallStack, [] {
    Var x = var("x", small());
    Expr one = constant(filled(1));
    Expr body = let_chain(x, kLetLength, [&](int i, const Expr& prev) {
      return i % 2 == 0 ? call("add", {prev, one}) : call("nn.relu", {prev});
    });
    IRModule after = optimize_o3(infer_type(IRModule::from_function(function({x}, body))));
    Tensor out = Interpreter(after).run_main({Value(filled(0))}).tensor("let chain output");
    EXPECT_EQ(out.data_as<float>()[0], kLetLength / 2 + 0.0f);
  });
}

}  // namespace
}  // namespace weft::testing
