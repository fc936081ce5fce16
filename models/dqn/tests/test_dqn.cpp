// dqn against relay.testing.dqn: parameters derived by hand from dqn.py, op
// counts, the parameter count, argument checks.
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

TEST(Dqn, ParametersInReferenceOrder) {
  // 84 -> (84-8)/4+1 = 20 -> (20-4)/2+1 = 9 -> 9-3+1 = 7: 64*7*7 = 3136 features.
  // Each bias follows its conv's weight: bias_add reads it after the conv.
  std::vector<TypedParam> expected = {
      {"data", {1, 4, 84, 84}, "float32"},      {"conv1_weight", {32, 4, 8, 8}, "float32"},
      {"conv1_bias", {32}, "float32"},          {"conv2_weight", {64, 32, 4, 4}, "float32"},
      {"conv2_bias", {64}, "float32"},          {"conv3_weight", {64, 64, 3, 3}, "float32"},
      {"conv3_bias", {64}, "float32"},          {"dense1_weight", {512, 3136}, "float32"},
      {"dense1_bias", {512}, "float32"},        {"dense2_weight", {18, 512}, "float32"},
      {"dense2_bias", {18}, "float32"}};
  IRModule mod = typed_model("dqn");
  EXPECT_EQ(typed_params(mod), expected);
  // The Nature DQN's 1.69M parameters.
  EXPECT_EQ(param_count(mod), 32 * 4 * 64 + 32 + 64 * 32 * 16 + 64 + 64 * 64 * 9 + 64 + 512 * 3136 + 512 +
                                  18 * 512 + 18);
  EXPECT_NEAR(param_count(mod) / 1e6, 1.69, 0.01);
}

TEST(Dqn, OpCounts) {
  std::map<std::string, int> expected = {
      {"nn.conv2d", 3}, {"nn.bias_add", 5}, {"nn.relu", 4}, {"nn.batch_flatten", 1}, {"nn.dense", 2}};
  EXPECT_EQ(testing::count_ops(typed_model("dqn")), expected);
}

TEST(Dqn, NhwcUsesHwioKernelsAndBiasesOnTheLastAxis) {
  auto params = typed_params(typed_model("dqn:layout=NHWC,image_shape=84x84x4,num_actions=4,batch_size=2"));
  EXPECT_EQ(params[0], (TypedParam{"data", {2, 84, 84, 4}, "float32"}));
  EXPECT_EQ(params[1], (TypedParam{"conv1_weight", {8, 8, 4, 32}, "float32"}));
  EXPECT_EQ(params[2], (TypedParam{"conv1_bias", {32}, "float32"}));
  EXPECT_EQ(params.back(), (TypedParam{"dense2_bias", {4}, "float32"}));
}

TEST(Dqn, BadArgumentsNameTheArgument) {
  EXPECT_THAT(build_error("dqn:layout=NCWH"), ::testing::HasSubstr("layout"));
  EXPECT_THAT(build_error("dqn:num_actions=0"), ::testing::HasSubstr("num_actions"));
  EXPECT_THAT(build_error("dqn:image_shape=4x84"), ::testing::HasSubstr("image_shape"));
  // Too small for the three convs: the conv's own shape check.
  EXPECT_THAT(build_error("dqn:image_shape=4x8x8"), ::testing::HasSubstr("nn.conv2d"));
}

}  // namespace
}  // namespace weft::model_testing
