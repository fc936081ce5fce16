// contrib_conv2d_NCHWc, contrib_depthwise_conv2d_NCHWc, conv2d_backward_weight, deformable_conv2d and
// correlation against gen_conv.py's oracles (PyTorch convolution and autograd;
// TOPI's deformable sampling and correlation written out in NumPy), hand-worked
// cases and type-relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing::conv {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NnConvSpecial, Conv2dNCHWcMatchesTorchInBlockedLayouts) {
  EXPECT_EQ(check_golden_cases("conv_special.json", "nn.contrib_conv2d_NCHWc", 1e-5, 1e-5), 4);
}

TEST(NnConvSpecial, DepthwiseConv2dNCHWcMatchesTorchWithChannelMultipliers) {
  EXPECT_EQ(check_golden_cases("conv_special.json", "nn.contrib_depthwise_conv2d_NCHWc", 1e-5, 1e-5),
            4);
}

TEST(NnConvSpecial, BackwardWeightMatchesTorchAutograd) {
  EXPECT_EQ(check_golden_cases("conv_special.json", "nn.conv2d_backward_weight", 1e-5, 1e-5), 6);
}

TEST(NnConvSpecial, DeformableConvMatchesTopiSampling) {
  EXPECT_EQ(check_golden_cases("conv_special.json", "nn.deformable_conv2d", 1e-5, 1e-5), 6);
}

TEST(NnConvSpecial, CorrelationMatchesTopi) {
  EXPECT_EQ(check_golden_cases("conv_special.json", "nn.correlation", 1e-5, 1e-5), 6);
}

TEST(NnConvSpecial, DeformableConvWithZeroOffsetsIsConv2d) {
  std::vector<double> xs, ws;
  for (int i = 0; i < 2 * 4 * 4; ++i) xs.push_back(0.25 * i - 3);
  for (int i = 0; i < 3 * 2 * 3 * 3; ++i) ws.push_back(0.5 - 0.125 * i);
  Tensor x = tensor_of(xs, {1, 2, 4, 4}, f64), w = tensor_of(ws, {3, 2, 3, 3}, f64);
  Tensor offset = tensor_of(std::vector<double>(18 * 4 * 4, 0.0), {1, 18, 4, 4}, f64);
  Tensor conv = run_op("nn.conv2d", {x, w}, {{"padding", 1}}).tensor();
  Tensor deform = run_op("nn.deformable_conv2d", {x, offset, w}, {{"padding", 1}}).tensor();
  ASSERT_EQ(deform.shape(), conv.shape());
  for (int64_t i = 0; i < conv.numel(); ++i) EXPECT_NEAR(deform.element_as_double(i), conv.element_as_double(i), 1e-12);
}

TEST(NnConvSpecial, HandWorkedDeformableHalfPixelOffsetAveragesNeighbours) {
  // One 1x1 tap moved down by half a row: the mean of rows 0 and 1; the last
  // row's lower neighbour is past the edge and counts as zero.
  Tensor x = tensor_of({1, 2, 3, 4}, {1, 1, 2, 2}, f64), w = tensor_of({1}, {1, 1, 1, 1}, f64);
  Tensor offset = tensor_of({0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0}, {1, 2, 2, 2}, f64);
  Value out = run_op("nn.deformable_conv2d", {x, offset, w}, {{"kernel_size", 1}});
  expect_close(out.tensor(), tensor_json({2, 3, 1.5, 2}, {1, 1, 2, 2}, f64));
}

TEST(NnConvSpecial, ShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type("nn.contrib_conv2d_NCHWc", {tensor_type({1, 2, 8, 8, 8}), tensor_type({4, 2, 3, 3, 8, 8})},
                          {{"channels", 32}, {"kernel_size", 3}, {"padding", 1}, {"kernel_layout", "OIHW8i8o"}}),
            "Tensor[(1, 4, 8, 8, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.conv2d_backward_weight", {tensor_type({2, 8, 4, 4}), tensor_type({2, 3, 8, 8})},
                          {{"kernel_size", 3}, {"strides", 2}, {"padding", 1}}),
            "Tensor[(8, 3, 3, 3), float32]");
  EXPECT_EQ(infer_op_type("nn.deformable_conv2d",
                          {tensor_type({1, 4, 8, 8}), tensor_type({1, 36, 8, 8}), tensor_type({6, 4, 3, 3})},
                          {{"padding", 1}, {"deformable_groups", 2}}),
            "Tensor[(1, 6, 8, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.correlation", {tensor_type({1, 3, 10, 12}), tensor_type({1, 3, 10, 12})},
                          {{"kernel_size", 3}, {"max_displacement", 4}, {"stride1", 1}, {"stride2", 2}, {"padding", 4}}),
            "Tensor[(1, 25, 8, 10), float32]");
}

TEST(NnConvSpecial, NCHWcNeedsChannelsAndKernelSize) {
  std::string msg = type_error("nn.contrib_conv2d_NCHWc", {tensor_type({1, 2, 8, 8, 8}), tensor_type({4, 2, 3, 3, 8, 8})},
                               {{"kernel_layout", "OIHW8i8o"}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.contrib_conv2d_NCHWc"), HasSubstr("channels and kernel_size")));
}

TEST(NnConvSpecial, BackwardWeightNeedsKernelSize) {
  std::string msg = type_error("nn.conv2d_backward_weight", {tensor_type({2, 8, 4, 4}), tensor_type({2, 3, 8, 8})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d_backward_weight"), HasSubstr("kernel_size")));
}

TEST(NnConvSpecial, DeformableOffsetOfTheWrongShapeNamesShapes) {
  std::string msg = type_error("nn.deformable_conv2d",
                               {tensor_type({1, 4, 8, 8}), tensor_type({1, 18, 8, 8}), tensor_type({6, 4, 3, 3})},
                               {{"padding", 1}, {"deformable_groups", 2}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.deformable_conv2d"), HasSubstr("(1, 36, 8, 8)"), HasSubstr("(1, 18, 8, 8)")));
  msg = type_error("nn.deformable_conv2d",
                   {tensor_type({1, 4, 8, 8}), tensor_type({1, 18, 6, 6}), tensor_type({6, 4, 1, 1})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.deformable_conv2d"), HasSubstr("kernel_size=(3, 3)")));
}

TEST(NnConvSpecial, CorrelationRejectsMismatchedInputsAndOtherLayouts) {
  std::string msg = type_error("nn.correlation", {tensor_type({1, 3, 8, 8}), tensor_type({1, 3, 8, 9})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.correlation"), HasSubstr("(1, 3, 8, 8)"), HasSubstr("(1, 3, 8, 9)")));
  msg = type_error("nn.correlation", {tensor_type({1, 8, 8, 3}), tensor_type({1, 8, 8, 3})}, {{"layout", "NHWC"}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.correlation"), HasSubstr("NHWC")));
  msg = type_error("nn.correlation", {tensor_type({1, 3, 8, 8}), tensor_type({1, 3, 8, 8})}, {{"kernel_size", 2}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.correlation"), HasSubstr("odd")));
}

}  // namespace
}  // namespace weft::testing::conv
