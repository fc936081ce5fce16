// densenet against relay.testing.densenet: parameters (derived by hand from
// densenet.py), op counts, argument checks and the parameter count.
#include <algorithm>
#include <cmath>

#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

void add_bn(std::vector<TypedParam>& out, const std::string& name, int64_t channels) {
  for (const char* p : {"_gamma", "_beta", "_moving_mean", "_moving_var"})
    out.push_back({name + p, {channels}, "float32"});
}

/// densenet-121 (64 initial features, growth 32, blocks 6/12/24/16) on
/// batch x 3x224x224. A block's first layer reads the block input, the others
/// the previous layer's 32 channels; the block's concatenation has
/// layers * 32 channels; transitions output half the reference's running
/// count: (64 + 192) / 2 = 128, (128 + 384) / 2 = 256, (256 + 768) / 2 = 512.
std::vector<TypedParam> densenet121(int64_t batch, int64_t classes) {
  std::vector<TypedParam> out = {{"data", {batch, 3, 224, 224}, "float32"}, {"conv1_weight", {64, 3, 7, 7}, "float32"}};
  add_bn(out, "batch1", 64);
  const int layers[] = {6, 12, 24, 16};
  const int64_t block_inputs[] = {64, 128, 256, 512};
  for (int b = 0; b < 4; ++b) {
    for (int l = 0; l < layers[b]; ++l) {
      const std::string id = std::to_string(b) + "_" + std::to_string(l);
      const int64_t in = l == 0 ? block_inputs[b] : 32;
      add_bn(out, "batch_1_" + id, in);
      out.push_back({"conv2d_1_" + id + "_weight", {128, in, 1, 1}, "float32"});
      add_bn(out, "batch_2_" + id, 128);
      out.push_back({"conv2d_2_" + id + "_weight", {32, 128, 3, 3}, "float32"});
    }
    if (b < 3) {
      add_bn(out, "batch_t_" + std::to_string(b), layers[b] * 32);
      out.push_back(
          {"conv_t_" + std::to_string(b) + "_weight", {block_inputs[b + 1], layers[b] * 32, 1, 1}, "float32"});
    }
  }
  add_bn(out, "batch2", 16 * 32);
  out.push_back({"dense_weight", {classes, 512}, "float32"});
  out.push_back({"dense_bias", {classes}, "float32"});
  return out;
}

TEST(Densenet, ParametersInReferenceOrderWithInferredShapes) {
  EXPECT_EQ(typed_params(typed_model("densenet:batch_size=1,classes=10")), densenet121(1, 10));
}

TEST(Densenet, DefaultBatchSizeIsFourAsInTheReference) {
  auto params = typed_params(typed_model("densenet-121"));
  EXPECT_EQ(params.front(), (TypedParam{"data", {4, 3, 224, 224}, "float32"}));
  EXPECT_EQ(params.back(), (TypedParam{"dense_bias", {1000}, "float32"}));
}

TEST(Densenet, Densenet169KeepsTheReferences69InitialFeatures) {
  auto params = typed_params(typed_model("densenet-169:batch_size=1"));
  EXPECT_EQ(params[1], (TypedParam{"conv1_weight", {69, 3, 7, 7}, "float32"}));
  // (69 + 6 * 32) / 2 = 130 channels out of the first transition.
  auto t0 = std::find_if(params.begin(), params.end(), [](const TypedParam& p) { return p.name == "conv_t_0_weight"; });
  ASSERT_NE(t0, params.end());
  EXPECT_EQ(t0->shape, (std::vector<int64_t>{130, 192, 1, 1}));
}

TEST(Densenet, OpCounts) {
  // 58 dense layers of two bn/relu/conv each, 3 transitions of one, the stem
  // and the final bn/relu.
  std::map<std::string, int> expected = {{"nn.conv2d", 120},      {"nn.batch_norm", 121}, {"nn.relu", 121},
                                         {"nn.max_pool2d", 1},    {"concatenate", 4},     {"nn.avg_pool2d", 4},
                                         {"nn.batch_flatten", 1}, {"nn.dense", 1},        {"nn.bias_add", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("densenet-121:batch_size=1")), expected);
  auto convs = [](const std::string& spec) { return testing::count_ops(typed_model(spec))["nn.conv2d"]; };
  EXPECT_EQ(convs("densenet-161:batch_size=1"), 1 + 2 * (6 + 12 + 36 + 24) + 3);
  EXPECT_EQ(convs("densenet-201:batch_size=1"), 1 + 2 * (6 + 12 + 48 + 32) + 3);
}

/// Elements of a densenet as the reference builds it (batch norms count their
/// four vectors), from the spec: the published counts (densenet-121: 8.0M,
/// torchvision 7,978,856) are for Gluon's network, whose dense layers read the
/// concatenation of all earlier outputs; the reference chains them instead,
/// so its networks are smaller.
int64_t reference_param_count(int64_t init, int64_t growth, std::vector<int64_t> blocks) {
  int64_t total = init * 3 * 7 * 7 + 4 * init, channels = init, running = init;
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (int64_t l = 0; l < blocks[b]; ++l) {
      const int64_t in = l == 0 ? channels : growth;
      total += 4 * in + 4 * growth * in + 4 * 4 * growth + growth * 4 * growth * 9;
    }
    channels = blocks[b] * growth;
    running += blocks[b] * growth;
    if (b + 1 < blocks.size()) {
      total += 4 * channels + running / 2 * channels;
      channels = running /= 2;
    }
  }
  return total + 4 * channels + 1000 * channels + 1000;
}

TEST(Densenet, ParameterCountsOfTheReferenceNetworks) {
  EXPECT_EQ(reference_param_count(64, 32, {6, 12, 24, 16}), 3568808);
  EXPECT_EQ(param_count(typed_model("densenet-121:batch_size=1")), 3568808);
  EXPECT_EQ(param_count(typed_model("densenet-161:batch_size=1")), reference_param_count(96, 48, {6, 12, 36, 24}));
  EXPECT_EQ(param_count(typed_model("densenet-169:batch_size=1")), reference_param_count(69, 32, {6, 12, 32, 32}));
  EXPECT_EQ(param_count(typed_model("densenet-201:batch_size=1")), reference_param_count(64, 32, {6, 12, 48, 32}));
}

TEST(Densenet, BadArgumentsNameTheArgument) {
  // The reference fails on the missing key of its spec table (KeyError: 120).
  EXPECT_THAT(build_error("densenet:densenet_size=120"),
              ::testing::AllOf(::testing::HasSubstr("densenet_size' has an invalid value 120"),
                               ::testing::HasSubstr("one of 121, 161, 169, 201")));
  EXPECT_THAT(build_error("densenet-100"), ::testing::HasSubstr("densenet_size' has an invalid value 100"));
  EXPECT_THAT(build_error("densenet:classes=0"), ::testing::HasSubstr("classes"));
  // The final 7x7 average pool needs at least 7x7 features: 224 / 32.
  EXPECT_THAT(build_error("densenet:image_shape=3x64x64"), ::testing::HasSubstr("nn.avg_pool2d"));
}

TEST(Densenet, RunsOnTheInterpreter) {
  // The smallest input the final 7x7 pool allows: 224x224. The reference ends
  // in the dense layer (no softmax): check the logits are finite.
  Value out = run_model("densenet-121:batch_size=1");
  ASSERT_EQ(out.tensor().shape(), (std::vector<int64_t>{1, 1000}));
  for (double v : values_of(out)) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace weft::model_testing
