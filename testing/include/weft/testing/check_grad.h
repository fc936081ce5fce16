// Numerical gradient checking, as tvm.relay.testing.check_grad: the gradient
// pass's analytic gradients against central differences of the function.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "weft/gradient.h"
#include "weft/tensor.h"

namespace weft::testing {

struct CheckGradOptions {
  /// The step of the central differences (f(x + eps) - f(x - eps)) / (2 eps).
  double eps = 1e-6;
  /// An element matches when |analytic - numeric| <= atol + rtol * |numeric|
  /// (np.testing.assert_allclose with the numeric gradient as the desired value).
  double atol = 1e-5;
  double rtol = 1e-3;
  /// Inputs not given are drawn as mean + scale * standard_normal() per
  /// element, scale defaulting to 10 * eps, as the reference does.
  std::optional<double> scale;
  double mean = 0.0;
  GradientMode mode = GradientMode::kHigherOrder;
  /// Seed of the NumPy-compatible generator the inputs are drawn from.
  uint32_t seed = 0;
};

/// The first element of one parameter whose gradients disagree.
struct GradMismatch {
  std::vector<int64_t> index;  // position in the parameter, C order
  double analytic = 0.0;
  double numeric = 0.0;
};

struct ParamGradCheck {
  std::string name;        // the parameter's user-facing name (weft/names.h)
  int64_t elements = 0;    // how many were compared
  int64_t mismatches = 0;  // how many of them disagree
  double max_abs_error = 0.0;
  std::optional<GradMismatch> first_mismatch;
  bool ok() const { return mismatches == 0; }
};

struct GradCheckReport {
  std::vector<ParamGradCheck> params;  // the tested parameters, in order
  bool ok() const;
  /// One line per failing parameter: "gradient of %w at index (0, 2):
  /// analytic 1.5, numeric 3 (4 of 6 elements differ, max |error| 1.5)".
  std::string message() const;
};

/// Runs the check. `inputs` holds one tensor per parameter of `fn` in order
/// (an undefined Tensor() for one to draw from its type), or is empty to draw
/// them all; drawn ones come from one generator, in parameter order. `test_inputs` lists the
/// indices of the parameters whose gradients are compared (empty: all). The
/// numeric gradient of an element is that of the sum of every output element.
/// Parameters that are perturbed must be float32 or float64 tensors. A program
/// that does not type-check, an op without a gradient, or inputs that do not
/// match the parameters are a weft::Error.
GradCheckReport gradient_check(const Function& fn, std::vector<Tensor> inputs = {},
                               const std::vector<size_t>& test_inputs = {}, const CheckGradOptions& options = {});
/// The same check for `mod`'s main, which may call the module's other functions.
GradCheckReport gradient_check(const IRModule& mod, std::vector<Tensor> inputs = {},
                               const std::vector<size_t>& test_inputs = {}, const CheckGradOptions& options = {});

/// gradient_check as a GoogleTest assertion: EXPECT_TRUE(check_grad(fn)).
::testing::AssertionResult check_grad(const Function& fn, std::vector<Tensor> inputs = {},
                                      const std::vector<size_t>& test_inputs = {},
                                      const CheckGradOptions& options = {});

}  // namespace weft::testing
