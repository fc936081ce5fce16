// nn.pad, nn.mirror_pad, nn.dilate and nn.fifo_buffer against golden values
// from gen_transform.py (NumPy, cross-checked with PyTorch), hand-worked
// cases, and their type-relation and attribute errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NnPad, ConstantEdgeReflectMatchNumPy) { EXPECT_EQ(check_golden_cases("transform.json", "nn.pad"), 12); }

TEST(NnPad, PadValueIsAnInputCastToTheDataDtype) {
  Value out =
      run_op("nn.pad", {tensor_of({1, 2}, {2}), tensor_of({7}, {}, DataType::Int(32))}, {{"pad_width", pairs({{1, 2}})}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(7, 1, 2, 7, 7));
  EXPECT_EQ(out.tensor().dtype(), f32);
}

TEST(NnPad, NegativeWidthsCropAsInTheReference) {
  Value out = run_op("nn.pad", {tensor_of({1, 2, 3, 4}, {4}), tensor_of({0}, {})}, {{"pad_width", pairs({{-1, 1}})}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(2, 3, 4, 0));
}

TEST(NnPad, MovesAnyDtype) {
  Value out = run_op("nn.pad", {tensor_of({5, -6}, {2}, DataType::Int(8)), tensor_of({0}, {})},
                     {{"pad_width", pairs({{0, 1}})}, {"pad_mode", "reflect"}});
  EXPECT_EQ(out.tensor().dtype(), DataType::Int(8));
  EXPECT_THAT(elements(out.tensor()), ElementsAre(5, -6, 5));
}

TEST(NnPad, OutputType) {
  EXPECT_EQ(infer_op_type("nn.pad", {tensor_type({1, 3, 4, 4}, f64), tensor_type({}, f32)},
                          {{"pad_width", pairs({{0, 0}, {0, 0}, {1, 1}, {2, 0}})}}),
            "Tensor[(1, 3, 6, 6), float64]");
}

TEST(NnPad, PadWidthOfTheWrongLengthNamesTheShapes) {
  std::string msg =
      type_error("nn.pad", {tensor_type({2, 3}, f32), tensor_type({}, f32)}, {{"pad_width", pairs({{1, 1}})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.pad"), HasSubstr("pad_width has 1 pairs"), HasSubstr("(2, 3)"),
                         HasSubstr("2 dimensions")));
}

TEST(NnPad, ReflectWiderThanTheAxisIsAnError) {
  std::string msg = type_error("nn.pad", {tensor_type({2, 3}, f32), tensor_type({}, f32)},
                               {{"pad_width", pairs({{0, 0}, {3, 0}})}, {"pad_mode", "reflect"}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.pad"), HasSubstr("reflect padding of axis 1 by 3"), HasSubstr("at most 2")));
}

TEST(NnPad, PadValueMustBeAScalar) {
  std::string msg =
      type_error("nn.pad", {tensor_type({2}, f32), tensor_type({1}, f32)}, {{"pad_width", pairs({{1, 1}})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.pad"), HasSubstr("pad_value must be a scalar")));
}

TEST(NnPad, AttrErrors) {
  EXPECT_THAT(
      type_error("nn.pad", {tensor_type({2}, f32), tensor_type({}, f32)},
                 {{"pad_width", pairs({{1, 1}})}, {"pad_mode", "wrap"}}),
      AllOf(HasSubstr("nn.pad"), HasSubstr("pad_mode"), HasSubstr("\"wrap\""), HasSubstr("constant, edge or reflect")));
  EXPECT_THAT(
      type_error("nn.pad", {tensor_type({2}, f32), tensor_type({}, f32)}, {{"pad_width", pairs({{1, 1, 1}})}}),
      AllOf(HasSubstr("nn.pad"), HasSubstr("pad_width"), HasSubstr("[[1, 1, 1]]"), HasSubstr("[before, after] pair")));
  EXPECT_THAT(type_error("nn.pad", {tensor_type({2}, f32), tensor_type({}, f32)}),
              AllOf(HasSubstr("nn.pad"), HasSubstr("pad_width")));
}

TEST(NnMirrorPad, SymmetricAndReflectMatchNumPy) {
  EXPECT_EQ(check_golden_cases("transform.json", "nn.mirror_pad"), 4);
}

TEST(NnMirrorPad, HandWorked) {
  Tensor x = tensor_of({1, 2, 3}, {3});
  EXPECT_THAT(elements(run_op("nn.mirror_pad", {x}, {{"pad_width", pairs({{2, 1}})}}).tensor()),
              ElementsAre(2, 1, 1, 2, 3, 3));
  EXPECT_THAT(elements(run_op("nn.mirror_pad", {x}, {{"pad_width", pairs({{2, 1}})}, {"mode", "REFLECT"}}).tensor()),
              ElementsAre(3, 2, 1, 2, 3, 2));
}

TEST(NnMirrorPad, Errors) {
  EXPECT_THAT(type_error("nn.mirror_pad", {tensor_type({3}, f32)}, {{"pad_width", pairs({{-1, 0}})}}),
              AllOf(HasSubstr("nn.mirror_pad"), HasSubstr("negative")));
  EXPECT_THAT(type_error("nn.mirror_pad", {tensor_type({3}, f32)}, {{"pad_width", pairs({{4, 0}})}}),
              AllOf(HasSubstr("nn.mirror_pad"), HasSubstr("SYMMETRIC padding of axis 0 by 4"), HasSubstr("(3)")));
  EXPECT_THAT(type_error("nn.mirror_pad", {tensor_type({3, 2}, f32)}, {{"pad_width", pairs({{1, 1}})}}),
              AllOf(HasSubstr("nn.mirror_pad"), HasSubstr("pad_width has 1 pairs"), HasSubstr("(3, 2)")));
}

TEST(NnDilate, MatchesNumPy) { EXPECT_EQ(check_golden_cases("transform.json", "nn.dilate"), 4); }

TEST(NnDilate, HandWorked) {
  Value out = run_op("nn.dilate", {tensor_of({1, 2}, {2})}, {{"strides", ints({3})}, {"dilation_value", 9.0}});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(1, 9, 9, 2));
}

TEST(NnDilate, Errors) {
  EXPECT_THAT(type_error("nn.dilate", {tensor_type({2, 3, 4}, f32)}),
              AllOf(HasSubstr("nn.dilate"), HasSubstr("strides (1, 1) has 2 values"), HasSubstr("(2, 3, 4)")));
  EXPECT_THAT(type_error("nn.dilate", {tensor_type({2}, f32)}, {{"strides", ints({0})}}),
              AllOf(HasSubstr("nn.dilate"), HasSubstr("strides[0] is 0")));
}

TEST(NnFifoBuffer, MatchesConcatenateAndSlice) { EXPECT_EQ(check_golden_cases("transform.json", "nn.fifo_buffer"), 6); }

TEST(NnFifoBuffer, HandWorked) {
  Value out = run_op("nn.fifo_buffer", {tensor_of({5}, {1}), tensor_of({1, 2, 3, 4}, {4})});
  EXPECT_THAT(elements(out.tensor()), ElementsAre(2, 3, 4, 5));
}

TEST(NnFifoBuffer, Errors) {
  EXPECT_THAT(
      type_error("nn.fifo_buffer", {tensor_type({1, 3}, f32), tensor_type({2, 4}, f32)}),
      AllOf(HasSubstr("nn.fifo_buffer"), HasSubstr("(1, 3)"), HasSubstr("(2, 4)"), HasSubstr("dimension 1 differs")));
  EXPECT_THAT(type_error("nn.fifo_buffer", {tensor_type({4, 3}, f32), tensor_type({4, 3}, f32)}),
              AllOf(HasSubstr("nn.fifo_buffer"), HasSubstr("shorter than the buffer")));
  EXPECT_THAT(type_error("nn.fifo_buffer", {tensor_type({1, 3}, f32), tensor_type({4, 3}, f32)},
                         {{"axis", AttrValue(int64_t{2})}}),
              AllOf(HasSubstr("nn.fifo_buffer"), HasSubstr("axis 2 is out of range")));
}

}  // namespace
}  // namespace weft::testing
