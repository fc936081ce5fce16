// Nodes shared between modules and threads: a node's checked type is written
// once and never changes, InferType copies a node whose type it infers
// differently, and so several threads may type shared nodes and run one
// interpreter at once (run these under ThreadSanitizer to see no race).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test_ops.h"
#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/module.h"
#include "weft/passes.h"

namespace weft {
namespace {

constexpr int kThreads = 8;

TensorType f32_vector(int64_t n) { return tensor_type({n}, DataType::Float(32)); }

// The nodes two modules share: %v (a let variable with no annotation) and
// relu(%v + %v) above it. Which shape they have depends on the module.
struct SharedBody {
  Var v = var("v");
  Expr relu = call("test.relu", {call("test.add", {v, v})});
};

// fn(%a: Tensor[(n), float32]) { let %v = %a; relu(%v + %v) }
IRModule module_with_input_length(const SharedBody& shared, int64_t n) {
  Var a = var("a", f32_vector(n));
  return IRModule::from_function(function({a}, let(shared.v, a, shared.relu)));
}

// Empty if every node of `mod`'s main has the type a program over
// Tensor[(n), float32] gives it (the function fn(that) -> that); else what differs.
std::string types_that_differ(const IRModule& mod, int64_t n) {
  Type value = f32_vector(n);
  Type fn_type = func_type({value}, value);
  std::string differ;
  post_order_visit(mod.main(), [&](const Expr& e) {
    if (e->kind == ExprKind::kOp) return;
    const Type& want = e->kind == ExprKind::kFunction ? fn_type : value;
    if (!type_equal(e->checked_type(), want))
      differ += std::string(expr_kind_name(e->kind)) + " has " +
                (e->has_type() ? type_to_text(e->checked_type()) : "no type") + ", not " + type_to_text(want) + "\n";
  });
  if (!type_equal(mod.global_var("main")->checked_type(), fn_type)) differ += "@main's type differs\n";
  return differ;
}

// Runs fn(0) ... fn(kThreads - 1) on threads that start together, and waits for them.
template <typename F>
void on_threads_at_once(F fn) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      fn(t);
    });
  }
  for (std::thread& th : threads) th.join();
}

class ConcurrentTypingTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

TEST_F(ConcurrentTypingTest, ANodesTypeIsWrittenOnce) {
  Expr x = call("test.relu", {var("x", f32_vector(2))});
  EXPECT_FALSE(x->has_type());
  EXPECT_TRUE(x->try_set_checked_type(f32_vector(2)));
  EXPECT_TRUE(x->try_set_checked_type(f32_vector(2)));   // an equal type: nothing to change
  EXPECT_FALSE(x->try_set_checked_type(f32_vector(3)));  // another: the caller must copy the node
  EXPECT_TRUE(type_equal(x->checked_type(), f32_vector(2)));
  EXPECT_THROW(x->set_checked_type(f32_vector(3)), InternalError);
}

TEST_F(ConcurrentTypingTest, TypingASecondModuleCopiesTheNodesItTypesDifferently) {
  SharedBody shared;
  IRModule two = infer_type(module_with_input_length(shared, 2));
  IRModule three = infer_type(module_with_input_length(shared, 3));
  EXPECT_EQ(types_that_differ(two, 2), "");
  EXPECT_EQ(types_that_differ(three, 3), "");
  // The shared nodes keep the first type they were given.
  EXPECT_TRUE(type_equal(shared.relu->checked_type(), f32_vector(2)));
  EXPECT_TRUE(type_equal(shared.v->checked_type(), f32_vector(2)));
}

TEST_F(ConcurrentTypingTest, TypingATypedModuleAgainKeepsItsNodes) {
  SharedBody shared;
  IRModule first = infer_type(module_with_input_length(shared, 2));
  IRModule second = infer_type(first);
  EXPECT_TRUE(second.main().same_as(first.main()));
  EXPECT_TRUE(second.global_var("main").same_as(first.global_var("main")));
}

