// nn activations: relu, leaky_relu, prelu, softmax, fast_softmax, log_softmax
// and dropout against golden values from gen_activation.py (PyTorch/NumPy),
// hand-worked cases, and their type-relation and attribute errors.
#include <gmock/gmock.h>

#include <cmath>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NnActivation, ReluMatchesTorch) { EXPECT_EQ(check_golden_cases("activation.json", "nn.relu"), 2); }

TEST(NnActivation, LeakyReluMatchesTorchWithDefaultAndGivenAlpha) {
  EXPECT_EQ(check_golden_cases("activation.json", "nn.leaky_relu"), 4);
}

TEST(NnActivation, PreluMatchesTorchOnEachChannelAxis) {
  EXPECT_EQ(check_golden_cases("activation.json", "nn.prelu"), 6);
}

TEST(NnActivation, SoftmaxMatchesTorchAlongEachAxisAndLargeLogits) {
  EXPECT_EQ(check_golden_cases("activation.json", "nn.softmax"), 8);
}

TEST(NnActivation, LogSoftmaxMatchesTorchAlongEachAxisAndLargeLogits) {
  EXPECT_EQ(check_golden_cases("activation.json", "nn.log_softmax"), 8);
}

TEST(NnActivation, FastSoftmaxMatchesTheReferenceApproximation) {
  EXPECT_EQ(check_golden_cases("activation.json", "nn.fast_softmax"), 6);
}

TEST(NnActivation, DropoutAtInferenceYieldsDataAndAllOnesMask) {
  EXPECT_EQ(check_golden_cases("activation.json", "nn.dropout"), 2);
}

TEST(NnActivation, HandWorkedLeakyReluAndPrelu) {
  Tensor x = tensor_of({-2, -1, 0, 3}, {1, 2, 2});
  Value leaky = run_op("nn.leaky_relu", {x}, {{"alpha", AttrValue(0.5)}});
  expect_close(leaky.tensor(), tensor_json({-1, -0.5, 0, 3}, {1, 2, 2}));
  // Channel c of axis 1 uses slope alpha[c]: row 0 by 0.1, row 1 by 0.2.
  Value prelu = run_op("nn.prelu", {x, tensor_of({0.1, 0.2}, {2})});
  expect_close(prelu.tensor(), tensor_json({-0.2, -0.1, 0, 3}, {1, 2, 2}));
}

TEST(NnActivation, HandWorkedSoftmaxOfEqualLogitsIsUniform) {
  Value out = run_op("nn.softmax", {tensor_of({5, 5, 5, 5}, {2, 2}, f64)}, {{"axis", AttrValue(int64_t{0})}});
  expect_close(out.tensor(), tensor_json({0.5, 0.5, 0.5, 0.5}, {2, 2}, f64));
  Value log = run_op("nn.log_softmax", {tensor_of({1, 1}, {1, 2}, f64)});
  expect_close(log.tensor(), tensor_json({-std::log(2.0), -std::log(2.0)}, {1, 2}, f64));
}

TEST(NnActivation, DropoutTypeIsATupleOfResultAndMask) {
  EXPECT_EQ(infer_op_type("nn.dropout", {tensor_type({2, 3}, f32)}),
            "(Tensor[(2, 3), float32], Tensor[(2, 3), float32])");
}

TEST(NnActivation, SoftmaxAxisOutOfRangeNamesOpAndShape) {
  std::string msg = type_error("nn.softmax", {tensor_type({2, 3}, f32)}, {{"axis", AttrValue(int64_t{2})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.softmax"), HasSubstr("(2, 3)"), HasSubstr("axis 2")));
  msg = type_error("nn.log_softmax", {tensor_type({2, 3}, f32)}, {{"axis", AttrValue(int64_t{-3})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.log_softmax"), HasSubstr("axis -3")));
}

TEST(NnActivation, PreluAlphaOfWrongLengthNamesBothShapes) {
  std::string msg = type_error("nn.prelu", {tensor_type({2, 3, 4}, f32), tensor_type({4}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.prelu"), HasSubstr("(2, 3, 4)"), HasSubstr("(4)")));
}

TEST(NnActivation, PreluRejectsNegativeAxisAsTheReferenceDoes) {
  std::string msg = type_error("nn.prelu", {tensor_type({2, 3}, f32), tensor_type({3}, f32)},
                               {{"axis", AttrValue(int64_t{-1})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.prelu"), HasSubstr("axis -1")));
}

TEST(NnActivation, WrongAttributeTypeIsRejected) {
  std::string msg = type_error("nn.leaky_relu", {tensor_type({2}, f32)}, {{"alpha", AttrValue("big")}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.leaky_relu"), HasSubstr("alpha")));
}

TEST(NnActivation, IntegerInputToAFloatKernelIsARunTimeErrorNamingTheOp) {
  Tensor x = Tensor::zeros({2}, DataType::Int(32));
  EXPECT_THAT(run_error("nn.relu", {x}), AllOf(HasSubstr("nn.relu"), HasSubstr("int32")));
}

}  // namespace
}  // namespace weft::testing
