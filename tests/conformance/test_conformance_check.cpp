// The suite's own yardstick, on hand-worked values: normalized error and the
// per-dtype tolerances, so a wrong target result cannot pass unnoticed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "conformance_check.h"
#include "support/op_test.h"

namespace weft::testing {
namespace {

TEST(NormalizedError, IsTheLargestDifferenceOverTheLargestReferenceMagnitudeOrOne) {
  // max |a - b| = 0.5 (element 1), max |want| = 4.
  EXPECT_DOUBLE_EQ(normalized_error(tensor_of({1, 2.5, -4}, {3}), tensor_of({1, 2, -4}, {3})), 0.125);
  // Below magnitude 1 the difference is absolute: 0.25 / max(1, 0.5).
  EXPECT_DOUBLE_EQ(normalized_error(tensor_of({0.25, 0.5}, {2}), tensor_of({0, 0.5}, {2})), 0.25);
  EXPECT_EQ(normalized_error(tensor_of({7, -3}, {2}), tensor_of({7, -3}, {2})), 0);
}

TEST(NormalizedError, MatchesNanOnlyWithNanAndInfinityOnlyWithItself) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(normalized_error(tensor_of({nan, inf, 1}, {3}), tensor_of({nan, inf, 1}, {3})), 0);
  EXPECT_TRUE(std::isinf(normalized_error(tensor_of({1}, {1}), tensor_of({nan}, {1}))));
  EXPECT_TRUE(std::isinf(normalized_error(tensor_of({nan}, {1}), tensor_of({1}, {1}))));
  EXPECT_TRUE(std::isinf(normalized_error(tensor_of({-inf}, {1}), tensor_of({inf}, {1}))));
}

TEST(ConformanceTolerance, IsExactForIntegersAndBoolAndLoosensWithTheMantissa) {
  EXPECT_EQ(conformance_tolerance(DataType::Int(32), CaseKind::kOp), 0);
  EXPECT_EQ(conformance_tolerance(DataType::UInt(8), CaseKind::kModel), 0);
  EXPECT_EQ(conformance_tolerance(DataType::Bool(), CaseKind::kOp), 0);
  EXPECT_EQ(conformance_tolerance(DataType::Float(64), CaseKind::kOp), 1e-9);
  EXPECT_EQ(conformance_tolerance(DataType::Float(32), CaseKind::kOp), 1e-5);
  EXPECT_EQ(conformance_tolerance(DataType::Float(32), CaseKind::kModel), 1e-4);
  EXPECT_EQ(conformance_tolerance(DataType::Float(16), CaseKind::kOp), 1e-2);
  EXPECT_EQ(conformance_tolerance(DataType::BFloat(16), CaseKind::kOp), 2e-2);
}

TEST(Conformant, FailsAnIntegerOutputOffByOne) {
  // |3 - 2| / max(1, 2).
  ::testing::AssertionResult r = conformant(Value(tensor_of({1, 3}, {2}, DataType::Int(32))),
                                            Value(tensor_of({1, 2}, {2}, DataType::Int(32))), CaseKind::kOp);
  EXPECT_FALSE(r);
  EXPECT_STREQ(r.message(), "output 0 (int32): normalized error 0.5 over the tolerance 0");
}

TEST(Conformant, FailsAFloat32OutputJustOverTheToleranceAndPassesOneJustUnder) {
  const Value want(tensor_of({100, -50}, {2}));
  EXPECT_FALSE(conformant(Value(tensor_of({100.002, -50}, {2})), want, CaseKind::kOp));
  EXPECT_TRUE(conformant(Value(tensor_of({100.0005, -50}, {2})), want, CaseKind::kOp));
  // A whole model may be ten times further off.
  EXPECT_TRUE(conformant(Value(tensor_of({100.002, -50}, {2})), want, CaseKind::kModel));
}

TEST(Conformant, FailsAnotherShapeDtypeOrNumberOfOutputs) {
  const Value want(tensor_of({1, 2}, {2}));
  EXPECT_STREQ(conformant(Value(tensor_of({1, 2}, {1, 2})), want, CaseKind::kOp).message(),
               "output 0 is float32 of { 1, 2 }, want float32 of { 2 }");
  EXPECT_FALSE(conformant(Value(tensor_of({1, 2}, {2}, DataType::Float(64))), want, CaseKind::kOp));
  EXPECT_FALSE(conformant(Value::tuple({want, want}), want, CaseKind::kOp));
}

TEST(BitIdentical, FailsOnOneUlp) {
  const Value want(tensor_of({1}, {1}));
  ::testing::AssertionResult r = bit_identical(Value(tensor_of({std::nextafter(1.0f, 2.0f)}, {1})), want);
  EXPECT_FALSE(r);
  EXPECT_THAT(r.message(), ::testing::StartsWith("output 0 differs from the interpreter's bits"));
  EXPECT_TRUE(bit_identical(Value(tensor_of({1}, {1})), want));
}

}  // namespace
}  // namespace weft::testing
