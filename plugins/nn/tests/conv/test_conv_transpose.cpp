// nn.conv1d_transpose, nn.conv2d_transpose, nn.conv3d_transpose against
// golden values from gen_conv.py (PyTorch; asymmetric padding as a crop),
// hand-worked cases and type-relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing::conv {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NnConvTranspose, Conv2dTransposeMatchesTorch) {
  EXPECT_EQ(check_golden_cases("conv_transpose.json", "nn.conv2d_transpose", 1e-5, 1e-5), 10);
}

TEST(NnConvTranspose, Conv1dTransposeMatchesTorch) {
  EXPECT_EQ(check_golden_cases("conv_transpose.json", "nn.conv1d_transpose", 1e-5, 1e-5), 4);
}

TEST(NnConvTranspose, Conv3dTransposeMatchesTorch) {
  EXPECT_EQ(check_golden_cases("conv_transpose.json", "nn.conv3d_transpose", 1e-5, 1e-5), 4);
}

TEST(NnConvTranspose, GroupedDilatedOutputPaddedTransposesMatchNumPy) {
  // gen_conv_windows.py: groups, dilation, strides, asymmetric padding and output_padding at once.
  EXPECT_EQ(check_golden_cases("conv_windows.json", "nn.conv1d_transpose", 1e-5, 1e-5), 1);
  EXPECT_EQ(check_golden_cases("conv_windows.json", "nn.conv2d_transpose", 1e-5, 1e-5), 3);
  EXPECT_EQ(check_golden_cases("conv_windows.json", "nn.conv3d_transpose", 1e-5, 1e-5), 1);
}

TEST(NnConvTranspose, HandWorkedStride2SpreadsEachPixelIntoABlock) {
  Tensor x = tensor_of({1, 2, 3, 4}, {1, 1, 2, 2}, f64);
  Tensor w = tensor_of({1, 1, 1, 1}, {1, 1, 2, 2}, f64);
  expect_close(run_op("nn.conv2d_transpose", {x, w}, {{"strides", 2}}).tensor(),
               tensor_json({1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, {1, 1, 4, 4}, f64));
  // Stride 1: overlapping blocks add up.
  expect_close(run_op("nn.conv2d_transpose", {x, w}).tensor(), tensor_json({1, 3, 2, 4, 10, 6, 3, 7, 4}, {1, 1, 3, 3}, f64));
}

TEST(NnConvTranspose, OutputShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type("nn.conv2d_transpose", {tensor_type({1, 3, 4, 4}), tensor_type({3, 8, 3, 3})},
                          {{"strides", 2}, {"padding", 1}, {"output_padding", 1}}),
            "Tensor[(1, 8, 8, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.conv2d_transpose", {tensor_type({1, 4, 4, 4}), tensor_type({4, 3, 2, 2})},
                          {{"groups", 2}, {"channels", 6}, {"kernel_size", 2}}),
            "Tensor[(1, 6, 5, 5), float32]");
  EXPECT_EQ(infer_op_type("nn.conv1d_transpose", {tensor_type({2, 4, 10}, f64), tensor_type({4, 2, 3}, f64)},
                          {{"strides", 3}}),
            "Tensor[(2, 2, 30), float64]");
  EXPECT_EQ(infer_op_type("nn.conv3d_transpose", {tensor_type({1, 2, 3, 3, 2}), tensor_type({2, 2, 2, 3, 2})},
                          {{"data_layout", "NDHWC"}, {"kernel_layout", "DHWOI"}}),
            "Tensor[(1, 3, 4, 4, 3), float32]");
}

TEST(NnConvTranspose, DefaultKernelLayoutIsIohw) {
  Var x = var("x", tensor_type({1, 3, 4, 4})), w = var("w", tensor_type({3, 2, 3, 3}));
  Call c = call("nn.conv2d_transpose", {x, w}, {{"padding", 1}});
  EXPECT_EQ(c->attrs->at("kernel_layout"), AttrValue("IOHW"));
  EXPECT_EQ(c->attrs->at("padding"), AttrValue(std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(c->attrs->at("output_padding"), AttrValue(std::vector<int64_t>{0, 0}));
}

TEST(NnConvTranspose, InputChannelsThatDisagreeWithTheWeightNameShapes) {
  std::string msg = type_error("nn.conv2d_transpose", {tensor_type({1, 3, 4, 4}), tensor_type({4, 2, 3, 3})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d_transpose"), HasSubstr("(1, 3, 4, 4)"), HasSubstr("(4, 2, 3, 3)")));
  msg = type_error("nn.conv2d_transpose", {tensor_type({1, 3, 4, 4}), tensor_type({3, 2, 3, 3})}, {{"channels", 4}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d_transpose"), HasSubstr("channels=4")));
}

TEST(NnConvTranspose, OutputPaddingMustBeSmallerThanStrides) {
  std::string msg = type_error("nn.conv2d_transpose", {tensor_type({1, 3, 4, 4}), tensor_type({3, 2, 3, 3})},
                               {{"strides", 2}, {"output_padding", 2}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d_transpose"), HasSubstr("output_padding (2, 2)")));
}

TEST(NnConvTranspose, BadLayoutsAndGroupsAreRejected) {
  std::string msg = type_error("nn.conv2d_transpose", {tensor_type({1, 3, 4, 4}), tensor_type({3, 2, 3, 3})},
                               {{"kernel_layout", "OIHX"}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d_transpose"), HasSubstr("kernel_layout 'OIHX'"), HasSubstr("IOHW")));
  msg = type_error("nn.conv2d_transpose", {tensor_type({1, 3, 4, 4}), tensor_type({3, 2, 3, 3})}, {{"groups", 2}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d_transpose"), HasSubstr("groups=2")));
}

}  // namespace
}  // namespace weft::testing::conv
