// Winograd ops: the weight transform against TOPI's matrices (recomputed in
// gen_conv.py), and the pre-transformed convolution against PyTorch's direct
// conv2d of the untransformed weight; relation and attribute errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing::conv {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kTransform = "nn.contrib_conv2d_winograd_weight_transform";
const std::string kWinograd = "nn.contrib_conv2d_winograd_without_weight_transform";
const std::string kTransform3d = "nn.contrib_conv3d_winograd_weight_transform";
const std::string kWinograd3d = "nn.contrib_conv3d_winograd_without_weight_transform";

TEST(NnConvWinograd, WeightTransformMatchesTopiMatrices) {
  EXPECT_EQ(check_golden_cases("conv_winograd.json", kTransform, 1e-5, 1e-5), 6);
}

TEST(NnConvWinograd, ConvolutionEqualsTheDirectConvolution) {
  // Float32 Winograd rounds differently from a direct convolution.
  EXPECT_EQ(check_golden_cases("conv_winograd.json", kWinograd, 1e-4, 1e-4), 8);
}

TEST(NnConvWinograd, Conv3dWeightTransformMatchesTopiMatrices) {
  EXPECT_EQ(check_golden_cases("conv_winograd.json", kTransform3d, 1e-5, 1e-5), 4);
}

TEST(NnConvWinograd, Conv3dEqualsTheDirectConvolutionWithAndWithoutDepthTransform) {
  EXPECT_EQ(check_golden_cases("conv_winograd.json", kWinograd3d, 1e-4, 1e-4), 4);
}

TEST(NnConvWinograd, Conv3dShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type(kTransform3d, {tensor_type({8, 4, 3, 3, 3})}, {{"tile_size", 2}}),
            "Tensor[(4, 4, 4, 8, 4), float32]");
  EXPECT_EQ(infer_op_type(kTransform3d, {tensor_type({8, 4, 1, 3, 3})}, {{"tile_size", 4}}),
            "Tensor[(6, 6, 1, 8, 4), float32]");
  EXPECT_EQ(infer_op_type(kWinograd3d, {tensor_type({1, 4, 8, 8, 8}), tensor_type({4, 4, 4, 8, 4})},
                          {{"tile_size", 2}, {"channels", 8}, {"kernel_size", 3}, {"padding", 1}}),
            "Tensor[(1, 8, 8, 8, 8), float32]");
  EXPECT_THAT(type_error(kWinograd3d, {tensor_type({1, 4, 8, 8, 8}), tensor_type({4, 4, 4, 8, 4})},
                         {{"tile_size", 2}, {"channels", 8}, {"kernel_size", 3}, {"strides", 2}}),
              AllOf(HasSubstr(kWinograd3d), HasSubstr("strides (2, 2, 2)")));
}

TEST(NnConvWinograd, HandWorkedF23TransformOfAUnitKernel) {
  // G for F(2, 3) with TOPI's points {0, -1, 1}: rows (1,0,0), (1/2,-1/2,1/2), (1/2,1/2,1/2), (0,0,1);
  // the centre tap alone gives U = G e1 e1^T G^T, the outer product of G's middle column.
  Tensor g = tensor_of({0, 0, 0, 0, 1, 0, 0, 0, 0}, {1, 1, 3, 3}, f64);
  Value u = run_op(kTransform, {g}, {{"tile_size", 2}});
  std::vector<double> col{0, -0.5, 0.5, 0}, want;
  for (double a : col) {
    for (double b : col) want.push_back(a * b);
  }
  expect_close(u.tensor(), tensor_json(want, {4, 4, 1, 1}, f64));
}

TEST(NnConvWinograd, ShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type(kTransform, {tensor_type({8, 4, 3, 3})}, {{"tile_size", 4}}),
            "Tensor[(6, 6, 8, 4), float32]");
  EXPECT_EQ(infer_op_type(kWinograd, {tensor_type({1, 4, 14, 14}), tensor_type({6, 6, 8, 4})},
                          {{"tile_size", 4}, {"channels", 8}, {"kernel_size", 3}, {"padding", 1}}),
            "Tensor[(1, 8, 14, 14), float32]");
}

TEST(NnConvWinograd, ChannelsAndKernelSizeAreRequired) {
  std::string msg = type_error(kWinograd, {tensor_type({1, 4, 8, 8}), tensor_type({4, 4, 8, 4})}, {{"tile_size", 2}});
  EXPECT_THAT(msg, AllOf(HasSubstr(kWinograd), HasSubstr("channels and kernel_size")));
}

TEST(NnConvWinograd, UnsupportedTilesStridesAndKernelsAreRejected) {
  EXPECT_THAT(type_error(kTransform, {tensor_type({8, 4, 3, 3})}, {{"tile_size", 9}}),
              AllOf(HasSubstr(kTransform), HasSubstr("tile_size")));
  EXPECT_THAT(type_error(kTransform, {tensor_type({8, 4, 3, 2})}, {{"tile_size", 2}}),
              AllOf(HasSubstr(kTransform), HasSubstr("(8, 4, 3, 2)")));
  EXPECT_THAT(type_error(kWinograd, {tensor_type({1, 4, 8, 8}), tensor_type({4, 4, 8, 4})},
                         {{"tile_size", 2}, {"channels", 8}, {"kernel_size", 3}, {"strides", 2}}),
              AllOf(HasSubstr(kWinograd), HasSubstr("strides (2, 2)")));
}

TEST(NnConvWinograd, TileSizeIsRequired) {
  Var w = var("w", tensor_type({8, 4, 3, 3}));
  try {
    call(kTransform, {w});
    ADD_FAILURE() << "expected a missing-attribute error";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), AllOf(HasSubstr(kTransform), HasSubstr("tile_size")));
  }
}

TEST(NnConvWinograd, AWeightOfTheWrongShapeIsARunTimeError) {
  Tensor x = tensor_of(std::vector<double>(16, 1.0), {1, 1, 4, 4});
  Tensor u = tensor_of(std::vector<double>(9, 1.0), {3, 3, 1, 1});
  try {
    run_op(kWinograd, {x, u}, {{"tile_size", 2}, {"channels", 1}, {"kernel_size", 3}});
    ADD_FAILURE() << "expected a run-time error";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), AllOf(HasSubstr(kWinograd), HasSubstr("(3, 3, 1, 1)"), HasSubstr("(4, 4, 1, 1)")));
  }
}

}  // namespace
}  // namespace weft::testing::conv
