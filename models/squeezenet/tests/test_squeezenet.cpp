// squeezenet against relay.testing.squeezenet: parameters (derived by hand
// from squeezenet.py), op counts, argument checks and the published count.
#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

/// Fire module `name` reading `in` channels: squeeze (input), expand 1x1
/// (left) and expand 3x3 (right), each conv with its bias.
void add_fire(std::vector<TypedParam>& out, const std::string& name, int64_t in, int64_t squeeze, int64_t expand) {
  out.push_back({name + "_input_conv_weight", {squeeze, in, 1, 1}, "float32"});
  out.push_back({name + "_input_conv_bias", {squeeze}, "float32"});
  out.push_back({name + "_left_conv_weight", {expand, squeeze, 1, 1}, "float32"});
  out.push_back({name + "_left_conv_bias", {expand}, "float32"});
  out.push_back({name + "_right_conv_weight", {expand, squeeze, 3, 3}, "float32"});
  out.push_back({name + "_right_conv_bias", {expand}, "float32"});
}

/// Both versions share the fire sizes; only the first conv differs.
std::vector<TypedParam> expected_params(std::vector<int64_t> data, std::vector<int64_t> conv1, int64_t classes) {
  std::vector<TypedParam> out = {
      {"data", data, "float32"}, {"conv1_weight", conv1, "float32"}, {"conv1_bias", {conv1[0]}, "float32"}};
  add_fire(out, "fire1", conv1[0], 16, 64);
  add_fire(out, "fire2", 128, 16, 64);
  add_fire(out, "fire3", 128, 32, 128);
  add_fire(out, "fire4", 256, 32, 128);
  add_fire(out, "fire5", 256, 48, 192);
  add_fire(out, "fire6", 384, 48, 192);
  add_fire(out, "fire7", 384, 64, 256);
  add_fire(out, "fire8", 512, 64, 256);
  out.push_back({"conv_final_weight", {classes, 512, 1, 1}, "float32"});
  out.push_back({"conv_final_bias", {classes}, "float32"});
  return out;
}

TEST(Squeezenet, Version11ParametersInReferenceOrder) {
  // 3x32x32: conv1 (3x3, stride 2) gives 16, the pools 7, 3 and 1.
  EXPECT_EQ(typed_params(typed_model("squeezenet-1.1:image_shape=3x32x32,num_classes=10")),
            expected_params({1, 3, 32, 32}, {64, 3, 3, 3}, 10));
}

TEST(Squeezenet, Version10ParametersInReferenceOrder) {
  EXPECT_EQ(typed_params(typed_model("squeezenet:version=1.0,batch_size=2,image_shape=3x64x64,num_classes=10")),
            expected_params({2, 3, 64, 64}, {96, 3, 7, 7}, 10));
}

TEST(Squeezenet, OpCounts) {
  // 1 + 8 * 3 + 1 convs, each with bias_add and relu; 3 max pools in both versions.
  std::map<std::string, int> expected = {{"nn.conv2d", 26},           {"nn.bias_add", 26},     {"nn.relu", 26},
                                         {"nn.max_pool2d", 3},        {"concatenate", 8},      {"nn.dropout", 1},
                                         {"nn.global_avg_pool2d", 1}, {"nn.batch_flatten", 1}, {"nn.softmax", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("squeezenet-1.1:image_shape=3x32x32")), expected);
  EXPECT_EQ(testing::count_ops(typed_model("squeezenet-1.0:image_shape=3x64x64")), expected);
}

TEST(Squeezenet, OutputIsOneProbabilityRowPerImage) {
  IRModule mod = typed_model("squeezenet-1.1:batch_size=2,image_shape=3x32x32,num_classes=7");
  auto t = downcast<TensorTypeNode>(mod.main()->body->checked_type());
  ASSERT_TRUE(t);
  EXPECT_EQ(std::vector<int64_t>(t->shape.begin(), t->shape.end()), (std::vector<int64_t>{2, 7}));
}

TEST(Squeezenet, Version11MatchesThePublishedParameterCount) {
  // 1.24M: torchvision's squeezenet1_1 has 1,235,496, the same layers.
  EXPECT_EQ(param_count(typed_model("squeezenet-1.1")), 1235496);
  // 1.0: torchvision's squeezenet1_0 has 1,248,424.
  EXPECT_EQ(param_count(typed_model("squeezenet-1.0")), 1248424);
}

TEST(Squeezenet, BadArgumentsAreTheReferenceErrors) {
  // The reference asserts "Unsupported SqueezeNet version 1.2:1.0 or 1.1 expected".
  EXPECT_THAT(build_error("squeezenet:version=1.2"),
              ::testing::AllOf(::testing::HasSubstr("version' has an invalid value \"1.2\""),
                               ::testing::HasSubstr("expected 1.0 or 1.1")));
  EXPECT_THAT(build_error("squeezenet-2.0"), ::testing::HasSubstr("version' has an invalid value \"2.0\""));
  EXPECT_THAT(build_error("squeezenet:num_classes=0"), ::testing::HasSubstr("num_classes"));
}

TEST(Squeezenet, RunsOnTheInterpreter) {
  // Softmax rows: one per image, summing to 1.
  Value out = run_model("squeezenet-1.1:image_shape=3x32x32,num_classes=10");
  ASSERT_EQ(out.tensor().shape(), (std::vector<int64_t>{1, 10}));
  for (double sum : row_sums(out)) EXPECT_NEAR(sum, 1.0, 1e-5);
}

}  // namespace
}  // namespace weft::model_testing
