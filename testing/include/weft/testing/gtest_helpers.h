// GoogleTest assertions for weft values, with failure messages that show
// where and how they differ:
//   EXPECT_TENSOR_NEAR(actual, expected, rtol, atol)  -- as np.testing.assert_allclose
//   EXPECT_TENSOR_EQ(actual, expected)                -- same dtype, shape and values
//   EXPECT_STRUCTURAL_EQ(actual, expected)            -- Exprs or IRModules, with a text diff
// Each wraps a function returning ::testing::AssertionResult, usable directly
// with EXPECT_TRUE when more control is needed (e.g. map_free_vars).
#pragma once

#include <gtest/gtest.h>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/tensor.h"

namespace weft::testing {

/// Success when dtype and shape match and every element satisfies
/// |actual - expected| <= atol + rtol * |expected| (NaNs match NaNs, infinities
/// match equal infinities), compared in double. The failure lists how many
/// elements differ, the largest absolute and relative differences and the
/// first few mismatches by index.
::testing::AssertionResult tensors_near(const Tensor& actual, const Tensor& expected, double rtol = 1e-7,
                                        double atol = 0.0);
/// Success when dtype, shape and every element's bytes are equal.
::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected);

/// Success when structural_equal(actual, expected, map_free_vars); the failure
/// shows both programs' Relay text as a line diff ("-" expected, "+" actual).
::testing::AssertionResult structurally_equal(const Expr& actual, const Expr& expected, bool map_free_vars = false);
::testing::AssertionResult structurally_equal(const IRModule& actual, const IRModule& expected);

}  // namespace weft::testing

#define EXPECT_TENSOR_NEAR(actual, expected, rtol, atol) \
  EXPECT_TRUE(::weft::testing::tensors_near((actual), (expected), (rtol), (atol)))
#define ASSERT_TENSOR_NEAR(actual, expected, rtol, atol) \
  ASSERT_TRUE(::weft::testing::tensors_near((actual), (expected), (rtol), (atol)))
#define EXPECT_TENSOR_EQ(actual, expected) EXPECT_TRUE(::weft::testing::tensors_equal((actual), (expected)))
#define ASSERT_TENSOR_EQ(actual, expected) ASSERT_TRUE(::weft::testing::tensors_equal((actual), (expected)))
#define EXPECT_STRUCTURAL_EQ(actual, expected) \
  EXPECT_TRUE(::weft::testing::structurally_equal((actual), (expected)))
#define ASSERT_STRUCTURAL_EQ(actual, expected) \
  ASSERT_TRUE(::weft::testing::structurally_equal((actual), (expected)))
