// `weft run` on the graph executor against `weft run --interpreter`, bit for
// bit (on `ref` the built program runs the same kernels), the build flags'
// overrides and messages, and `weft bench`'s report.
#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_test_util.h"
#include "weft/tensor_io.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class BuiltRunTest : public CliCommandTest {
 protected:
  void expect_same_files(const std::string& a, const std::string& b) {
    NamedTensors x = load_tensor_file(a), y = load_tensor_file(b);
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].first, y[i].first);
      EXPECT_TRUE(x[i].second.bitwise_equal(y[i].second)) << x[i].first;
    }
  }
};

TEST_F(BuiltRunTest, GivesTheInterpretersOutputsBitForBit) {
  const std::vector<std::string> runs = {
      data_file("add_relu.relay") + " --inputs " + data_file("add_relu_inputs.npz"),
      data_file("dense_softmax.relay") + " --inputs " + data_file("dense_inputs.npz") + " --params " +
          data_file("dense_params.npz"),
      data_file("nested_tuple.relay") + " --inputs " + data_file("nested_tuple_inputs.npz"),
      data_file("mixed_dtypes.relay") + " --seed 5",
      data_file("tvm_split_data.relay") + " --inputs " + data_file("tvm_split_data_inputs.npz"),
      data_file("dynamic_dense.relay") + " --inputs " + data_file("dynamic_dense_inputs_5.npz"),
      "lstm:iterations=3,num_hidden=8 --inputs " + data_file("lstm_inputs.npz") + " --params " +
          data_file("lstm_params.npz"),
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string built = scratch("built" + std::to_string(i) + ".npz");
    const std::string interpreted = scratch("interpreted" + std::to_string(i) + ".npz");
    CliResult r = weft("run " + runs[i] + " --target ref --output " + built);
    ASSERT_EQ(r.exit_code, 0) << runs[i] << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr(" for ref in ")) << runs[i];
    EXPECT_THAT(r.out, HasSubstr(" on ref in ")) << runs[i];
    r = weft("run " + runs[i] + " --interpreter --output " + interpreted);
    ASSERT_EQ(r.exit_code, 0) << runs[i] << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr(" on the interpreter in ")) << runs[i];
    expect_same_files(built, interpreted);
  }
}

