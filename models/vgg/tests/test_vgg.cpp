// vgg against relay.testing.vgg: parameters (derived by hand from vgg.py), op
// counts, argument checks and the published parameter count.
#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

// vgg-11 on 3x32x32: five stages of 1, 1, 2, 2, 2 convs; five 2x2 pools take
// 32 down to 1, so fc6 reads 512 features.
std::vector<TypedParam> vgg11_small(bool batch_norm) {
  std::vector<TypedParam> out = {{"data", {1, 3, 32, 32}, "float32"}};
  struct Conv {
    std::string id;
    int64_t out, in;
  };
  const std::vector<Conv> convs = {{"1_1", 64, 3},    {"2_1", 128, 64},  {"3_1", 256, 128}, {"3_2", 256, 256},
                                   {"4_1", 512, 256}, {"4_2", 512, 512}, {"5_1", 512, 512}, {"5_2", 512, 512}};
  for (const Conv& c : convs) {
    out.push_back({"conv" + c.id + "_weight", {c.out, c.in, 3, 3}, "float32"});
    out.push_back({"conv" + c.id + "_bias", {c.out}, "float32"});
    if (batch_norm) {
      for (const char* p : {"_gamma", "_beta", "_moving_mean", "_moving_var"})
        out.push_back({"bn" + c.id + p, {c.out}, "float32"});
    }
  }
  const std::vector<TypedParam> fc = {{"fc6_weight", {4096, 512}, "float32"},  {"fc6_bias", {4096}, "float32"},
                                      {"fc7_weight", {4096, 4096}, "float32"}, {"fc7_bias", {4096}, "float32"},
                                      {"fc8_weight", {10, 4096}, "float32"},   {"fc8_bias", {10}, "float32"}};
  out.insert(out.end(), fc.begin(), fc.end());
  return out;
}

TEST(Vgg, ParametersInReferenceOrderWithInferredShapes) {
  EXPECT_EQ(typed_params(typed_model("vgg:image_shape=3x32x32,num_classes=10")), vgg11_small(false));
}

TEST(Vgg, BatchNormAddsFourParametersAfterEachConvBias) {
  EXPECT_EQ(typed_params(typed_model("vgg-11-bn:image_shape=3x32x32,num_classes=10")), vgg11_small(true));
}

TEST(Vgg, OpCounts) {
  // vgg-11: 8 convs, each with bias_add and relu; fc6..fc8 add three bias_adds
  // and fc6/fc7 two relus and two dropouts.
  std::map<std::string, int> expected = {{"nn.conv2d", 8},     {"nn.bias_add", 11},     {"nn.relu", 10},
                                         {"nn.max_pool2d", 5}, {"nn.batch_flatten", 1}, {"nn.dense", 3},
                                         {"nn.dropout", 2},    {"nn.softmax", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("vgg-11:image_shape=3x32x32")), expected);
  expected["nn.conv2d"] = 16;
  expected["nn.bias_add"] = 19;
  expected["nn.relu"] = 18;
  expected["nn.batch_norm"] = 16;
  EXPECT_EQ(testing::count_ops(typed_model("vgg-19-bn:image_shape=3x32x32")), expected);
}

TEST(Vgg, DepthsOfTheNamedVariants) {
  auto convs = [](const std::string& spec) { return testing::count_ops(typed_model(spec))["nn.conv2d"]; };
  EXPECT_EQ(convs("vgg-13:image_shape=3x32x32"), 10);
  EXPECT_EQ(convs("vgg-16:image_shape=3x32x32"), 13);
  EXPECT_EQ(convs("vgg:num_layers=16,batch_norm=true,image_shape=3x32x32"), 13);
}

TEST(Vgg, Vgg16MatchesThePublishedParameterCount) {
  // 138.4M (Simonyan and Zisserman; torchvision's vgg16: 138,357,544), the
  // same layers as the reference at 3x224x224 and 1000 classes.
  EXPECT_EQ(param_count(typed_model("vgg-16")), 138357544);
  // Batch norm adds gamma, beta, moving_mean and moving_var per conv channel:
  // 4 * (2*64 + 2*128 + 3*256 + 3*512 + 3*512).
  EXPECT_EQ(param_count(typed_model("vgg-16-bn")), 138357544 + 4 * 4224);
}

TEST(Vgg, BadArgumentsAreTheReferenceErrors) {
  // The reference: "Invalid num_layers 12. Choices are 11,13,16,19."
  EXPECT_THAT(build_error("vgg:num_layers=12"),
              ::testing::AllOf(::testing::HasSubstr("num_layers' has an invalid value 12"),
                               ::testing::HasSubstr("one of 11, 13, 16, 19")));
  EXPECT_THAT(build_error("vgg-12"), ::testing::HasSubstr("num_layers' has an invalid value 12"));
  EXPECT_THAT(build_error("vgg:batch_size=0"), ::testing::HasSubstr("batch_size"));
  EXPECT_THAT(build_error("vgg:image_shape=3x224"), ::testing::HasSubstr("image_shape"));
  // Five 2x2 pools need at least 32 pixels.
  EXPECT_THAT(build_error("vgg:image_shape=3x16x16"), ::testing::HasSubstr("nn.max_pool2d"));
}

TEST(Vgg, RunsOnTheInterpreter) {
  // Softmax rows: one per image, summing to 1.
  Value out = run_model("vgg-11-bn:image_shape=3x32x32,num_classes=10");
  ASSERT_EQ(out.tensor().shape(), (std::vector<int64_t>{1, 10}));
  for (double sum : row_sums(out)) EXPECT_NEAR(sum, 1.0, 1e-5);
}

}  // namespace
}  // namespace weft::model_testing
