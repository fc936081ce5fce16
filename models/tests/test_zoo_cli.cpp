// The zoo through the CLI: `weft models`, `weft show MODEL --json` and
// `weft run MODEL` (workload parameters, --params, top-5 classes, errors).
#include <nlohmann/json.hpp>

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "weft/model_spec.h"
#include "weft/tensor_io.h"
#include "weft/workload.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ZooCliTest : public ::testing::Test {
 protected:
  CliResult weft(const std::string& args) { return run_cli(WEFT_TEST_CLI, args, dir_.path()); }
  std::string scratch(const std::string& name) const { return (dir_ / name).string(); }
  ScratchDir dir_;
};

const nlohmann::json* find_named(const nlohmann::json& list, const std::string& name) {
  for (const auto& item : list)
    if (item["name"] == name) return &item;
  return nullptr;
}

TEST_F(ZooCliTest, ModelsListsFamiliesArgumentsAndVariants) {
  CliResult r = weft("models --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json* resnet = find_named(j, "resnet");
  ASSERT_TRUE(resnet);
  EXPECT_EQ(resnet->at("plugin"), "resnet");
  const nlohmann::json* layers = find_named(resnet->at("arguments"), "num_layers");
  ASSERT_TRUE(layers);
  EXPECT_EQ(layers->at("default"), 18);
  EXPECT_EQ(find_named(resnet->at("arguments"), "image_shape")->at("default"), nlohmann::json::parse("[3, 224, 224]"));
  EXPECT_EQ(resnet->at("variants")[0]["name"], "resnet-{num_layers}");
  for (const char* family : {"mlp", "resnet_3d", "dqn", "dcgan"}) EXPECT_TRUE(find_named(j, family)) << family;
  EXPECT_EQ(resnet->at("initializer"), "xavier");

  r = weft("models");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("image_shape = 3x224x224"));
  EXPECT_THAT(r.out, HasSubstr("variant resnet-{num_layers}"));
}

TEST_F(ZooCliTest, SyntheticWorkloadUsesTheConstantInitializerAsTheReferenceDoes) {
  // relay.testing.synthetic.get_workload passes initializer=Constant(): every
  // weight element is 1/size, the bias and batch-norm shift 0, its scale 1.
  CliResult r = weft("show synthetic --params-out " + scratch("p.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [name, t] : load_tensor_file(scratch("p.npz"))) {
    const float expected = name.ends_with("weight") ? static_cast<float>(1.0 / static_cast<double>(t.numel()))
                           : name.ends_with("gamma") || name.ends_with("var") ? 1.0f
                                                                              : 0.0f;
    for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(t.data_as<float>()[i], expected) << name << "[" << i << "]";
  }
  r = weft("models --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(find_named(nlohmann::json::parse(r.out), "synthetic")->at("initializer"), "constant");
}

TEST_F(ZooCliTest, TableCountsParametersMacsAndOps) {
  CliResult r = weft("models --table dqn mlp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // dqn's MACs by hand: conv1 32*20*20 outputs of 4*8*8, conv2 64*9*9 of
  // 32*4*4, conv3 64*7*7 of 64*3*3, dense 512 of 3136 and 18 of 512:
  // 9,352,192 in all.
  EXPECT_THAT(r.out, HasSubstr("| `dqn` | 1x4x84x84 | 1693362 (1.69M) | 0.009352 | 15: nn.bias_add 5, nn.relu 4, "
                               "nn.conv2d 3, nn.dense 2, nn.batch_flatten 1 |"));
  // mlp: 784*128 + 128*64 + 64*10 = 109,184 MACs.
  EXPECT_THAT(r.out, HasSubstr("| `mlp` | 1x1x28x28 | 109386 (0.11M) | 0.0001092 |"));
}

TEST_F(ZooCliTest, ShowJsonSplitsDataFromParametersInOrder) {
  CliResult r = weft("show mlp:num_classes=3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"], nlohmann::json::parse(R"([{"name": "data", "shape": [1, 1, 28, 28], "dtype": "float32"}])"));
  std::vector<std::string> names;
  for (const auto& p : j["params"]) names.push_back(p["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "fc3_weight",
                                             "fc3_bias"}));
  EXPECT_EQ(j["params"][4]["shape"], nlohmann::json::parse("[3, 64]"));
  EXPECT_EQ(j["param_count"], 784 * 128 + 128 + 128 * 64 + 64 + 64 * 3 + 3);
  EXPECT_EQ(j["output"], "Tensor[(1, 3), float32]");
  EXPECT_EQ(j["op_counts"]["nn.dense"], 3);
}

TEST_F(ZooCliTest, RunBuildsTheWorkloadAndPrintsTopClasses) {
  CliResult r = weft("run resnet:num_layers=8,image_shape=3x28x28,num_classes=10 --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("top-5 classes:"));
  EXPECT_THAT(r.out, HasSubstr("  class "));
  // Only data is drawn at random; the weights come from the workload.
  EXPECT_THAT(r.err, HasSubstr("'data' not given"));
  EXPECT_THAT(r.err, Not(HasSubstr("conv0_weight")));
  NamedTensors out = load_tensor_file(scratch("out.npz"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].second.shape(), (std::vector<int64_t>{1, 10}));
}

TEST_F(ZooCliTest, RunResnet18TheMainJob) {
  CliResult r = weft("run resnet-18 --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("top-5 classes:"));
  NamedTensors out = load_tensor_file(scratch("out.npz"));
  ASSERT_EQ(out.size(), 1u);
  const Tensor& probs = out[0].second;
  ASSERT_EQ(probs.shape(), (std::vector<int64_t>{1, 1000}));
  double sum = 0;
  for (int64_t i = 0; i < probs.numel(); ++i) {
    ASSERT_TRUE(std::isfinite(probs.element_as_double(i))) << i;
    sum += probs.element_as_double(i);
  }
  EXPECT_NEAR(sum, 1.0, 1e-4);  // a softmax over the classes
}

TEST_F(ZooCliTest, RunWithParamsUsesThemInsteadOfInitializing) {
  // The seed-0 workload, saved, gives the same output as the default run.
  Workload w = create_workload(build_model(parse_model_spec("mlp")), "xavier", 0);
  save_tensor_file(scratch("params.npz"), w.params);
  CliResult a = weft("run mlp --output " + scratch("a.npz"));
  CliResult b = weft("run mlp --params " + scratch("params.npz") + " --output " + scratch("b.npz"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  NamedTensors xs = load_tensor_file(scratch("a.npz")), ys = load_tensor_file(scratch("b.npz"));
  const Tensor& x = xs[0].second;
  const Tensor& y = ys[0].second;
  ASSERT_EQ(x.numel(), y.numel());
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(x.element_as_double(i), y.element_as_double(i));
  // A different seed initializes different weights.
  CliResult c = weft("run mlp --seed 1 --output " + scratch("c.npz"));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  NamedTensors zs = load_tensor_file(scratch("c.npz"));
  EXPECT_NE(zs[0].second.element_as_double(0), x.element_as_double(0));
}

TEST_F(ZooCliTest, NotAClassifierPrintsNoClasses) {
  CliResult r = weft("run dqn:image_shape=4x36x36");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("top-5")));
}

TEST_F(ZooCliTest, BadModelNamesFailWithTheReason) {
  CliResult r = weft("show resnet-19");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("no experiments done on num_layers 19"));
  r = weft("run nosuchnet-3");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("neither a program file nor a model"));
  EXPECT_THAT(r.err, HasSubstr("resnet"));
  r = weft("show mlp:units=3");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("no argument 'units'"));
}

}  // namespace
}  // namespace weft::testing
