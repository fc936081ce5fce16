// Untyped weights get their types from the data and attrs, as Relay's
// relations assign them (Conv2DRel, Conv3DRel, Conv2DTransposeRel, DenseRel,
// BiasAddRel, BatchNormRel): shapes worked by hand from those rules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "weft/error.h"
#include "weft/module.h"
#include "weft/passes.h"
#include "weft/type.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

Type f32(std::vector<int64_t> shape) { return tensor_type(std::move(shape), DataType::Float(32)); }

/// The types inference gives each untyped parameter of main, in order.
std::vector<std::string> inferred(const Expr& body) {
  Function main = infer_type(IRModule::from_expr(body)).main();
  std::vector<std::string> out;
  for (const Var& p : main->params) out.push_back(type_to_text(p->checked_type()));
  return out;
}

std::vector<std::pair<std::string, AttrValue>> conv_attrs(int64_t channels, std::vector<int64_t> kernel,
                                                          std::string data_layout, std::string kernel_layout) {
  return {{"channels", channels},
          {"kernel_size", std::move(kernel)},
          {"data_layout", std::move(data_layout)},
          {"kernel_layout", std::move(kernel_layout)}};
}

TEST(WeightInference, Conv2dWeightFromChannelsAndKernelSize) {
  // OIHW: (channels, in_channels / groups, kh, kw).
  EXPECT_EQ(inferred(call("nn.conv2d", {var("x", f32({1, 3, 8, 8})), var("w")},
                          conv_attrs(16, {3, 5}, "NCHW", "OIHW"))),
            (std::vector<std::string>{"Tensor[(1, 3, 8, 8), float32]", "Tensor[(16, 3, 3, 5), float32]"}));
  // NHWC data, HWIO kernel.
  EXPECT_EQ(inferred(call("nn.conv2d", {var("x", f32({1, 8, 8, 3})), var("w")},
                          conv_attrs(16, {3, 3}, "NHWC", "HWIO")))[1],
            "Tensor[(3, 3, 3, 16), float32]");
}

TEST(WeightInference, GroupedConv2dNeedsItsWeightTyped) {
  try {
    auto attrs = conv_attrs(4, {3, 3}, "NCHW", "OIHW");
    attrs.emplace_back("groups", 4);
    inferred(call("nn.conv2d", {var("x", f32({1, 4, 8, 8})), var("w")}, attrs));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Weight shape must be specified when groups is greater than 1."));
    EXPECT_THAT(e.what(), HasSubstr("nn.conv2d"));
  }
}

TEST(WeightInference, GroupedConv3dNeedsItsWeightTyped) {
  // Conv3DRel refuses an untyped weight when groups > 1, as Conv2DRel does;
  // grouped conv1d (Conv1DRel) and grouped transposes infer it.
  auto attrs = conv_attrs(8, {1, 3, 3}, "NCDHW", "OIDHW");
  attrs.emplace_back("groups", 2);
  try {
    inferred(call("nn.conv3d", {var("x", f32({1, 4, 4, 8, 8})), var("w")}, attrs));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Weight shape must be specified when groups is greater than 1."));
    EXPECT_THAT(e.what(), HasSubstr("nn.conv3d"));
  }
  auto attrs1d = conv_attrs(8, {3}, "NCW", "OIW");
  attrs1d.emplace_back("groups", 2);
  EXPECT_EQ(inferred(call("nn.conv1d", {var("x", f32({1, 4, 8})), var("w")}, attrs1d))[1],
            "Tensor[(8, 2, 3), float32]");
  auto transposed = conv_attrs(8, {3, 3}, "NCHW", "IOHW");
  transposed.emplace_back("groups", 2);
  EXPECT_EQ(inferred(call("nn.conv2d_transpose", {var("x", f32({1, 4, 8, 8})), var("w")}, transposed))[1],
            "Tensor[(4, 4, 3, 3), float32]");
}

TEST(WeightInference, Conv3dAndTransposedConvWeights) {
  EXPECT_EQ(inferred(call("nn.conv3d", {var("x", f32({1, 3, 4, 8, 8})), var("w")},
                          conv_attrs(8, {1, 3, 3}, "NCDHW", "OIDHW")))[1],
            "Tensor[(8, 3, 1, 3, 3), float32]");
  // Transposed: IOHW = (in_channels, channels / groups, kh, kw); HWOI for NHWC.
  EXPECT_EQ(inferred(call("nn.conv2d_transpose", {var("x", f32({1, 32, 4, 4})), var("w")},
                          conv_attrs(16, {4, 4}, "NCHW", "IOHW")))[1],
            "Tensor[(32, 16, 4, 4), float32]");
  EXPECT_EQ(inferred(call("nn.conv2d_transpose", {var("x", f32({1, 4, 4, 32})), var("w")},
                          conv_attrs(16, {4, 4}, "NHWC", "HWOI")))[1],
            "Tensor[(4, 4, 16, 32), float32]");
}

TEST(WeightInference, DenseWeightFromUnits) {
  EXPECT_EQ(inferred(call("nn.dense", {var("x", f32({2, 7})), var("w")}, {{"units", 5}}))[1],
            "Tensor[(5, 7), float32]");
  // Without units nothing tells the weight's shape.
  EXPECT_THROW(inferred(call("nn.dense", {var("x", f32({2, 7})), var("w")})), Error);
}

TEST(WeightInference, BiasAndBatchNormFollowTheirAxis) {
  EXPECT_EQ(inferred(call("nn.bias_add", {var("x", f32({2, 3, 5})), var("b")}))[1], "Tensor[(3), float32]");
  EXPECT_EQ(inferred(call("nn.bias_add", {var("x", f32({2, 3, 5})), var("b")}, {{"axis", -1}}))[1],
            "Tensor[(5), float32]");
  Expr bn = call("nn.batch_norm", {var("x", f32({1, 6, 4, 4})), var("g"), var("b"), var("m"), var("v")});
  EXPECT_EQ(inferred(get_item(bn, 0)),
            (std::vector<std::string>{"Tensor[(1, 6, 4, 4), float32]", "Tensor[(6), float32]", "Tensor[(6), float32]",
                                      "Tensor[(6), float32]", "Tensor[(6), float32]"}));
}

}  // namespace
}  // namespace weft
