// resnet and resnet_3d against relay.testing.resnet / resnet_3d: parameters
// derived by hand from the reference source for small configurations, op
// counts, parameter counts against the published figures, argument checks.
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

using Params = std::vector<TypedParam>;

/// A batch norm's four parameters `<name>_gamma`, ... of `channels` each.
void add_bn(Params& out, const std::string& name, int64_t channels) {
  for (const char* suffix : {"_gamma", "_beta", "_moving_mean", "_moving_var"}) {
    out.push_back({name + suffix, {channels}, "float32"});
  }
}

TEST(Resnet, SmallImageBasicNetworkParametersInReferenceOrder) {
  // num_layers=8, 28x28: three stages of (8-2)/6 = 1 basic unit, filters
  // [16, 16, 32, 64]; height <= 32 gives the 3x3 stem without bn0 and pool.
  // Each unit: bn1, conv1, bn2, conv2, then the shortcut conv (first units
  // never match dims in the reference, so every unit here has one).
  Params expected{{"data", {1, 3, 28, 28}, "float32"}};
  add_bn(expected, "bn_data", 3);
  expected.push_back({"conv0_weight", {16, 3, 3, 3}, "float32"});
  int64_t in = 16;
  int64_t filters[] = {16, 32, 64};
  for (int stage = 1; stage <= 3; ++stage) {
    std::string unit = "stage" + std::to_string(stage) + "_unit1";
    int64_t f = filters[stage - 1];
    add_bn(expected, unit + "_bn1", in);
    expected.push_back({unit + "_conv1_weight", {f, in, 3, 3}, "float32"});
    add_bn(expected, unit + "_bn2", f);
    expected.push_back({unit + "_conv2_weight", {f, f, 3, 3}, "float32"});
    expected.push_back({unit + "_sc_weight", {f, in, 1, 1}, "float32"});
    in = f;
  }
  add_bn(expected, "bn1", 64);
  expected.push_back({"fc1_weight", {10, 64}, "float32"});
  expected.push_back({"fc1_bias", {10}, "float32"});
  IRModule mod = typed_model("resnet:num_layers=8,image_shape=3x28x28,num_classes=10");
  EXPECT_EQ(typed_params(mod), expected);
  EXPECT_EQ(param_count(mod), 78598);  // tests/param_counts.py
}

TEST(Resnet, SmallImageOpCounts) {
  std::map<std::string, int> expected = {
      {"nn.batch_norm", 8}, {"nn.conv2d", 10},      {"nn.relu", 7},        {"add", 3},
      {"nn.global_avg_pool2d", 1}, {"nn.batch_flatten", 1}, {"nn.dense", 1}, {"nn.bias_add", 1},
      {"nn.softmax", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("resnet:num_layers=8,image_shape=3x28x28,num_classes=10")), expected);
}

TEST(Resnet, BottleneckUnitIsAQuarterWide) {
  // 164 layers on small images: 18 bottleneck units per stage, filters [16, 64, 128, 256].
  auto params = typed_params(typed_model("resnet:num_layers=164,image_shape=3x28x28"));
  auto find = [&](const std::string& name) {
    for (const auto& p : params)
      if (p.name == name) return p.shape;
    return std::vector<int64_t>{};
  };
  EXPECT_EQ(find("stage1_unit1_conv1_weight"), (std::vector<int64_t>{16, 16, 1, 1}));
  EXPECT_EQ(find("stage1_unit1_conv2_weight"), (std::vector<int64_t>{16, 16, 3, 3}));
  EXPECT_EQ(find("stage1_unit1_conv3_weight"), (std::vector<int64_t>{64, 16, 1, 1}));
  EXPECT_EQ(find("stage3_unit18_conv3_weight"), (std::vector<int64_t>{256, 64, 1, 1}));
  EXPECT_TRUE(find("stage3_unit19_conv1_weight").empty());
}

TEST(Resnet, ImageNetStemAndOpCountsOfResnet18) {
  IRModule mod = typed_model("resnet-18");
  auto params = typed_params(mod);
  ASSERT_GE(params.size(), 7u);
  EXPECT_EQ(params[5], (TypedParam{"conv0_weight", {64, 3, 7, 7}, "float32"}));
  EXPECT_EQ(params[6], (TypedParam{"bn0_gamma", {64}, "float32"}));
  EXPECT_EQ(params.back(), (TypedParam{"fc1_bias", {1000}, "float32"}));
  // 8 units of 2 convs, 4 shortcut convs, the stem conv; a bn before each
  // unit conv, bn_data, bn0, bn1.
  auto ops = testing::count_ops(mod);
  EXPECT_EQ(ops["nn.conv2d"], 21);
  EXPECT_EQ(ops["nn.batch_norm"], 19);
  EXPECT_EQ(ops["nn.relu"], 18);
  EXPECT_EQ(ops["add"], 8);
  EXPECT_EQ(ops["nn.max_pool2d"], 1);
}

// Published counts (He et al.; torchvision) are of the original ResNet v1:
// resnet-18 11.69M, resnet-50 25.6M. The reference's v2 network differs: it
// counts each batch norm's moving mean and variance (4 values per channel, not
// 2), adds bn_data on the input, and every stage's first unit has a shortcut
// conv, stage 1's included. Exact values: tests/param_counts.py.
TEST(Resnet, ParameterCountsMatchPublishedFiguresUpToTheReferencesDifferences) {
  int64_t r18 = param_count(typed_model("resnet-18"));
  EXPECT_EQ(r18, 11699892);
  EXPECT_NEAR(r18 / 1e6, 11.69, 0.02);
  int64_t r50 = param_count(typed_model("resnet-50"));
  EXPECT_EQ(r50, 25595060);
  EXPECT_NEAR(r50 / 1e6, 25.6, 0.01);
}

