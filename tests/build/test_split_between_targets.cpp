// A fused group split between the null target (add, nn.relu, nn.dense only)
// and ref, with main rebuilt around the split: the built program must type
// and run like the unbuilt one on the interpreter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/run_config.h"
#include "weft/testing/gtest_helpers.h"
#include "weft/text.h"

namespace weft {
namespace {

/// Three groups at -O3: softmax with the add after it (split: null takes the
/// add), dense with its bias add and relu (null takes it whole, but its call
/// is rebuilt since its argument now comes from the split), and softmax with
/// its add again (split, its arguments the rebuilt call's result).
constexpr const char* kProgram = R"(
fn (%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32], %b: Tensor[(3), float32]) {
  %0 = nn.softmax(%x);
  %1 = add(%0, %x);
  %2 = nn.dense(%1, %w, units=3);
  %3 = add(%2, %b);
  %4 = nn.relu(%3);
  %5 = nn.softmax(%4);
  add(%5, %4)
})";

Tensor f32(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

TEST(SplitBetweenTargets, AGroupSplitBetweenNullAndRefRunsAsTheInterpreterDoes) {
  RunConfig config;
  config.targets = {"null"};
  config.fallback = FallbackPolicy::kWarn;
  IRModule mod = parse_module(kProgram);
  ::testing::internal::CaptureStderr();
  auto compiled = build(mod, config);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.softmax\n"
            "1  null  add\n"
            "2  null  nn.dense, add, nn.relu\n"
            "3  ref   nn.softmax\n"
            "4  null  add\n");

  const std::vector<Value> args = {
      f32({2, 4}, {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f, 0.0f, -2.0f}),
      f32({3, 4}, {1.0f, 0.5f, -0.5f, 2.0f, -1.0f, 0.25f, 1.5f, 0.0f, 0.75f, -0.25f, 1.0f, -1.5f}),
      f32({3}, {0.1f, -0.2f, 0.3f}),
  };
  // null's loops are not the reference kernels: equal up to float32 rounding.
  Value want = Interpreter(mod).run_main(args);
  Value got = GraphExecutor(compiled).run(args);
  EXPECT_TRUE(testing::tensors_near(got.tensor(), want.tensor(), 1e-6, 1e-6));
}

}  // namespace
}  // namespace weft
