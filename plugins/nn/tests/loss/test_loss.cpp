// nn.cross_entropy, nn.cross_entropy_with_logits and nn.nll_loss against golden
// values from gen_loss.py (PyTorch), hand-worked cases and relation errors.
#include <gmock/gmock.h>

#include <cmath>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const DataType i64 = DataType::Int(64);

TEST(NnLoss, CrossEntropyMatchesTorchSoftLabelCrossEntropy) {
  EXPECT_EQ(check_golden_cases("loss.json", "nn.cross_entropy"), 2);
}

TEST(NnLoss, CrossEntropyWithLogitsMatchesTheReferenceFormula) {
  EXPECT_EQ(check_golden_cases("loss.json", "nn.cross_entropy_with_logits"), 2);
}

TEST(NnLoss, NllLossMatchesTorchForEachReductionIgnoreIndexAndSpatialTargets) {
  EXPECT_EQ(check_golden_cases("loss.json", "nn.nll_loss"), 12);
}

TEST(NnLoss, HandWorkedNllLossMeanDividesByTheWeightsOfCountedTargets) {
  // Losses: -(-1) * 2 = 2 for target 0, -(-3) * 1 = 3 for target 1; ignored target (-100) adds nothing.
  Tensor pred = tensor_of({-1, -2, -4, -3, -5, -6}, {3, 2}, f64);
  Tensor targets = tensor_of({0, 1, -100}, {3}, i64);
  Tensor weights = tensor_of({2, 1}, {2}, f64);
  Value mean = run_op("nn.nll_loss", {pred, targets, weights});
  expect_close(mean.tensor(), nlohmann::json{{"shape", nlohmann::json::array()}, {"dtype", "float64"}, {"data", {5.0 / 3}}});
  Value none = run_op("nn.nll_loss", {pred, targets, weights}, {{"reduction", AttrValue("none")}});
  expect_close(none.tensor(), tensor_json({2, 3, 0}, {3}, f64));
}

TEST(NnLoss, HandWorkedCrossEntropy) {
  // -(log(0.5) * 1 + log(0.25) * 1) / 2.
  Tensor x = tensor_of({0.5, 0.5, 0.75, 0.25}, {2, 2}, f64);
  Tensor y = tensor_of({1, 0, 0, 1}, {2, 2}, f64);
  Value out = run_op("nn.cross_entropy", {x, y});
  expect_close(out.tensor(), nlohmann::json{{"shape", nlohmann::json::array()},
                                            {"dtype", "float64"},
                                            {"data", {-(std::log(0.5) + std::log(0.25)) / 2}}});
}

TEST(NnLoss, OutputTypes) {
  EXPECT_EQ(infer_op_type("nn.cross_entropy", {tensor_type({3, 4}, f32), tensor_type({3, 4}, f32)}),
            "float32");
  EXPECT_EQ(infer_op_type("nn.nll_loss", {tensor_type({2, 3, 4}, f32), tensor_type({2, 4}, i64), tensor_type({3}, f32)},
                          {{"reduction", AttrValue("none")}}),
            "Tensor[(2, 4), float32]");
}

TEST(NnLoss, CrossEntropyShapesMustAgree) {
  std::string msg = type_error("nn.cross_entropy", {tensor_type({3, 4}, f32), tensor_type({3, 5}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.cross_entropy"), HasSubstr("(3, 4)"), HasSubstr("(3, 5)")));
}

TEST(NnLoss, NllLossRelationErrorsNameTheShapes) {
  std::string msg = type_error("nn.nll_loss", {tensor_type({4, 3}, f32), tensor_type({4, 1}, i64), tensor_type({3}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.nll_loss"), HasSubstr("one dimension larger"), HasSubstr("(4, 1)")));
  msg = type_error("nn.nll_loss", {tensor_type({4, 3}, f32), tensor_type({4}, i64), tensor_type({5}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("class dimension"), HasSubstr("(4, 3)"), HasSubstr("(5)")));
  msg = type_error("nn.nll_loss", {tensor_type({4, 3}, f32), tensor_type({4}, f32), tensor_type({3}, f32)});
  EXPECT_THAT(msg, HasSubstr("integer dtype"));
}

TEST(NnLoss, NllLossRejectsAnUnknownReduction) {
  std::string msg = type_error("nn.nll_loss", {tensor_type({4, 3}, f32), tensor_type({4}, i64), tensor_type({3}, f32)},
                               {{"reduction", AttrValue("average")}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.nll_loss"), HasSubstr("reduction"), HasSubstr("average")));
}

TEST(NnLoss, NllLossTargetOutsideTheClassesIsARunTimeError) {
  try {
    run_op("nn.nll_loss", {tensor_of({-1, -2}, {1, 2}, f64), tensor_of({2}, {1}, i64), tensor_of({1, 1}, {2}, f64)});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), AllOf(HasSubstr("nn.nll_loss"), HasSubstr("target 2")));
  }
}

}  // namespace
}  // namespace weft::testing
