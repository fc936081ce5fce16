// The vulkan target through weft::build and the graph executor, on whatever
// Vulkan device the machine has (lavapipe in CI): programs built with
// `fallback: error` (every op must run on vulkan) and checked against the
// interpreter on the reference kernels, or against values worked by hand
// where the loop IR's own rules are what is tested. Without a device every
// test skips, saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <weft/sdk/numpy_random.hpp>

#include <cmath>
#include <limits>
#include <span>

#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/target.h"
#include "weft/testing/gtest_helpers.h"
#include "weft/testing/random_data.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

RunConfig vulkan_only() {
  RunConfig config;
  config.targets = {"vulkan"};
  config.fallback = FallbackPolicy::kError;
  config.target_options["vulkan"] = make_attrs({{"validation", true}});
  return config;
}

/// Skips the test where this machine has no Vulkan device.
#define SKIP_WITHOUT_VULKAN()                                                                       \
  do {                                                                                             \
    try {                                                                                          \
      const TargetDef& def = TargetRegistry::global().get("vulkan");                              \
      def.create(def.options.normalize("vulkan", make_attrs({})));                                 \
    } catch (const Error& e) {                                                                     \
      if (e.status() == StatusCode::kUnsupported) GTEST_SKIP() << "no Vulkan device: " << e.what(); \
      throw;                                                                                       \
    }                                                                                              \
  } while (0)

IRModule program(const std::string& text) { return infer_type(parse_module("#[version = \"0.0.5\"]\n" + text)); }

/// A 1-D tensor of `values` in dtype `dtype` (T holds its element's bytes).
template <typename T>
Tensor vector_of(std::vector<T> values, DataType dtype) {
  return Tensor::from_bytes({static_cast<int64_t>(values.size())}, dtype, std::as_bytes(std::span(values)));
}

Tensor uniform(std::vector<int64_t> shape, uint32_t seed) {
  sdk::NumpyRandomState state(seed);
  return testing::rand(DataType::Float(32), shape, state, -1.0, 1.0);
}

std::shared_ptr<const CompiledModule> build_for_vulkan(const IRModule& mod) {
  auto compiled = build(mod, vulkan_only());
  for (const CompiledGroup& g : compiled->groups) EXPECT_EQ(g.target, "vulkan") << describe_partition(*compiled);
  return compiled;
}

TEST(VulkanTarget, ListsItsDevicesAndOptions) {
  SKIP_WITHOUT_VULKAN();
  const TargetDef& def = TargetRegistry::global().get("vulkan");
  for (const char* option : {"device", "validation", "verbose"}) EXPECT_NE(def.options.find(option), nullptr) << option;
  auto target = def.create(def.options.normalize("vulkan", make_attrs({})));
  const std::vector<TargetDevice> devices = target->devices();
  ASSERT_GE(devices.size(), 1u);
  const TargetDevice& info = devices[0];
  EXPECT_FALSE(info.name.empty());
  EXPECT_NE(info.properties.find("type"), info.properties.end());
  EXPECT_NE(info.properties.find("memory_bytes"), info.properties.end());
  EXPECT_FALSE(target->host_addressable());
}

TEST(VulkanTarget, ADeviceIndexPastTheDevicesIsAnErrorSayingHowManyThereAre) {
  SKIP_WITHOUT_VULKAN();
  const TargetDef& def = TargetRegistry::global().get("vulkan");
  try {
    def.create(def.options.normalize("vulkan", make_attrs({{"device", int64_t{99}}})));
    FAIL() << "device 99 was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("device 99 does not exist"));
    EXPECT_THAT(e.what(), HasSubstr("weft targets lists them"));
  }
}

TEST(VulkanTarget, ADeviceBelowMinusOneOrPastIntsRangeIsAnError) {
  const TargetDef& def = TargetRegistry::global().get("vulkan");
  for (int64_t device : {int64_t{-2}, int64_t{1} << 32}) {  // 2^32 would wrap to device 0 as an int
    try {
      def.create(def.options.normalize("vulkan", make_attrs({{"device", device}})));
      ADD_FAILURE() << "device " << device << " was accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("device must be -1 or a device index, got " + std::to_string(device)));
    }
  }
}

TEST(VulkanTarget, ADenseLayerWithBiasAndReluMatchesTheInterpreter) {
  SKIP_WITHOUT_VULKAN();
  IRModule mod = program(R"(
    def @main(%x: Tensor[(3, 70), float32], %w: Tensor[(33, 70), float32], %b: Tensor[(33), float32]) {
      nn.relu(nn.bias_add(nn.dense(%x, %w), %b))
    })");
  std::vector<Value> args = {uniform({3, 70}, 1),
                             uniform({33, 70}, 2),
                             uniform({33}, 3)};
  Value got = GraphExecutor(build_for_vulkan(mod)).run(args);
  EXPECT_TRUE(testing::tensors_near(got.tensor(), Interpreter(mod).run_main(args).tensor(), 1e-5, 1e-5));
}

TEST(VulkanTarget, ASoftmaxOfManyRowsMatchesTheInterpreter) {
  SKIP_WITHOUT_VULKAN();
  // Its stages (max, sum of exponentials, quotient) are separate dispatches
  // over scratch in device memory.
  IRModule mod = program(R"(
    def @main(%x: Tensor[(300, 17), float32]) { nn.softmax(%x) })");
  std::vector<Value> args = {uniform({300, 17}, 4)};
  Value got = GraphExecutor(build_for_vulkan(mod)).run(args);
  EXPECT_TRUE(testing::tensors_near(got.tensor(), Interpreter(mod).run_main(args).tensor(), 1e-6, 1e-5));
}