TEST_F(BuiltRunTest, WithoutAConfigItRunsOnOnednnWhereItIsInstalled) {
  // configs/default.yaml lists onednn with missing_targets: skip.
  CliResult r = weft("run " + data_file("add_relu.relay") + " --inputs " + data_file("add_relu_inputs.npz") +
                     " --output " + scratch("o.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string target = target_available("onednn") ? "onednn" : "ref";
  EXPECT_THAT(r.out, HasSubstr(" for " + target + " in ")) << r.out;
  EXPECT_THAT(r.out, HasSubstr(" on " + target + " in ")) << r.out;
  expect_tensor_files_near(scratch("o.npz"), data_file("add_relu_expected.npz"));
  // A target asked for by name must be there, whatever the config says.
  r = weft("run " + data_file("add_relu.relay") + " --target no_such_target");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown target 'no_such_target'"));
}

TEST_F(BuiltRunTest, AMainTheExecutorCannotRunRunsOnTheInterpreterWithItsWeights) {
  // The build consumes the weights it binds; the interpreter, run instead, gets them again.
  const std::string program = scratch("if.relay");
  std::ofstream(program) << "#[version = \"0.0.5\"]\n"
                            "def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {\n"
                            "  if (greater(sum(%x), 0f)) { add(%x, %w) } else { subtract(%x, %w) }\n"
                            "}\n";
  auto f32 = [](std::vector<float> v) {
    return Tensor::from_bytes({static_cast<int64_t>(v.size())}, DataType::Float(32), std::as_bytes(std::span(v)));
  };
  save_tensor_file(scratch("w.npz"), {{"w", f32({10, 20})}});
  save_tensor_file(scratch("x.npz"), {{"x", f32({1, 2})}});
  save_tensor_file(scratch("expected.npz"), {{"output", f32({11, 22})}});  // sum(x) > 0: x + w
  CliResult r = weft("run " + program + " --params " + scratch("w.npz") + " --inputs " + scratch("x.npz") +
                     " --target ref --output " + scratch("o.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("running main on the interpreter"));
  expect_same_files(scratch("o.npz"), scratch("expected.npz"));
}

TEST_F(BuiltRunTest, AConfigThatSkipsAMissingTargetRunsOnTheOthers) {
  const std::string config = scratch("skip.yaml");
  std::ofstream(config) << "targets: [no_such_target, \"null\"]\nmissing_targets: skip\n"
                           "target_options: {no_such_target: {anything: 1}}\n";
  CliResult r = weft("run " + data_file("add_relu.relay") + " --inputs " + data_file("add_relu_inputs.npz") +
                     " --config " + config + " --output " + scratch("o.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" for null in ")) << r.out;
  expect_tensor_files_near(scratch("o.npz"), data_file("add_relu_expected.npz"));
}

TEST_F(BuiltRunTest, OptLevelAndTargetOverridesApply) {
  for (const std::string flags :
       {"-O 0", "-O 3 --target ref", "--fallback error", "--config default", "--config onednn --target ref"}) {
    CliResult r = weft("run " + data_file("add_relu.relay") + " --inputs " + data_file("add_relu_inputs.npz") + " " +
                       flags + " --output " + scratch("o.npz"));
    ASSERT_EQ(r.exit_code, 0) << flags << "\n" << r.err;
    expect_tensor_files_near(scratch("o.npz"), data_file("add_relu_expected.npz"));
  }
}

TEST_F(BuiltRunTest, BadBuildFlagsAreClearErrors) {
  const std::string program = "run " + data_file("add_relu.relay") + " ";
  CliResult r = weft(program + "--target nope");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--target: unknown target 'nope'"));
  r = weft(program + "--fallback maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--fallback: maybe not in {warn,error}"));
  r = weft(program + "-O 4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("-O: Value 4 not in range 0 to 3"));
  r = weft(program + "--config no-such-config");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no-such-config"));
}

TEST_F(BuiltRunTest, BenchJsonReportsTheBuildTheLatencyAndTheMemory) {
  CliResult r = weft("bench " + data_file("add_relu.relay") + " --inputs " + data_file("add_relu_inputs.npz") +
                     " --target ref --warmup 1 --repeat 5 --json --profile");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // no progress bar off a terminal
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GT(j.at("build_ms").get<double>(), 0);
  const auto& l = j.at("latency_ms");
  EXPECT_LE(l.at("min").get<double>(), l.at("median").get<double>());
  EXPECT_LE(l.at("median").get<double>(), l.at("p90").get<double>());
  EXPECT_GT(l.at("mean").get<double>(), 0);
  EXPECT_EQ(j.at("repeat"), 5);
  // One fused group, add and relu, on ref: its (2, 3) float32 result the only intermediate.
  EXPECT_EQ(j.at("targets"), nlohmann::json({{"ref", 2}}));
  EXPECT_EQ(j.at("intermediate_bytes"), 24);
  EXPECT_EQ(j.at("arena_bytes"), 64);  // the plan gives each block whole 64-byte lines
  EXPECT_EQ(j.at("param_bytes"), 0);
  EXPECT_EQ(j.at("fallback_ops"), nlohmann::json::array());
  EXPECT_EQ(j.at("macs"), 0);  // no convolution or matrix product
  ASSERT_EQ(j.at("profile").size(), 1u);
  EXPECT_EQ(j.at("profile")[0].at("ops"), nlohmann::json({"add", "nn.relu"}));
  EXPECT_EQ(j.at("profile")[0].at("share"), 1.0);
}

TEST_F(BuiltRunTest, BenchJsonCountsTheMultiplyAccumulates) {
  CliResult r = weft("bench " + data_file("dense_softmax.relay") + " --repeat 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // dense of (2, 4) by (3, 4): 2 x 3 outputs, each a sum of 4 products.
  EXPECT_EQ(nlohmann::json::parse(r.out).at("macs"), 24);
}

TEST_F(BuiltRunTest, BenchProfileCountsEachGroupsMultiplyAccumulatesInBlockedLayoutsToo) {
  CliResult r = weft("bench " + data_file("dense_softmax.relay") + " --target ref --repeat 1 --json --profile");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json profile = nlohmann::json::parse(r.out).at("profile");
  ASSERT_EQ(profile.size(), 2u);
  // Slowest first: which of the two that is depends on the machine's load.
  const bool dense_first = profile[0].at("ops") == nlohmann::json({"nn.dense", "add"});
  const nlohmann::json& dense = profile[dense_first ? 0 : 1];
  const nlohmann::json& softmax = profile[dense_first ? 1 : 0];
  EXPECT_EQ(dense.at("ops"), nlohmann::json({"nn.dense", "add"}));
  EXPECT_EQ(dense.at("macs"), 24);
  EXPECT_EQ(softmax.at("ops"), nlohmann::json({"nn.softmax"}));
  EXPECT_EQ(softmax.at("macs"), 0);
  // 32 channels as 2 blocks of 16: each of the 32 x 4 x 4 outputs reads 32 x 3 x 3 inputs.
  const std::string blocked = scratch("blocked.relay");
  std::ofstream(blocked) << "def @main(%x: Tensor[(1, 2, 4, 4, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), "
                            "float32]) {\n  nn.conv2d(%x, %w, padding=[1, 1], channels=32, kernel_size=[3, 3], "
                            "data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\")\n}\n";
  r = weft("bench " + blocked + " --target ref -O 0 --repeat 1 --json --profile");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("macs"), 32 * 4 * 4 * 32 * 9);
  ASSERT_EQ(j.at("profile").size(), 1u);
  EXPECT_EQ(j.at("profile")[0].at("macs"), 32 * 4 * 4 * 32 * 9);
  r = weft("bench " + blocked + " --target ref -O 0 --repeat 1 --profile");
  EXPECT_THAT(r.out, HasSubstr("GFLOP/s"));
}

TEST_F(BuiltRunTest, BenchTextListsTheKernelsWithProfile) {
  CliResult r = weft("bench " + data_file("dense_softmax.relay") + " --target ref --repeat 2 --profile");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("build: "));
  EXPECT_THAT(r.out, HasSubstr("latency (ms): min "));
  EXPECT_THAT(r.out, HasSubstr("targets:      ref "));
  EXPECT_THAT(r.out, HasSubstr("group  target"));
  EXPECT_THAT(r.out, HasSubstr("nn.softmax"));
  r = weft("bench " + data_file("add_relu.relay") + " --repeat 0");
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace weft::testing
