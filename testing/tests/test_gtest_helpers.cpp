// The assertion helpers pass on equal values and explain unequal ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "weft/testing/gtest_helpers.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

Tensor floats(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  for (size_t i = 0; i < values.size(); ++i) t.data_as<float>()[i] = values[i];
  return t;
}

std::string message(const ::testing::AssertionResult& r) { return r.message(); }

TEST(TensorsNear, AcceptsWithinToleranceAsAllclose) {
  EXPECT_TRUE(tensors_near(floats({2}, {1.0f, 100.0f}), floats({2}, {1.05f, 101.0f}), 0.01, 0.06));
  EXPECT_TENSOR_NEAR(floats({1}, {NAN}), floats({1}, {NAN}), 0.0, 0.0);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TENSOR_NEAR(floats({1}, {inf}), floats({1}, {inf}), 0.0, 0.0);
  EXPECT_FALSE(tensors_near(floats({1}, {inf}), floats({1}, {-inf}), 0.0, 1.0));
  EXPECT_FALSE(tensors_near(floats({1}, {NAN}), floats({1}, {0.0f}), 0.0, 1.0));
}

TEST(TensorsNear, FailureListsIndexValuesAndLargestDifferences) {
  const auto r = tensors_near(floats({2, 2}, {1, 2, 3, 4}), floats({2, 2}, {1, 2, 3, 5}), 1e-5, 0.0);
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("1 of 4 elements of Tensor[(2, 2), float32] differ beyond rtol=1e-05, atol=0"));
  EXPECT_THAT(message(r), HasSubstr("max abs diff 1, max rel diff 0.20000000000000001"));
  EXPECT_THAT(message(r), HasSubstr("at [1, 1]: actual 4, expected 5"));
}

TEST(TensorsNear, TypeMismatchIsNamed) {
  const auto r = tensors_near(floats({2}, {1, 2}), floats({1, 2}, {1, 2}));
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("differ in type: actual Tensor[(2), float32], expected Tensor[(1, 2), float32]"));
}

TEST(TensorsNear, ManyMismatchesAreSummarized) {
  const auto r = tensors_near(floats({12}, std::vector<float>(12, 1.0f)), floats({12}, std::vector<float>(12, 0.0f)));
  EXPECT_THAT(message(r), HasSubstr("... and 2 more"));
}

TEST(TensorsEqual, ComparesBytes) {
  EXPECT_TENSOR_EQ(floats({3}, {1, 2, 3}), floats({3}, {1, 2, 3}));
  const auto r = tensors_equal(floats({3}, {1, 2, 3}), floats({3}, {1, 2.5, 3}));
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("1 of 3 elements of Tensor[(3), float32] differ\n  at [1]: actual 2, expected 2.5"));
  EXPECT_FALSE(tensors_equal(floats({1}, {0.0f}), floats({1}, {-0.0f})));
}

TEST(StructurallyEqual, AlphaEquivalentFunctionsAreEqual) {
  const Var x = var("x", tensor_type({4})), y = var("y", tensor_type({4}));
  EXPECT_STRUCTURAL_EQ(function({x}, call("exp", {x})), function({y}, call("exp", {y})));
}

TEST(StructurallyEqual, FailureShowsALineDiff) {
  const Var x = var("x", tensor_type({4}));
  const auto r = structurally_equal(function({x}, call("exp", {call("negative", {x})})),
                                    function({x}, call("exp", {call("abs", {x})})));
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("(- expected, + actual)"));
  EXPECT_THAT(message(r), HasSubstr("-   %0 = abs(%x);\n+   %0 = negative(%x);"));
}

TEST(StructurallyEqual, SameTextDifferentFreeVariablesIsExplained) {
  const Var a = var("x", tensor_type({4})), b = var("x", tensor_type({4}));
  const auto r = structurally_equal(call("exp", {a}), call("exp", {b}));
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("texts are identical"));
  EXPECT_TRUE(structurally_equal(call("exp", {a}), call("exp", {b}), /*map_free_vars=*/true));
}

TEST(StructurallyEqual, ComparesModules) {
  const Var x = var("x", tensor_type({4})), y = var("y", tensor_type({4}));
  EXPECT_STRUCTURAL_EQ(IRModule::from_function(function({x}, x)), IRModule::from_function(function({y}, y)));
  EXPECT_FALSE(structurally_equal(IRModule::from_function(function({x}, x)),
                                  IRModule::from_function(function({y}, call("exp", {y})))));
}

}  // namespace
}  // namespace weft::testing
