// nn.contrib_conv2d_gemm_weight_transform and
// nn.contrib_conv2d_gemm_without_weight_transform against gen_conv_gemm.py's
// oracles (a NumPy re-implementation of TOPI's tiling; PyTorch conv2d), the
// two chained against the untransformed weight, and type-relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NnConvGemm, WeightTransformMatchesTopiTiling) {
  EXPECT_EQ(check_golden_cases("conv_gemm.json", "nn.contrib_conv2d_gemm_weight_transform", 0, 0), 5);
}

TEST(NnConvGemm, ConvWithTransformedWeightMatchesTorchConv2d) {
  EXPECT_EQ(check_golden_cases("conv_gemm.json", "nn.contrib_conv2d_gemm_without_weight_transform", 1e-5, 1e-5), 7);
}

TEST(NnConvGemm, TransformThenConvEqualsConv2dOnTheHwioWeight) {
  // One program: transform the HWIO weight, then convolve; compared with the
  // PyTorch conv2d of the untransformed weight.
  const nlohmann::json golden = golden_file("conv_gemm.json");
  int ran = 0;
  for (const auto& c : golden.at("cases")) {
    if (!c.contains("hwio_weight")) continue;
    SCOPED_TRACE(c.at("name").get<std::string>());
    Tensor x = tensor_from_json(c.at("inputs")[0]), w = tensor_from_json(c.at("hwio_weight"));
    Var xv = var("x", tensor_type(x.shape(), x.dtype())), wv = var("w", tensor_type(w.shape(), w.dtype()));
    Expr packed = call("nn.contrib_conv2d_gemm_weight_transform", {wv}, attrs_from_json(c.at("tiles")));
    Expr conv = call("nn.contrib_conv2d_gemm_without_weight_transform", {xv, packed}, attrs_from_json(c.at("attrs")));
    Interpreter interp(IRModule::from_function(function({xv, wv}, conv)));
    expect_close(interp.run_main({Value(x), Value(w)}).tensor(), c.at("output"), 1e-5, 1e-5);
    ++ran;
  }
  EXPECT_EQ(ran, 7);
}

TEST(NnConvGemm, TransformShapesFollowTheReference) {
  // K = 3*3*2 = 18 pads to 32 (4 * tile_K = 16), N = 5 pads to 8.
  EXPECT_EQ(infer_op_type("nn.contrib_conv2d_gemm_weight_transform", {tensor_type({3, 3, 2, 5})},
                          {{"tile_N", 4}, {"tile_K", 4}}),
            "Tensor[(2, 8, 4, 4), float32]");
  EXPECT_EQ(infer_op_type("nn.contrib_conv2d_gemm_weight_transform", {tensor_type({1, 1, 3, 6}, DataType::Int(8))},
                          {{"tile_N", 3}, {"tile_K", 2}}),
            "Tensor[(2, 4, 3, 2), int8]");
  EXPECT_EQ(infer_op_type("nn.contrib_conv2d_gemm_weight_transform", {tensor_type({1, 1, 3, 6}, DataType::Float(64))},
                          {{"tile_N", 3}, {"tile_K", 2}}),
            "Tensor[(2, 4, 2, 3), float64]");
  EXPECT_EQ(infer_op_type("nn.contrib_conv2d_gemm_without_weight_transform",
                          {tensor_type({1, 8, 8, 2}), tensor_type({2, 8, 4, 4})},
                          {{"channels", 5}, {"kernel_size", 3}, {"padding", 1}, {"strides", 2},
                           {"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}}),
            "Tensor[(1, 4, 4, 5), float32]");
}

TEST(NnConvGemm, RelationErrorsNameTheShapes) {
  EXPECT_THAT(type_error("nn.contrib_conv2d_gemm_weight_transform", {tensor_type({3, 3, 2})},
                         {{"tile_N", 4}, {"tile_K", 4}}),
              AllOf(HasSubstr("nn.contrib_conv2d_gemm_weight_transform"), HasSubstr("HWIO"), HasSubstr("(3, 3, 2)")));
  EXPECT_THAT(type_error("nn.contrib_conv2d_gemm_weight_transform", {tensor_type({3, 3, 2, 4})},
                         {{"tile_N", 0}, {"tile_K", 4}}),
              HasSubstr("tile_N"));
  // 3x3x4 = 36 rows of K do not fit 2 tiles of 4.
  EXPECT_THAT(type_error("nn.contrib_conv2d_gemm_without_weight_transform",
                         {tensor_type({1, 8, 8, 4}), tensor_type({2, 2, 4, 4})},
                         {{"channels", 5}, {"kernel_size", 3}, {"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}}),
              AllOf(HasSubstr("nn.contrib_conv2d_gemm_without_weight_transform"), HasSubstr("(2, 2, 4, 4)"),
                    HasSubstr("36 x 5")));
  EXPECT_THAT(type_error("nn.contrib_conv2d_gemm_without_weight_transform",
                         {tensor_type({1, 8, 8, 4}), tensor_type({2, 16, 4, 4})},
                         {{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}}),
              HasSubstr("channels and kernel_size must be set"));
  EXPECT_THAT(type_error("nn.contrib_conv2d_gemm_without_weight_transform",
                         {tensor_type({1, 8, 8, 4}), tensor_type({2, 16, 4, 4})},
                         {{"channels", 4}, {"kernel_size", 3}, {"groups", 2}, {"data_layout", "NHWC"}}),
              HasSubstr("groups 1 only"));
  EXPECT_THAT(type_error("nn.contrib_conv2d_gemm_without_weight_transform",
                         {tensor_type({1, 2, 2, 4}), tensor_type({2, 16, 4, 4})},
                         {{"channels", 4}, {"kernel_size", 3}, {"data_layout", "NHWC"}}),
              AllOf(HasSubstr("larger than the padded input"), HasSubstr("(1, 2, 2, 4)")));
}

}  // namespace
}  // namespace weft::testing
