#include "weft/testing/gtest_helpers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "weft/printer.h"
#include "weft/structural.h"

namespace weft::testing {

namespace {

constexpr int kMaxListed = 10;

/// "[1, 0, 2]": the C-order index of flat element `flat`.
std::string index_text(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string number_text(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

/// Dtype, shape and device agree; otherwise the failure saying which does not.
std::optional<::testing::AssertionResult> layout_mismatch(const Tensor& actual, const Tensor& expected) {
  if (!actual.defined() || !expected.defined()) {
    if (actual.defined() == expected.defined()) return std::nullopt;
    return ::testing::AssertionFailure() << (actual.defined() ? "expected" : "actual") << " tensor is undefined";
  }
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "tensors differ in type: actual " << describe(actual) << ", expected "
                                         << describe(expected);
  }
  if (actual.device().type != kDLCPU || expected.device().type != kDLCPU) {
    return ::testing::AssertionFailure() << "tensors must be on the CPU to be compared";
  }
  return std::nullopt;
}

}  // namespace

::testing::AssertionResult tensors_near(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (auto mismatch = layout_mismatch(actual, expected)) return *mismatch;
  if (!actual.defined()) return ::testing::AssertionSuccess();
  int64_t count = 0;
  double max_abs = 0.0, max_rel = 0.0;
  std::ostringstream listed;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = actual.element_as_double(i), e = expected.element_as_double(i);
    bool close;
    if (std::isnan(a) || std::isnan(e)) close = std::isnan(a) && std::isnan(e);
    else if (std::isinf(a) || std::isinf(e)) close = a == e;
    else close = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    if (close) continue;
    const double abs_diff = std::fabs(a - e);
    if (!std::isnan(abs_diff)) {
      max_abs = std::max(max_abs, abs_diff);
      if (e != 0.0) max_rel = std::max(max_rel, abs_diff / std::fabs(e));
    }
    if (count++ < kMaxListed) {
      listed << "\n  at " << index_text(i, actual.shape()) << ": actual " << number_text(a) << ", expected "
             << number_text(e);
    }
  }
  if (count == 0) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  std::ostringstream tolerance;  // default precision: rtol=1e-05, not 1.0000000000000001e-05
  tolerance << "rtol=" << rtol << ", atol=" << atol;
  failure << count << " of " << actual.numel() << " elements of " << describe(actual) << " differ beyond "
          << tolerance.str() << " (max abs diff " << number_text(max_abs)
          << ", max rel diff " << number_text(max_rel) << ")" << listed.str();
  if (count > kMaxListed) failure << "\n  ... and " << (count - kMaxListed) << " more";
  return failure;
}

::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected) {
  if (auto mismatch = layout_mismatch(actual, expected)) return *mismatch;
  if (!actual.defined()) return ::testing::AssertionSuccess();
  const size_t width = actual.dtype().bytes();
  const auto* a = static_cast<const char*>(actual.data());
  const auto* e = static_cast<const char*>(expected.data());
  int64_t count = 0;
  std::ostringstream listed;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    if (std::memcmp(a + i * width, e + i * width, width) == 0) continue;
    if (count++ < kMaxListed) {
      listed << "\n  at " << index_text(i, actual.shape()) << ": actual " << number_text(actual.element_as_double(i))
             << ", expected " << number_text(expected.element_as_double(i));
    }
  }
  if (count == 0) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << count << " of " << actual.numel() << " elements of " << describe(actual) << " differ"
          << listed.str();
  if (count > kMaxListed) failure << "\n  ... and " << (count - kMaxListed) << " more";
  return failure;
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// A line diff of expected -> actual: common prefix and suffix trimmed, the
/// middle aligned by longest common subsequence when it is small enough to be
/// worth it, else shown whole as removed and added lines.
std::string line_diff(const std::string& expected_text, const std::string& actual_text) {
  const auto e = split_lines(expected_text), a = split_lines(actual_text);
  size_t prefix = 0;
  while (prefix < e.size() && prefix < a.size() && e[prefix] == a[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < e.size() - prefix && suffix < a.size() - prefix &&
         e[e.size() - 1 - suffix] == a[a.size() - 1 - suffix]) {
    ++suffix;
  }
  const size_t n = e.size() - prefix - suffix, m = a.size() - prefix - suffix;
  std::ostringstream out;
  if (prefix > 0) out << "  ... " << prefix << " equal lines\n";
  constexpr size_t kMaxAligned = 2000;
  if (n <= kMaxAligned && m <= kMaxAligned) {
    // lcs[i][j]: common subsequence length of e[prefix+i..] and a[prefix+j..].
    std::vector<std::vector<uint16_t>> lcs(n + 1, std::vector<uint16_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;) {
      for (size_t j = m; j-- > 0;) {
        lcs[i][j] = e[prefix + i] == a[prefix + j] ? static_cast<uint16_t>(lcs[i + 1][j + 1] + 1)
                                                   : std::max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && e[prefix + i] == a[prefix + j]) {
        out << "  " << e[prefix + i] << "\n";
        ++i, ++j;
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        out << "- " << e[prefix + i++] << "\n";
      } else {
        out << "+ " << a[prefix + j++] << "\n";
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) out << "- " << e[prefix + i] << "\n";
    for (size_t j = 0; j < m; ++j) out << "+ " << a[prefix + j] << "\n";
  }
  if (suffix > 0) out << "  ... " << suffix << " equal lines\n";
  return out.str();
}

::testing::AssertionResult text_difference(const std::string& actual_text, const std::string& expected_text) {
  auto failure = ::testing::AssertionFailure();
  failure << "programs are not structurally equal";
  if (actual_text == expected_text) {
    return failure << "; their texts are identical, so they differ in what the text does not show "
                      "(the identity of free variables, or constants' contents beyond the printed ones):\n"
                   << actual_text;
  }
  return failure << " (- expected, + actual):\n" << line_diff(expected_text, actual_text);
}

}  // namespace

::testing::AssertionResult structurally_equal(const Expr& actual, const Expr& expected, bool map_free_vars) {
  if (structural_equal(actual, expected, map_free_vars)) return ::testing::AssertionSuccess();
  return text_difference(to_text(actual), to_text(expected));
}

::testing::AssertionResult structurally_equal(const IRModule& actual, const IRModule& expected) {
  if (structural_equal(actual, expected)) return ::testing::AssertionSuccess();
  return text_difference(to_text(actual), to_text(expected));
}

}  // namespace weft::testing
