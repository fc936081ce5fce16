// mobilenet against relay.testing.mobilenet: parameters (derived by hand from
// mobilenet.py), op counts, layouts, argument checks and the published count.
#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

void add_bn(std::vector<TypedParam>& out, const std::string& name, int64_t channels) {
  for (const char* p : {"_gamma", "_beta", "_moving_mean", "_moving_var"})
    out.push_back({name + p, {channels}, "float32"});
}

struct Block {
  int64_t depthwise, pointwise;
};
// alpha = 0.25: 32 -> 8, 64 -> 16, ..., 1024 -> 256.
const std::vector<Block> kQuarterBlocks = {{8, 16},    {16, 32},   {32, 32},   {32, 64},   {64, 64},
                                           {64, 128},  {128, 128}, {128, 128}, {128, 128}, {128, 128},
                                           {128, 128}, {128, 256}, {256, 256}};

/// mobilenet with alpha 0.25 on a 32x32 image and 10 classes. NHWC takes HWIO
/// kernels, HWOI depthwise kernels, and the first block's batch norm stays on
/// axis 1 (H, 16 after the stride-2 conv) as in the reference.
std::vector<TypedParam> quarter_mobilenet(const std::vector<Block>& blocks, bool nhwc) {
  std::vector<TypedParam> out = {
      {"data", nhwc ? std::vector<int64_t>{1, 32, 32, 3} : std::vector<int64_t>{1, 3, 32, 32}, "float32"},
      {"conv_block_1_conv_weight", nhwc ? std::vector<int64_t>{3, 3, 3, 8} : std::vector<int64_t>{8, 3, 3, 3},
       "float32"}};
  add_bn(out, "conv_block_1_bn", nhwc ? 16 : 8);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const std::string name = "separable_conv_block_" + std::to_string(i + 1);
    const auto [dw, pw] = blocks[i];
    out.push_back(
        {name + "_weight", nhwc ? std::vector<int64_t>{3, 3, dw, 1} : std::vector<int64_t>{dw, 1, 3, 3}, "float32"});
    add_bn(out, name + "_bn1", dw);
    out.push_back({name + "_conv2_weight",
                   nhwc ? std::vector<int64_t>{1, 1, dw, pw} : std::vector<int64_t>{pw, dw, 1, 1}, "float32"});
    add_bn(out, name + "_bn2", pw);
  }
  out.push_back({"fc_weight", {10, blocks.back().pointwise}, "float32"});
  out.push_back({"fc_bias", {10}, "float32"});
  return out;
}

TEST(Mobilenet, ParametersInReferenceOrderWithInferredShapes) {
  EXPECT_EQ(typed_params(typed_model("mobilenet:alpha=0.25,image_shape=3x32x32,num_classes=10")),
            quarter_mobilenet(kQuarterBlocks, false));
}

TEST(Mobilenet, NhwcUsesTheReferencesKernelLayouts) {
  EXPECT_EQ(typed_params(typed_model("mobilenet:alpha=0.25,layout=NHWC,image_shape=32x32x3,num_classes=10")),
            quarter_mobilenet(kQuarterBlocks, true));
}

TEST(Mobilenet, ShallowHasEightSeparableBlocks) {
  // Blocks 7 and 8 both downsample: 512 -> 1024 and 1024 -> 1024.
  std::vector<Block> shallow(kQuarterBlocks.begin(), kQuarterBlocks.begin() + 6);
  shallow.push_back({128, 256});
  shallow.push_back({256, 256});
  EXPECT_EQ(typed_params(typed_model("mobilenet:alpha=0.25,is_shallow=true,image_shape=3x32x32,num_classes=10")),
            quarter_mobilenet(shallow, false));
}

TEST(Mobilenet, OpCounts) {
  std::map<std::string, int> expected = {{"nn.conv2d", 27},           {"nn.batch_norm", 27},   {"nn.relu", 27},
                                         {"nn.global_avg_pool2d", 1}, {"nn.batch_flatten", 1}, {"nn.dense", 1},
                                         {"nn.bias_add", 1},          {"nn.softmax", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("mobilenet")), expected);
  expected["nn.conv2d"] = expected["nn.batch_norm"] = expected["nn.relu"] = 17;
  EXPECT_EQ(testing::count_ops(typed_model("mobilenet:is_shallow=true,layout=NHWC,image_shape=224x224x3")), expected);
}

TEST(Mobilenet, DepthwiseConvsAreGroupedPerChannel) {
  IRModule mod = typed_model("mobilenet:alpha=0.5,image_shape=3x32x32");
  // The output keeps one row of num_classes probabilities.
  auto t = downcast<TensorTypeNode>(mod.main()->body->checked_type());
  ASSERT_TRUE(t);
  EXPECT_EQ(std::vector<int64_t>(t->shape.begin(), t->shape.end()), (std::vector<int64_t>{1, 1000}));
  auto params = typed_params(mod);
  EXPECT_EQ(params[6], (TypedParam{"separable_conv_block_1_weight", {16, 1, 3, 3}, "float32"}));
}

TEST(Mobilenet, AlphaOneMatchesThePublishedParameterCount) {
  // 4.2M (Howard et al.; Keras' MobileNet: 4,253,864 with the batch norms'
  // moving mean and variance, which the reference also holds as parameters).
  EXPECT_EQ(param_count(typed_model("mobilenet")), 4253864);
}

TEST(Mobilenet, BadArgumentsNameTheArgument) {
  // The reference asserts "Unknown data layout NCDHW" in conv_kernel_layout.
  EXPECT_THAT(build_error("mobilenet:layout=NCDHW"),
              ::testing::AllOf(::testing::HasSubstr("layout' has an invalid value \"NCDHW\""),
                               ::testing::HasSubstr("expected NCHW or NHWC")));
  EXPECT_THAT(build_error("mobilenet:alpha=0"), ::testing::HasSubstr("alpha' has an invalid value"));
  EXPECT_THAT(build_error("mobilenet:image_shape=3x224"), ::testing::HasSubstr("image_shape"));
  EXPECT_THAT(build_error("mobilenet-2"), ::testing::HasSubstr("not a variant of mobilenet"));
}

TEST(Mobilenet, RunsOnTheInterpreter) {
  // Softmax rows: one per image, summing to 1.
  Value out = run_model("mobilenet:alpha=0.25,image_shape=3x32x32,num_classes=10");
  ASSERT_EQ(out.tensor().shape(), (std::vector<int64_t>{1, 10}));
  for (double sum : row_sums(out)) EXPECT_NEAR(sum, 1.0, 1e-5);
}

}  // namespace
}  // namespace weft::model_testing
