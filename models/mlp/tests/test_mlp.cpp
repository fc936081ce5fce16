// mlp against relay.testing.mlp: parameters (derived by hand from mlp.py),
// op counts and argument checks.
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

TEST(Mlp, ParametersInReferenceOrderWithInferredShapes) {
  // data (1, 1, 28, 28) flattens to 784; dense weights are (units, in).
  std::vector<TypedParam> expected = {
      {"data", {1, 1, 28, 28}, "float32"}, {"fc1_weight", {128, 784}, "float32"},
      {"fc1_bias", {128}, "float32"},      {"fc2_weight", {64, 128}, "float32"},
      {"fc2_bias", {64}, "float32"},       {"fc3_weight", {10, 64}, "float32"},
      {"fc3_bias", {10}, "float32"}};
  EXPECT_EQ(typed_params(typed_model("mlp")), expected);
}

TEST(Mlp, ParameterCountIsTheSumOfItsDenseLayers) {
  EXPECT_EQ(param_count(typed_model("mlp")), 784 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10);
}

TEST(Mlp, OpCounts) {
  std::map<std::string, int> expected = {
      {"nn.batch_flatten", 1}, {"nn.dense", 3}, {"nn.bias_add", 3}, {"nn.relu", 2}, {"nn.softmax", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("mlp")), expected);
}

TEST(Mlp, ArgumentsChangeInputAndClassifier) {
  IRModule mod = typed_model("mlp:batch_size=4,num_classes=3,image_shape=2x5x5,dtype=float64");
  auto params = typed_params(mod);
  EXPECT_EQ(params.front(), (TypedParam{"data", {4, 2, 5, 5}, "float64"}));
  EXPECT_EQ(params[1], (TypedParam{"fc1_weight", {128, 50}, "float64"}));
  EXPECT_EQ(params.back(), (TypedParam{"fc3_bias", {3}, "float64"}));
}

TEST(Mlp, BadArgumentsNameTheArgument) {
  EXPECT_THAT(build_error("mlp:batch_size=0"), ::testing::HasSubstr("batch_size"));
  EXPECT_THAT(build_error("mlp:image_shape=1x0x28"), ::testing::HasSubstr("image_shape"));
  EXPECT_THAT(build_error("mlp:units=3"), ::testing::HasSubstr("no argument 'units'"));
  EXPECT_THAT(build_error("mlp-2"), ::testing::HasSubstr("not a variant of mlp"));
}

}  // namespace
}  // namespace weft::model_testing