TEST(VulkanTarget, ALoopOfMoreIterationsThanTheGridHasInvocationsStridesOverThem) {
  SKIP_WITHOUT_VULKAN();
  // 5,000,000 elements: more than 65,535 workgroups of 64 (lavapipe's most).
  IRModule mod = program(R"(
    def @main(%x: Tensor[(5000000), float32]) { nn.relu(%x) })");
  std::vector<Value> args = {uniform({5000000}, 8)};
  Value got = GraphExecutor(build_for_vulkan(mod)).run(args);
  // Exact, but for the sign of zero (the reference kernel gives -0 for a negative input).
  EXPECT_TRUE(testing::tensors_near(got.tensor(), Interpreter(mod).run_main(args).tensor(), 0, 0));
}

TEST(VulkanTarget, FloatToIntCastsSaturateAndNanIsZero) {
  SKIP_WITHOUT_VULKAN();
  IRModule mod = program(R"(
    def @main(%x: Tensor[(7), float32]) { (cast(%x, dtype="int32"), cast(%x, dtype="int64")) })");
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = vector_of<float>({std::nanf(""), inf, -inf, 300.7f, -3e9f, 2.9f, -2.9f}, DataType::Float(32));
  Value got = GraphExecutor(build_for_vulkan(mod)).run({x});
  const int32_t lo32 = std::numeric_limits<int32_t>::min(), hi32 = std::numeric_limits<int32_t>::max();
  const int64_t lo64 = std::numeric_limits<int64_t>::min(), hi64 = std::numeric_limits<int64_t>::max();
  EXPECT_TENSOR_EQ(got.fields()[0].tensor(), vector_of<int32_t>({0, hi32, lo32, 300, lo32, 2, -2}, DataType::Int(32)));
  EXPECT_TENSOR_EQ(got.fields()[1].tensor(),
                   vector_of<int64_t>({0, hi64, lo64, 300, -3000000000, 2, -2}, DataType::Int(64)));
}

TEST(VulkanTarget, IntegerFloorDivisionAndModuloFollowTheDivisorsSignAndSmallIntsWrap) {
  SKIP_WITHOUT_VULKAN();
  IRModule mod = program(R"(
    def @main(%a: Tensor[(4), int32], %b: Tensor[(4), int32], %c: Tensor[(2), int8]) {
      (floor_divide(%a, %b), floor_mod(%a, %b), divide(%a, %b), add(%c, %c))
    })");
  Tensor a = vector_of<int32_t>({7, -7, 7, -7}, DataType::Int(32)), b = vector_of<int32_t>({2, 2, -2, -2}, DataType::Int(32));
  Tensor c = vector_of<int8_t>({100, -100}, DataType::Int(8));
  Value got = GraphExecutor(build_for_vulkan(mod)).run({a, b, c});
  EXPECT_TRUE(testing::tensors_equal(got.fields()[0].tensor(), vector_of<int32_t>({3, -4, -4, 3}, DataType::Int(32))));
  EXPECT_TRUE(testing::tensors_equal(got.fields()[1].tensor(), vector_of<int32_t>({1, 1, -1, -1}, DataType::Int(32))));
  EXPECT_TRUE(testing::tensors_equal(got.fields()[2].tensor(), vector_of<int32_t>({3, -3, -3, 3}, DataType::Int(32))));
  EXPECT_TRUE(testing::tensors_equal(got.fields()[3].tensor(), vector_of<int8_t>({-56, 56}, DataType::Int(8))));
}

TEST(VulkanTarget, AnIntegerDivisionByZeroFailsTheRunNamingTheGroup) {
  SKIP_WITHOUT_VULKAN();
  IRModule mod = program(R"(
    def @main(%a: Tensor[(3), int32], %b: Tensor[(3), int32]) { floor_mod(%a, %b) })");
  GraphExecutor executor(build_for_vulkan(mod));
  Tensor a = vector_of<int32_t>({1, 2, 3}, DataType::Int(32));
  try {
    executor.run({a, vector_of<int32_t>({1, 0, 1}, DataType::Int(32))});
    FAIL() << "a division by zero ran";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("division or modulo by zero in group fused_floor_mod"));
  }
  // The stream is usable again.
  Value ok = executor.run({a, vector_of<int32_t>({2, 2, 2}, DataType::Int(32))});
  EXPECT_TRUE(testing::tensors_equal(ok.tensor(), vector_of<int32_t>({1, 0, 1}, DataType::Int(32))));
}

TEST(VulkanTarget, RunsAgainGiveTheSameResultOnNewInputs) {
  SKIP_WITHOUT_VULKAN();
  IRModule mod = program(R"(
    def @main(%x: Tensor[(2, 8, 9, 9), float32], %w: Tensor[(4, 8, 3, 3), float32]) {
      nn.relu(nn.conv2d(%x, %w, padding=[1, 1, 1, 1]))
    })");
  GraphExecutor executor(build_for_vulkan(mod));
  for (uint64_t seed : {5, 6, 7}) {
    std::vector<Value> args = {uniform({2, 8, 9, 9}, seed),
                               uniform({4, 8, 3, 3}, seed + 10)};
    Value got = executor.run(args);
    EXPECT_TRUE(testing::tensors_near(got.tensor(), Interpreter(mod).run_main(args).tensor(), 1e-5, 1e-5))
        << "seed " << seed;
  }
}

}  // namespace
}  // namespace weft
