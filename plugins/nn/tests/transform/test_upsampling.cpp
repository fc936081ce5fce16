// nn.upsampling and nn.upsampling3d against golden values from
// gen_transform.py (TOPI's resize in NumPy; bilinear/trilinear with aligned or
// half-pixel corners and integer-scale nearest cross-checked with PyTorch),
// hand-worked cases of the reference's conventions, and their errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NnUpsampling, AllMethodsAndLayoutsMatchTopiResize) {
  EXPECT_EQ(check_golden_cases("transform.json", "nn.upsampling", 1e-5, 1e-5), 28);
}

TEST(NnUpsampling, NearestRepeatsPixels) {
  Value out = run_op("nn.upsampling", {tensor_of({1, 2}, {1, 1, 1, 2})}, {{"scale_w", 2.0}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(1, 1, 2, 2));
}

TEST(NnUpsampling, BilinearWithoutAlignCornersUsesAsymmetricCoordinates) {
  // Output x maps to x * in / out = x / 2, so the last pixel repeats the edge.
  Value out = run_op("nn.upsampling", {tensor_of({0, 4}, {1, 1, 1, 2}, f64)}, {{"scale_w", 2.0}, {"method", "bilinear"}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(0, 2, 4, 4));
  out = run_op("nn.upsampling", {tensor_of({0, 4}, {1, 1, 1, 2}, f64)},
               {{"scale_w", 2.0}, {"method", "bilinear"}, {"align_corners", true}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(0, 4.0 / 3, 8.0 / 3, 4));
}

TEST(NnUpsampling, OutputExtentRoundsHalfToEven) {
  EXPECT_EQ(infer_op_type("nn.upsampling", {tensor_type({1, 2, 3, 5}, f32)}, {{"scale_h", 1.5}, {"scale_w", 1.5}}),
            "Tensor[(1, 2, 4, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.upsampling", {tensor_type({1, 3, 5, 2}, f64)},
                          {{"scale_h", 2.0}, {"scale_w", 0.5}, {"layout", "NHWC"}}),
            "Tensor[(1, 6, 2, 2), float64]");
}

TEST(NnUpsampling, Errors) {
  EXPECT_THAT(type_error("nn.upsampling", {tensor_type({1, 2, 3}, f32)}),
              AllOf(HasSubstr("nn.upsampling"), HasSubstr("(1, 2, 3)"), HasSubstr("layout NCHW expects 4")));
  EXPECT_THAT(type_error("nn.upsampling", {tensor_type({1, 2, 3, 3}, f32)}, {{"method", "trilinear"}}),
              AllOf(HasSubstr("nn.upsampling"), HasSubstr("\"trilinear\""),
                    HasSubstr("nearest_neighbor, bilinear or bicubic")));
  EXPECT_THAT(type_error("nn.upsampling", {tensor_type({1, 2, 3, 3}, f32)}, {{"scale_h", -2.0}}),
              AllOf(HasSubstr("nn.upsampling"), HasSubstr("scale_h"), HasSubstr("expected > 0")));
  EXPECT_THAT(type_error("nn.upsampling", {tensor_type({1, 2, 3, 3}, f32)}, {{"layout", "NCWH"}}),
              AllOf(HasSubstr("nn.upsampling"), HasSubstr("\"NCWH\""),
                    HasSubstr("the axes of NCHW with HW in that order and unsplit, such as NCHW, NHWC or NCHW16c")));
  EXPECT_THAT(type_error("nn.upsampling", {tensor_type({1, 2, 3, 3, 2}, f32)}, {{"layout", "NCHW2h"}}),
              HasSubstr("unsplit"));
  EXPECT_THAT(run_error("nn.upsampling", {tensor_of({1, 2}, {1, 1, 1, 2}, DataType::Int(32))}),
              AllOf(HasSubstr("nn.upsampling"), HasSubstr("int32")));
}

TEST(NnUpsampling, AChannelBlockedLayoutResizesTheSameSpatialAxes) {
  // NCHW2c (1, 1, 1, 2, 2): channel c0 = (1, 2), c1 = (3, 4) along W; nearest
  // repeats each along W, blocks untouched: out[..., w, c] = in[..., w / 2, c].
  EXPECT_EQ(infer_op_type("nn.upsampling", {tensor_type({1, 2, 3, 5, 4}, f32)},
                          {{"scale_h", 2.0}, {"scale_w", 2.0}, {"layout", "NCHW4c"}}),
            "Tensor[(1, 2, 6, 10, 4), float32]");
  Value out = run_op("nn.upsampling", {tensor_of({1, 3, 2, 4}, {1, 1, 1, 2, 2})}, {{"scale_w", 2.0}, {"layout", "NCHW2c"}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(1, 3, 1, 3, 2, 4, 2, 4));
}

TEST(NnUpsampling3d, AllModesAndLayoutsMatchTopiResize) {
  EXPECT_EQ(check_golden_cases("transform.json", "nn.upsampling3d", 1e-5, 1e-5), 24);
}

TEST(NnUpsampling3d, HalfPixelNearestFloorsAsTheReferenceDoes) {
  // Source coordinates (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 floor to
  // 0, 0, 0, 1: TOPI floors rather than rounding to the nearest pixel.
  Value out = run_op("nn.upsampling3d", {tensor_of({1, 2}, {1, 1, 1, 1, 2})}, {{"scale_w", 2.0}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(1, 1, 1, 2));
}

TEST(NnUpsampling3d, Errors) {
  EXPECT_THAT(type_error("nn.upsampling3d", {tensor_type({1, 2, 3, 3}, f32)}),
              AllOf(HasSubstr("nn.upsampling3d"), HasSubstr("(1, 2, 3, 3)"), HasSubstr("expects 5")));
  EXPECT_THAT(type_error("nn.upsampling3d", {tensor_type({1, 2, 3, 3, 3}, f32)},
                         {{"coordinate_transformation_mode", "tf_crop_and_resize"}}),
              AllOf(HasSubstr("nn.upsampling3d"), HasSubstr("\"tf_crop_and_resize\""),
                    HasSubstr("half_pixel, align_corners or asymmetric")));
}

}  // namespace
}  // namespace weft::testing