TEST(Resnet, NhwcUsesHwioKernelsAndTheLastAxisForBatchNorm) {
  auto params = typed_params(typed_model("resnet-18:layout=NHWC,image_shape=224x224x3"));
  EXPECT_EQ(params[0], (TypedParam{"data", {1, 224, 224, 3}, "float32"}));
  EXPECT_EQ(params[1], (TypedParam{"bn_data_gamma", {3}, "float32"}));
  EXPECT_EQ(params[5], (TypedParam{"conv0_weight", {7, 7, 3, 64}, "float32"}));
}

TEST(Resnet, DepthsWithoutExperimentsAreTheReferencesError) {
  EXPECT_THAT(build_error("resnet-20"), ::testing::HasSubstr("no experiments done on num_layers 20"));
  // Small images: (n-2) % 6 below 164 layers, (n-2) % 9 from 164.
  EXPECT_THAT(build_error("resnet:num_layers=21,image_shape=3x28x28"),
              ::testing::HasSubstr("no experiments done on num_layers 21"));
  EXPECT_THAT(build_error("resnet:num_layers=170,image_shape=3x28x28"),
              ::testing::HasSubstr("no experiments done on num_layers 170"));
  EXPECT_EQ(build_error("resnet:num_layers=20,image_shape=3x28x28"), "");
  EXPECT_EQ(build_error("resnet:num_layers=164,image_shape=3x28x28"), "");
  // The reference picks the small-image table for height <= 28 only: a 32x32
  // image takes the ImageNet depths (with the 3x3 stem).
  EXPECT_THAT(build_error("resnet:num_layers=20,image_shape=3x32x32"),
              ::testing::HasSubstr("no experiments done on num_layers 20"));
  EXPECT_EQ(build_error("resnet:num_layers=18,image_shape=3x32x32"), "");
}

TEST(Resnet, BadArgumentsNameTheArgument) {
  EXPECT_THAT(build_error("resnet:layout=NCWH"), ::testing::HasSubstr("layout"));
  EXPECT_THAT(build_error("resnet:image_shape=3x224"), ::testing::HasSubstr("image_shape"));
  EXPECT_THAT(build_error("resnet:num_layers=eighteen"), ::testing::HasSubstr("num_layers"));
  EXPECT_THAT(build_error("resnet-x18"), ::testing::HasSubstr("not a variant of resnet"));
  EXPECT_THAT(build_error("resnet-18-bn"), ::testing::HasSubstr("resnet-{num_layers}"));
}

TEST(Resnet3d, SmallClipParametersInReferenceOrder) {
  // num_layers=8 on 3x16x28x28: height 28 -> three basic stages; 3x3x3 stem.
  // batch_norm keeps its default axis (1), as the reference passes none.
  Params expected{{"data", {1, 3, 16, 28, 28}, "float32"}};
  add_bn(expected, "bn_data", 3);
  expected.push_back({"conv0_weight", {16, 3, 3, 3, 3}, "float32"});
  int64_t in = 16;
  int64_t filters[] = {16, 32, 64};
  for (int stage = 1; stage <= 3; ++stage) {
    std::string unit = "stage" + std::to_string(stage) + "_unit1";
    int64_t f = filters[stage - 1];
    add_bn(expected, unit + "_bn1", in);
    expected.push_back({unit + "_conv1_weight", {f, in, 3, 3, 3}, "float32"});
    add_bn(expected, unit + "_bn2", f);
    expected.push_back({unit + "_conv2_weight", {f, f, 3, 3, 3}, "float32"});
    expected.push_back({unit + "_sc_weight", {f, in, 1, 1, 1}, "float32"});
    in = f;
  }
  add_bn(expected, "bn1", 64);
  expected.push_back({"fc1_weight", {1000, 64}, "float32"});
  expected.push_back({"fc1_bias", {1000}, "float32"});
  EXPECT_EQ(typed_params(typed_model("resnet_3d:num_layers=8,image_shape=3x16x28x28")), expected);
}

TEST(Resnet3d, DefaultClipUsesTheStridedStemWithoutPool) {
  IRModule mod = typed_model("resnet_3d-18");
  auto params = typed_params(mod);
  EXPECT_EQ(params[0], (TypedParam{"data", {1, 3, 16, 112, 112}, "float32"}));
  EXPECT_EQ(params[5], (TypedParam{"conv0_weight", {64, 3, 3, 7, 7}, "float32"}));
  auto ops = testing::count_ops(mod);
  EXPECT_EQ(ops["nn.conv3d"], 21);
  EXPECT_EQ(ops["nn.adaptive_avg_pool3d"], 1);  // relay.nn.global_avg_pool3d's graph
  EXPECT_EQ(ops.count("nn.max_pool3d"), 0u);
  EXPECT_THAT(build_error("resnet_3d-19"), ::testing::HasSubstr("no experiments done on num_layers 19"));
  EXPECT_THAT(build_error("resnet_3d:layout=NCHW"), ::testing::HasSubstr("layout"));
}

}  // namespace
}  // namespace weft::model_testing
