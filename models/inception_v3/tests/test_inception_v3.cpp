// inception_v3 against relay.testing.inception_v3: parameters (derived by hand
// from inception_v3.py), op counts, argument checks and the published count.
#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

class ExpectedParams {
 public:
  /// conv `name` with kernel (kh, kw) from `in` to `out` channels: its weight
  /// (`<name>_conv1_weight`) and its batch norm's four vectors (`<name>_bn_*`).
  ExpectedParams& conv(const std::string& name, int64_t out, int64_t in, int64_t kh, int64_t kw) {
    list.push_back({name + "_conv1_weight", {out, in, kh, kw}, "float32"});
    for (const char* p : {"_gamma", "_beta", "_moving_mean", "_moving_var"})
      list.push_back({name + "_bn" + p, {out}, "float32"});
    return *this;
  }
  /// 7A reading `in` channels (output 64 + 64 + 96 + proj).
  ExpectedParams& block_7a(const std::string& n, int64_t in, int64_t proj) {
    return conv(n + "_conv", 64, in, 1, 1)
        .conv(n + "_tower_conv", 48, in, 1, 1)
        .conv(n + "_tower_conv_1", 64, 48, 5, 5)
        .conv(n + "_tower_1_conv", 64, in, 1, 1)
        .conv(n + "_tower_1_conv_1", 96, 64, 3, 3)
        .conv(n + "_tower_1_conv_2", 96, 96, 3, 3)
        .conv(n + "_tower_2_conv", proj, in, 1, 1);
  }
  /// 7C reading 768 channels with factorized towers of width `w`.
  ExpectedParams& block_7c(const std::string& n, int64_t w) {
    return conv(n + "_conv", 192, 768, 1, 1)
        .conv(n + "_tower_conv", w, 768, 1, 1)
        .conv(n + "_tower_conv_1", w, w, 1, 7)
        .conv(n + "_tower_conv_2", 192, w, 7, 1)
        .conv(n + "_tower_1_conv", w, 768, 1, 1)
        .conv(n + "_tower_1_conv_1", w, w, 7, 1)
        .conv(n + "_tower_1_conv_2", w, w, 1, 7)
        .conv(n + "_tower_1_conv_3", w, w, 7, 1)
        .conv(n + "_tower_1_conv_4", 192, w, 1, 7)
        .conv(n + "_tower_2_conv", 192, 768, 1, 1);
  }
  /// 7E reading `in` channels (output 320 + 4 * 384 + 192 = 2048).
  ExpectedParams& block_7e(const std::string& n, int64_t in) {
    return conv(n + "_conv", 320, in, 1, 1)
        .conv(n + "_tower_conv", 384, in, 1, 1)
        .conv(n + "_tower_mixed_conv", 384, 384, 1, 3)
        .conv(n + "_tower_mixed_conv_1", 384, 384, 3, 1)
        .conv(n + "_tower_1_conv", 448, in, 1, 1)
        .conv(n + "_tower_1_conv_1", 384, 448, 3, 3)
        .conv(n + "_tower_1_mixed_conv", 384, 384, 1, 3)
        .conv(n + "_tower_1_mixed_conv_1", 384, 384, 3, 1)
        .conv(n + "_tower_2_conv", 192, in, 1, 1);
  }
  std::vector<TypedParam> list;
};

