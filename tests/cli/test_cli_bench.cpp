// `weft run` on the graph executor against `weft run --interpreter`, bit for
// bit (on `ref` the built program runs the same kernels), the build flags'
// overrides and messages, and `weft bench`'s report.
#include <nlohmann/json.hpp>

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
    CliResult r = weft("run " + runs[i] + " --output " + built);
    ASSERT_EQ(r.exit_code, 0) << runs[i] << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr(" for ref in ")) << runs[i];
    EXPECT_THAT(r.out, HasSubstr(" on ref in ")) << runs[i];
    r = weft("run " + runs[i] + " --interpreter --output " + interpreted);
    ASSERT_EQ(r.exit_code, 0) << runs[i] << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr(" on the interpreter in ")) << runs[i];
    expect_same_files(built, interpreted);
  }
}

TEST_F(BuiltRunTest, OptLevelAndTargetOverridesApply) {
  for (const std::string flags : {"-O 0", "-O 3 --target ref", "--fallback error", "--config default"}) {
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
                     " --warmup 1 --repeat 5 --json --profile");
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

TEST_F(BuiltRunTest, BenchTextListsTheKernelsWithProfile) {
  CliResult r = weft("bench " + data_file("dense_softmax.relay") + " --repeat 2 --profile");
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
