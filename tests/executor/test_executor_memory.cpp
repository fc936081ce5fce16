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

std::vector<float> floats(const Tensor& t) { return {t.data_as<float>(), t.data_as<float>() + t.numel()}; }

TEST(ExecutorMemory, WritesTheInputsOfAConcatenationStraightIntoItsSlicesWithoutALaunch) {
  // relu's and negative's 64 bytes each are the two halves of the
  // concatenation's 128 (channels at batch 1); relu's result is also an
  // output, so the block lives to the end and add gets bytes of its own.
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 2, 2, 4), float32]) {\n"
      "  %0 = nn.relu(%x);\n"
      "  %1 = concatenate((%0, negative(%x)), axis=1);\n"
      "  (add(%1, 1f), %0)\n"
      "}\n");
  GraphExecutor exec(build(mod, at_opt_level(0)));
  ASSERT_EQ(exec.compiled().groups.size(), 4u);
  EXPECT_EQ(exec.num_launches(), 3u);  // relu, negative, add
  EXPECT_EQ(exec.memory().arena_bytes, 256u);
  Tensor x = Tensor::empty({1, 2, 2, 4}, DataType::Float(32));
  for (int i = 0; i < 16; ++i) x.data_as<float>()[i] = static_cast<float>(i - 8);
  Value out = exec.run({x});
  std::vector<float> want;
  for (int i = 0; i < 16; ++i) want.push_back(std::max(i - 8, 0) + 1.0f);
  for (int i = 0; i < 16; ++i) want.push_back(-(i - 8) + 1.0f);
  ASSERT_EQ(out.fields()[0].tensor().shape(), (std::vector<int64_t>{1, 4, 2, 4}));
  EXPECT_EQ(floats(out.fields()[0].tensor()), want);
  std::vector<float> relu(want.begin(), want.begin() + 16);
  for (float& v : relu) v -= 1;
  EXPECT_EQ(floats(out.fields()[1].tensor()), relu);
}

TEST(ExecutorMemory, LaunchesAConcatenationWhoseSlicesCannotBeWrittenInPlace) {
  auto launches = [](const std::string& body, const std::string& x_type) {
    IRModule mod = parse_module("#[version = \"0.0.5\"]\ndef @main(%x: " + x_type + ") {\n  " + body + "\n}\n");
    GraphExecutor exec(build(mod, at_opt_level(0)));
    Tensor x = Tensor::empty(exec.compiled().main->params[0]->checked_type().as<TensorTypeNode>()->shape,
                             DataType::Float(32));
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = static_cast<float>(i);
    Value want = Interpreter(IRModule::from_function(exec.compiled().main)).run_main({x});
    EXPECT_TRUE(bit_identical(exec.run({x}), want)) << body;
    return exec.num_launches();
  };
  // main's own input is no launch's result.
  EXPECT_EQ(launches("concatenate((%x, nn.relu(%x)), axis=1)", "Tensor[(1, 2, 2, 4), float32]"), 2u);
  // Three floats: the second slice would start at byte 12, not 64-byte aligned.
  EXPECT_EQ(launches("concatenate((nn.relu(%x), negative(%x)), axis=1)", "Tensor[(1, 3), float32]"), 3u);
  // The same buffer twice cannot be two slices.
  EXPECT_EQ(launches("%0 = nn.relu(%x); concatenate((%0, %0), axis=1)", "Tensor[(1, 16), float32]"), 2u);
  // One result in two concatenations: the first takes it.
  EXPECT_EQ(launches("%0 = nn.relu(%x); (concatenate((%0, negative(%x)), axis=1), concatenate((%0, exp(%x)), axis=1))",
                     "Tensor[(1, 16), float32]"),
            4u);
  // Batch 2: each input is two runs of bytes in the result.
  EXPECT_EQ(launches("concatenate((nn.relu(%x), negative(%x)), axis=1)", "Tensor[(2, 16), float32]"), 3u);
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
