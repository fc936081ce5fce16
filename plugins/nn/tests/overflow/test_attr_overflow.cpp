// Attr arithmetic in the nn relations (pad widths, convolution and pooling
// padding, dilation, transposed strides, upsampling scales, space/batch and
// depth blocks) that overflows int64 is an error naming the op and the attr,
// not a wrapped extent; a padded result larger than the tensor size limit is
// refused with its shape and size; and kernels never convert a float with no
// integer value to an index.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/op_test.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t k2e62 = int64_t{1} << 62;

TEST(NnAttrOverflow, PadWidthsWhoseSumOverflowsAreAnError) {
  // 2 + 2^62 + 2^62 passes 2^63 - 1.
  EXPECT_THAT(type_error("nn.pad", {tensor_type({2, 3}, f32), tensor_type({}, f32)},
                         {{"pad_width", pairs({{k2e62, k2e62}, {0, 0}})}}),
              AllOf(HasSubstr("nn.pad"), HasSubstr("integer overflow")));
}

TEST(NnAttrOverflow, APaddedTensorOverTheSizeLimitNamesItsShapeAndSize) {
  // (2^40 + 2, 3) float32 is 12 TiB: well past the 16 GiB default.
  EXPECT_THAT(type_error("nn.pad", {tensor_type({2, 3}, f32), tensor_type({}, f32)},
                         {{"pad_width", pairs({{int64_t{1} << 40, 0}, {0, 0}})}}),
              AllOf(HasSubstr("Tensor[(1099511627778, 3), float32]"), HasSubstr("13194139533336 bytes"),
                    HasSubstr("WEFT_MAX_TENSOR_BYTES")));
}

TEST(NnAttrOverflow, ConvolutionPaddingAndDilationThatOverflowAreAnError) {
  const std::vector<Type> args = {tensor_type({1, 1, 4, 4}, f32), tensor_type({1, 1, 3, 3}, f32)};
  EXPECT_THAT(type_error("nn.conv2d", args, {{"padding", AttrValue(std::vector<int64_t>{k2e62, 0, k2e62, 0})}}),
              HasSubstr("integer overflow"));
  // 2p per axis overflows in padding's normalizer, whose error names the attr.
  EXPECT_THAT(type_error("nn.conv2d", args, {{"padding", AttrValue(std::vector<int64_t>{k2e62, 0})}}),
              AllOf(HasSubstr("nn.conv2d"), HasSubstr("padding")));
  EXPECT_THAT(type_error("nn.conv2d", args, {{"dilation", AttrValue(std::vector<int64_t>{k2e62, 1})}}),
              HasSubstr("integer overflow"));  // (3 - 1) * 2^62
}

TEST(NnAttrOverflow, TransposedConvolutionStridesThatOverflowAreAnError) {
  // strides * (in - 1) = 2^62 * 3 passes 2^63 - 1.
  EXPECT_THAT(type_error("nn.conv2d_transpose", {tensor_type({1, 1, 4, 4}, f32), tensor_type({1, 1, 3, 3}, f32)},
                         {{"strides", AttrValue(std::vector<int64_t>{k2e62, 1})}}),
              AllOf(HasSubstr("nn.conv2d_transpose"), HasSubstr("integer overflow")));
}

TEST(NnAttrOverflow, UpsamplingScalesPastInt64AreAnError) {
  // 4 * 1e300 has no int64 value (converting it would be undefined).
  EXPECT_THAT(type_error("nn.upsampling", {tensor_type({1, 1, 4, 4}, f32)},
                         {{"scale_h", AttrValue(1e300)}, {"scale_w", AttrValue(2.0)}}),
              AllOf(HasSubstr("nn.upsampling"), HasSubstr("scale_h"), HasSubstr("past what int64 can count")));
}

TEST(NnAttrOverflow, PoolingPaddingThatOverflowsIsAnError) {
  EXPECT_THAT(type_error("nn.max_pool2d", {tensor_type({1, 1, 4, 4}, f32)},
                         {{"pool_size", AttrValue(std::vector<int64_t>{2, 2})},
                          {"padding", AttrValue(std::vector<int64_t>{k2e62, 0, k2e62, 0})}}),
              HasSubstr("integer overflow"));
}

