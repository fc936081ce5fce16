// dcgan against relay.testing.dcgan: parameters derived by hand from
// dcgan.py, op counts, the parameter count, the 64x64-only check.
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

void add_bn(std::vector<TypedParam>& out, const std::string& name, int64_t channels) {
  for (const char* suffix : {"_gamma", "_beta", "_moving_mean", "_moving_var"}) {
    out.push_back({name + suffix, {channels}, "float32"});
  }
}

TEST(Dcgan, ParametersInReferenceOrder) {
  // ngf=4, random_len=10: dense to 4*4*32 = 512, reshape to (-1, 32, 4, 4);
  // transposed-conv weights are IOHW (in, out, 4, 4).
  std::vector<TypedParam> expected = {{"data", {1, 10}, "float32"}, {"dense_weight", {512, 10}, "float32"},
                                      {"g2_deconv_weight", {32, 16, 4, 4}, "float32"}};
  add_bn(expected, "g2_batch_norm", 16);
  expected.push_back({"g3_deconv_weight", {16, 8, 4, 4}, "float32"});
  add_bn(expected, "g3_batch_norm", 8);
  expected.push_back({"g4_deconv_weight", {8, 4, 4, 4}, "float32"});
  add_bn(expected, "g4_batch_norm", 4);
  expected.push_back({"g5_deconv_weight", {4, 3, 4, 4}, "float32"});
  IRModule mod = typed_model("dcgan:ngf=4,random_len=10");
  EXPECT_EQ(typed_params(mod), expected);
  // The generator's output: (batch, 3, 64, 64); padding 1 and output_padding
  // (8 + 2 - 4) % 2 = 0 make each deconv exactly double.
  EXPECT_EQ(type_to_text(mod.main()->ret_type), "Tensor[(1, 3, 64, 64), float32]");
}

TEST(Dcgan, DefaultParameterCount) {
  // dense (4*4*8*128 = 16384)x100; deconvs 1024x512, 512x256, 256x128, 128x3 of 4x4; three
  // batch norms of 512, 256, 128 channels with 4 values each.
  EXPECT_EQ(param_count(typed_model("dcgan")), 16384 * 100 + (1024 * 512 + 512 * 256 + 256 * 128 + 128 * 3) * 16 +
                                                   4 * (512 + 256 + 128));
}

TEST(Dcgan, OpCounts) {
  std::map<std::string, int> expected = {{"nn.dense", 1}, {"nn.relu", 4},          {"reshape", 1},
                                         {"nn.conv2d_transpose", 4}, {"nn.batch_norm", 3}, {"tanh", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("dcgan:ngf=4")), expected);
}

TEST(Dcgan, NhwcUsesHwoiKernels) {
  IRModule mod = typed_model("dcgan:ngf=4,layout=NHWC");
  auto params = typed_params(mod);
  EXPECT_EQ(params[2], (TypedParam{"g2_deconv_weight", {4, 4, 16, 32}, "float32"}));
  EXPECT_EQ(type_to_text(mod.main()->ret_type), "Tensor[(1, 64, 64, 3), float32]");
}

TEST(Dcgan, OnlySixtyFourBySixtyFourImages) {
  EXPECT_THAT(build_error("dcgan:oshape=3x32x32"), ::testing::HasSubstr("Only support 64x64 image"));
  EXPECT_THAT(build_error("dcgan:oshape=3x64x32"), ::testing::HasSubstr("Only support 64x64 image"));
  EXPECT_EQ(build_error("dcgan:oshape=1x64x64,ngf=2"), "");
  EXPECT_THAT(build_error("dcgan:layout=NCWH"), ::testing::HasSubstr("layout"));
}

}  // namespace
}  // namespace weft::model_testing