TEST_F(ConcurrentTypingTest, ThreadsTypingTheSameNodesInDifferentModulesEachGetTheirOwnTypes) {
  for (int iteration = 0; iteration < 100; ++iteration) {
    SharedBody shared;
    std::vector<IRModule> modules;
    for (int t = 0; t < kThreads; ++t) modules.push_back(module_with_input_length(shared, t + 1));
    std::vector<std::string> differ(kThreads);
    on_threads_at_once([&](int t) { differ[t] = types_that_differ(infer_type(modules[t]), t + 1); });
    for (int t = 0; t < kThreads; ++t)
      ASSERT_EQ(differ[t], "") << "iteration " << iteration << ", the module over length " << t + 1;
  }
}

// main(x: Tensor[(?), float32]) { (relu(x + x + x), c + c) } with c = [1, 2]:
// the first field is relu(3x), typed anew for each input length; the second
// does not depend on x, so every re-typed copy of main shares it.
IRModule three_x_relu_and_a_constant() {
  Var x = var("x", tensor_type({kAnyDim}, DataType::Float(32)));
  Tensor c = Tensor::empty({2}, DataType::Float(32));
  c.data_as<float>()[0] = 1;
  c.data_as<float>()[1] = 2;
  Expr three_x = call("test.add", {call("test.add", {x, x}), x});
  Expr twice_c = call("test.add", {constant(c), constant(c)});
  return IRModule::from_function(function({x}, tuple({call("test.relu", {three_x}), twice_c})));
}

TEST_F(ConcurrentTypingTest, RunningWithBoundShapesLeavesTheProgramsTypes) {
  Interpreter interp(three_x_relu_and_a_constant());
  Type declared = interp.module().main()->checked_type();
  interp.run_main({Tensor::zeros({5}, DataType::Float(32))});
  EXPECT_TRUE(type_equal(interp.module().global_var("main")->checked_type(), declared))
      << type_to_text(interp.module().global_var("main")->checked_type());
  EXPECT_EQ(type_to_text(interp.module().main()->body->checked_type()),
            "(Tensor[(?), float32], Tensor[(2), float32])");
}

// Empty if main of three_x_relu_and_a_constant gives (relu(3x), [2, 4]) for
// x = [0 - n/2, 1 - n/2, ...] (halves: exact in float); else what differs.
std::string wrong_result(Interpreter& interp, int64_t n) {
  Tensor x = Tensor::empty({n}, DataType::Float(32));
  for (int64_t i = 0; i < n; ++i) x.data_as<float>()[i] = static_cast<float>(i) - static_cast<float>(n) / 2;
  std::string where = "length " + std::to_string(n) + ": ";
  try {
    Value result = interp.run_main({x});
    const Tensor& relu_3x = result.fields().at(0).tensor();
    const Tensor& twice_c = result.fields().at(1).tensor();
    if (relu_3x.shape() != std::vector<int64_t>{n}) return where + "relu(3x) has another shape";
    for (int64_t i = 0; i < n; ++i)
      if (relu_3x.data_as<float>()[i] != std::max(0.0f, 3 * x.data_as<float>()[i]))
        return where + "relu(3x) differs at " + std::to_string(i);
    if (twice_c.data_as<float>()[0] != 2 || twice_c.data_as<float>()[1] != 4) return where + "c + c differs";
  } catch (const std::exception& e) {
    return where + e.what();
  }
  return "";
}

TEST_F(ConcurrentTypingTest, ThreadsRunningOneInterpreterOnOtherShapesGetTheirOwnResults) {
  Interpreter interp(three_x_relu_and_a_constant());
  constexpr int kRuns = 200;
  std::vector<std::string> wrong(kThreads);
  on_threads_at_once([&](int t) {
    for (int run = 0; run < kRuns && wrong[t].empty(); ++run) wrong[t] = wrong_result(interp, 1 + (t * 7 + run) % 13);
  });
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], "") << "thread " << t;
  // The program keeps its declared types: main over (?) extents.
  TensorType any = tensor_type({kAnyDim}, DataType::Float(32));
  Type main_type = func_type({any}, tuple_type({any, f32_vector(2)}));
  EXPECT_TRUE(type_equal(interp.module().global_var("main")->checked_type(), main_type));
}

}  // namespace
}  // namespace weft