TEST(NnAttrOverflow, OverflowErrorsNameTheAttrBeingComputed) {
  EXPECT_THAT(type_error("nn.pad", {tensor_type({2, 3}, f32), tensor_type({}, f32)},
                         {{"pad_width", pairs({{k2e62, k2e62}, {0, 0}})}}),
              HasSubstr("pad_width: integer overflow"));
  EXPECT_THAT(type_error("nn.conv2d", {tensor_type({1, 1, 4, 4}, f32), tensor_type({1, 1, 3, 3}, f32)},
                         {{"dilation", AttrValue(std::vector<int64_t>{k2e62, 1})}}),
              HasSubstr("dilation: integer overflow"));
  EXPECT_THAT(type_error("nn.max_pool2d", {tensor_type({1, 1, 4, 4}, f32)},
                         {{"pool_size", AttrValue(std::vector<int64_t>{2, 2})},
                          {"padding", AttrValue(std::vector<int64_t>{k2e62, 0, k2e62, 0})}}),
              HasSubstr("padding: integer overflow"));
}

TEST(NnAttrOverflow, DilationStridesThatOverflowAreAnError) {
  // (4 - 1) * 2^62 + 1 passes 2^63 - 1.
  EXPECT_THAT(type_error("nn.dilate", {tensor_type({1, 4}, f32)},
                         {{"strides", AttrValue(std::vector<int64_t>{1, k2e62})}}),
              AllOf(HasSubstr("nn.dilate"), HasSubstr("strides: integer overflow")));
}

TEST(NnAttrOverflow, SpaceToBatchBlocksAndPaddingsThatOverflowAreAnError) {
  const std::vector<Type> data = {tensor_type({1, 4, 4, 1}, f32)};
  // prod(block_shape) = 2^62 * 4.
  EXPECT_THAT(type_error("nn.space_to_batch_nd", data,
                         {{"block_shape", AttrValue(std::vector<int64_t>{k2e62, 4})},
                          {"paddings", pairs({{0, 0}, {0, 0}})}}),
              AllOf(HasSubstr("nn.space_to_batch_nd"), HasSubstr("block_shape: integer overflow")));
  EXPECT_THAT(type_error("nn.space_to_batch_nd", data,
                         {{"block_shape", AttrValue(std::vector<int64_t>{1, 1})},
                          {"paddings", pairs({{k2e62, k2e62}, {0, 0}})}}),
              AllOf(HasSubstr("nn.space_to_batch_nd"), HasSubstr("paddings: integer overflow")));
}

TEST(NnAttrOverflow, BatchToSpaceOfAnEmptyBatchWithHugeBlocksIsAnError) {
  // An empty batch of (2^40)-wide rows fits; unblocking by 2^30 gives 2^70.
  EXPECT_THAT(type_error("nn.batch_to_space_nd", {tensor_type({0, int64_t{1} << 40, 1}, f32)},
                         {{"block_shape", AttrValue(std::vector<int64_t>{int64_t{1} << 30})},
                          {"crops", pairs({{0, 0}})}}),
              AllOf(HasSubstr("nn.batch_to_space_nd"), HasSubstr("block_shape: integer overflow")));
}

TEST(NnAttrOverflow, DepthAndSpaceBlockSizesWhoseSquareOverflowsAreAnError) {
  // block_size^2 = 2^64.
  const AttrList huge_block = {{"block_size", AttrValue(int64_t{1} << 32)}};
  EXPECT_THAT(type_error("nn.depth_to_space", {tensor_type({1, 4, 2, 2}, f32)}, huge_block),
              AllOf(HasSubstr("nn.depth_to_space"), HasSubstr("block_size: integer overflow")));
  // An empty image's height and width divide by any block; its channels times 2^64 do not fit.
  EXPECT_THAT(type_error("nn.space_to_depth", {tensor_type({1, 1, 0, 0}, f32)}, huge_block),
              AllOf(HasSubstr("nn.space_to_depth"), HasSubstr("block_size: integer overflow")));
}

TEST(NnKernelConversions, DeformableConvolutionTreatsNanOffsetsAsOutsideTheInput) {
  // Every sample point is NaN: each lies outside the input, so every tap is 0
  // (converting floor(NaN) to an index was undefined and read out of bounds).
  Tensor data = Tensor::empty({1, 1, 3, 3}, f32), offset = Tensor::empty({1, 2, 3, 3}, f32);
  Tensor weight = Tensor::empty({1, 1, 1, 1}, f32);
  std::fill(data.data_as<float>(), data.data_as<float>() + 9, 1.0f);
  std::fill(offset.data_as<float>(), offset.data_as<float>() + 18, std::nanf(""));
  weight.data_as<float>()[0] = 1.0f;
  Tensor out = run_op("nn.deformable_conv2d", {data, offset, weight},
                      {{"kernel_size", AttrValue(std::vector<int64_t>{1, 1})}, {"channels", AttrValue(int64_t{1})}})
                   .tensor();
  ASSERT_EQ(out.numel(), 9);
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(out.data_as<float>()[i], 0.0f) << i;
}

}  // namespace
}  // namespace weft::testing
