// The graph executor over its static memory plan, on ref: an elementwise
// group works in place over an input that dies there, and whole models give
// the interpreter's bits (on the very program built) in an arena of at most
// half their intermediates.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "conformance/conformance_check.h"
#include "model_run_util.h"
#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/text.h"
#include "weft/workload.h"

namespace weft::testing {
namespace {

RunConfig at_opt_level(int level) {
  RunConfig config;
  config.opt_level = level;
  return config;
}

Tensor six_floats() {
  Tensor x = Tensor::empty({2, 3}, DataType::Float(32));
  const float in[] = {1, -2, 3, -4, 5, -6};
  std::copy(in, in + 6, x.data_as<float>());
  return x;
}

TEST(ExecutorMemory, RunsAnElementwiseGroupInPlaceOverAnInputThatDiesThere) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(2, 3), float32]) {\n"
      "  negative(nn.relu(%x))\n"
      "}\n");
  // At -O0 each op is a group of its own.
  GraphExecutor exec(build(mod, at_opt_level(0)));
  ASSERT_EQ(exec.compiled().groups.size(), 2u);
  EXPECT_EQ(exec.num_launches(), 2u);
  // Both results' 24 bytes in one 64-byte block: negative overwrites relu's result, which dies there.
  EXPECT_EQ(exec.memory().intermediate_bytes, 48u);
  EXPECT_EQ(exec.memory().arena_bytes, 64u);
  Tensor out = exec.run({six_floats()}).tensor();
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 6),
            (std::vector<float>{-1, 0, -3, 0, -5, 0}));
}

TEST(ExecutorMemory, RunsAGroupOfOnlyReshapesAsAViewOfItsInputWithoutALaunch) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(2, 3), float32]) {\n"
      "  negative(reshape(nn.relu(%x), newshape=[3, 2]))\n"
      "}\n");
  GraphExecutor exec(build(mod, at_opt_level(0)));
  ASSERT_EQ(exec.compiled().groups.size(), 3u);
  EXPECT_EQ(exec.num_launches(), 2u);  // relu and negative; the reshape is relu's bytes
  EXPECT_EQ(exec.memory().intermediate_bytes, 48u);
  // negative reads relu's bytes through the view, which die there: it overwrites them.
  EXPECT_EQ(exec.memory().arena_bytes, 64u);
  Tensor out = exec.run({six_floats()}).tensor();
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 6),
            (std::vector<float>{-1, 0, -3, 0, -5, 0}));
}

TEST(ExecutorMemory, AReshapeOfMainsInputIsThatInputsBytes) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(2, 3), float32]) {\n"
      "  reshape(%x, newshape=[6])\n"
      "}\n");
  GraphExecutor exec(build(mod, at_opt_level(0)));
  EXPECT_EQ(exec.num_launches(), 0u);
  EXPECT_EQ(exec.memory().arena_bytes, 0u);
  Tensor out = exec.run({six_floats()}).tensor();
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{6}));
  EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 6),
            (std::vector<float>{1, -2, 3, -4, 5, -6}));
}

struct ModelCase {
  std::string spec;
  int opt_level;
};

class ExecutorMemoryOnModels : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ExecutorMemoryOnModels, GivesTheInterpretersBitsInAtMostHalfTheIntermediateBytes) {
  Workload w = create_workload(build_model(parse_model_spec(GetParam().spec)), "xavier");
  IRModule mod = bind_params(w.mod, std::map<std::string, Tensor>(w.params.begin(), w.params.end()));
  auto compiled = build(mod, at_opt_level(GetParam().opt_level));
  GraphExecutor exec(compiled);
  std::vector<Value> args = model_testing::data_args(w, model_testing::model_args(w));
  Value want = Interpreter(IRModule::from_function(compiled->main)).run_main(args);
  EXPECT_TRUE(bit_identical(exec.run(args), want));
  const MemoryStats& m = exec.memory();
  std::cout << GetParam().spec << " -O" << GetParam().opt_level << ": arena " << m.arena_bytes << " bytes of "
            << m.intermediate_bytes << " intermediate, " << m.param_bytes << " parameter bytes\n";
  EXPECT_LE(m.arena_bytes, m.intermediate_bytes / 2);
}

// -O0: every op a group, so most elementwise groups run in place; -O3: the fused program.
INSTANTIATE_TEST_SUITE_P(Resnet18, ExecutorMemoryOnModels,
                         ::testing::Values(ModelCase{"resnet-18:image_shape=3x32x32,num_classes=10", 0},
                                           ModelCase{"resnet-18:image_shape=3x32x32,num_classes=10", 3}),
                         [](const auto& info) { return "O" + std::to_string(info.param.opt_level); });

}  // namespace
}  // namespace weft::testing