std::vector<TypedParam> inception_v3_params(int64_t classes) {
  ExpectedParams e;
  e.list.push_back({"data", {1, 3, 299, 299}, "float32"});
  e.conv("conv", 32, 3, 3, 3).conv("conv_1", 32, 32, 3, 3).conv("conv_2", 64, 32, 3, 3);
  e.conv("conv_3", 80, 64, 1, 1).conv("conv_4", 192, 80, 3, 3);
  e.block_7a("mixed", 192, 32).block_7a("mixed_1", 256, 64).block_7a("mixed_2", 288, 64);
  // 7B on 288 channels: out 384 + 96 + 288 (the pool) = 768.
  e.conv("mixed_3_conv", 384, 288, 3, 3)
      .conv("mixed_3_tower_conv", 64, 288, 1, 1)
      .conv("mixed_3_tower_conv_1", 96, 64, 3, 3)
      .conv("mixed_3_tower_conv_2", 96, 96, 3, 3);
  e.block_7c("mixed_4", 128).block_7c("mixed_5", 160).block_7c("mixed_6", 160).block_7c("mixed_7", 192);
  // 7D on 768: out 320 + 192 + 768 = 1280.
  e.conv("mixed_8_tower_conv", 192, 768, 1, 1)
      .conv("mixed_8_tower_conv_1", 320, 192, 3, 3)
      .conv("mixed_8_tower_1_conv", 192, 768, 1, 1)
      .conv("mixed_8_tower_1_conv_1", 192, 192, 1, 7)
      .conv("mixed_8_tower_1_conv_2", 192, 192, 7, 1)
      .conv("mixed_8_tower_1_conv_3", 192, 192, 3, 3);
  e.block_7e("mixed_9", 1280).block_7e("mixed_10", 2048);
  e.list.push_back({"fc1_weight", {classes, 2048}, "float32"});
  e.list.push_back({"fc2_bias", {classes}, "float32"});
  return e.list;
}

TEST(InceptionV3, ParametersInReferenceOrderWithInferredShapes) {
  EXPECT_EQ(typed_params(typed_model("inception_v3:num_classes=10")), inception_v3_params(10));
}

TEST(InceptionV3, OpCounts) {
  // 5 stem convs, 7 per 7A (x3), 4 in 7B, 10 per 7C (x4), 6 in 7D, 9 per 7E (x2).
  // Max pools: 2 in the stem, 7B, 7D and mixed_10's; average pools: 7A (x3),
  // 7C (x4), mixed_9's and the final 8x8.
  std::map<std::string, int> expected = {
      {"nn.conv2d", 94},   {"nn.batch_norm", 94},   {"nn.relu", 94}, {"nn.max_pool2d", 5}, {"nn.avg_pool2d", 9},
      {"concatenate", 11}, {"nn.batch_flatten", 1}, {"nn.dense", 1}, {"nn.bias_add", 1},   {"nn.softmax", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("inception_v3")), expected);
}

TEST(InceptionV3, MatchesThePublishedParameterCount) {
  // 23.9M: Keras' InceptionV3 (the same network, no auxiliary head) has
  // 23,851,784 with its batch norms' beta, moving mean and variance (scale
  // off). The reference's batch norms still take gamma, one per channel of
  // each of the 94 convs: 17,216 more.
  EXPECT_EQ(param_count(typed_model("inception_v3")), 23851784 + 17216);
}

TEST(InceptionV3, OutputForABatch) {
  IRModule mod = typed_model("inception_v3:batch_size=2,num_classes=5");
  auto t = downcast<TensorTypeNode>(mod.main()->body->checked_type());
  ASSERT_TRUE(t);
  EXPECT_EQ(std::vector<int64_t>(t->shape.begin(), t->shape.end()), (std::vector<int64_t>{2, 5}));
}

TEST(InceptionV3, BadArgumentsNameTheArgument) {
  EXPECT_THAT(build_error("inception_v3:num_classes=0"), ::testing::HasSubstr("num_classes"));
  EXPECT_THAT(build_error("inception_v3:image_shape=3x299"), ::testing::HasSubstr("image_shape"));
  // The final 8x8 pool needs the 8x8 features of a 299x299 input.
  EXPECT_THAT(build_error("inception_v3:image_shape=3x224x224"), ::testing::HasSubstr("nn.avg_pool2d"));
}

TEST(InceptionV3, RunsOnTheInterpreter) {
  // 299x299 is the smallest input the final 8x8 pool allows.
  Value out = run_model("inception_v3");
  ASSERT_EQ(out.tensor().shape(), (std::vector<int64_t>{1, 1000}));
  for (double sum : row_sums(out)) EXPECT_NEAR(sum, 1.0, 1e-5);
}

}  // namespace
}  // namespace weft::model_testing
