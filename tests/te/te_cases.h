// The TE graphs the suite lowers, schedules and evaluates (relu, broadcast
// add, matmul, padded conv2d, argmax, softmax), and their NumPy golden data
// in data/ (made by data/make_golden.py).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "weft/te/evaluate.h"
#include "weft/te/lower.h"
#include "weft/te/printer.h"
#include "weft/tensor_io.h"

namespace weft::te::cases {

inline NamedTensors golden(const std::string& name) {
  return load_npz(std::string(WEFT_TE_DATA_DIR) + "/" + name + ".npz");
}

inline weft::Tensor member(const NamedTensors& data, const std::string& name) {
  for (const auto& [n, t] : data) {
    if (n == name) return t;
  }
  ADD_FAILURE() << "no member " << name << " in the golden data";
  return {};
}

/// Exact equality, element by element, with the first difference reported.
inline void expect_equal(const weft::Tensor& actual, const weft::Tensor& expected) {
  ASSERT_TRUE(actual.defined() && expected.defined());
  ASSERT_EQ(actual.shape(), expected.shape());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    ASSERT_EQ(actual.element_as_double(i), expected.element_as_double(i)) << "element " << i;
  }
}

/// Equality within `ulps` float32 units in the last place of each expected value.
inline void expect_within_ulps(const weft::Tensor& actual, const weft::Tensor& expected, int ulps) {
  ASSERT_TRUE(actual.defined() && expected.defined());
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double e = expected.element_as_double(i);
    ASSERT_NEAR(actual.element_as_double(i), e, ulps * std::ldexp(std::fabs(e), -23)) << "element " << i;
  }
}

inline Tensor relu(const Tensor& x) {
  return compute(x.shape(), [&](const std::vector<Var>& i) { return max(x(i[0], i[1]), 0.0); }, "relu");
}

/// a (3, 1, 4) + b (5, 1) with NumPy broadcasting: (3, 5, 4).
inline Tensor broadcast_add(const Tensor& a, const Tensor& b) {
  return compute({a.shape()[0], b.shape()[0], a.shape()[2]},
                 [&](const std::vector<Var>& i) { return a(i[0], 0, i[2]) + b(i[1], 0); }, "add");
}

inline Tensor matmul(const Tensor& a, const Tensor& b) {
  IterVar k = reduce_axis(a.shape()[1], "k");
  return compute({a.shape()[0], b.shape()[1]},
                 [&](const std::vector<Var>& i) { return sum(a(i[0], k->var) * b(k->var, i[1]), {k}); }, "matmul");
}

/// NCHW x OIHW convolution with symmetric padding through pad() (bounds-safe).
inline Tensor conv2d(const Tensor& x, const Tensor& w, int64_t padding, int64_t stride) {
  Tensor padded = pad(x, {0, 0, padding, padding}, {0, 0, padding, padding}, 0.0, "pad");
  const int64_t kh = w.shape()[2], kw = w.shape()[3];
  const int64_t oh = (x.shape()[2] + 2 * padding - kh) / stride + 1, ow = (x.shape()[3] + 2 * padding - kw) / stride + 1;
  IterVar rc = reduce_axis(w.shape()[1], "rc"), ry = reduce_axis(kh, "ry"), rx = reduce_axis(kw, "rx");
  return compute(
      {x.shape()[0], w.shape()[0], oh, ow},
      [&](const std::vector<Var>& i) {
        return sum(padded(i[0], rc->var, i[2] * stride + ry->var, i[3] * stride + rx->var) * w(i[1], rc->var, ry->var, rx->var),
                   {rc, ry, rx});
      },
      "conv2d");
}

/// (index, value) of the maximum along axis 1, the first index on ties: TVM's
/// argmax reducer, select(x.value >= y.value, x, y).
inline std::vector<Tensor> argmax(const Tensor& x) {
  CommReducer reducer = comm_reducer(
      [](const std::vector<Var>& l, const std::vector<Var>& r) {
        PrimExpr keep = l[1] >= r[1];
        return std::vector<PrimExpr>{select(keep, l[0], r[0]), select(keep, l[1], r[1])};
      },
      {PrimExpr(-1), min_value(x.dtype())}, "argmax");
  IterVar k = reduce_axis(x.shape()[1], "k");
  return compute_multi(
      {x.shape()[0]}, [&](const std::vector<Var>& i) { return reduce(reducer, {k->var, x(i[0], k->var)}, {k}); },
      "argmax");
}

/// Softmax along axis 1 in four stages: max, exp(x - max), sum, divide.
struct Softmax {
  Tensor max_stage, exp_stage, sum_stage, out;
};
inline Softmax softmax(const Tensor& x) {
  const int64_t n = x.shape()[0], c = x.shape()[1];
  Softmax s;
  IterVar k1 = reduce_axis(c, "k");
  s.max_stage = compute({n}, [&](const std::vector<Var>& i) { return max(x(i[0], k1->var), {k1}); }, "max");
  s.exp_stage = compute({n, c}, [&](const std::vector<Var>& i) { return exp(x(i[0], i[1]) - s.max_stage(i[0])); }, "exp");
  IterVar k2 = reduce_axis(c, "k");
  s.sum_stage = compute({n}, [&](const std::vector<Var>& i) { return sum(s.exp_stage(i[0], k2->var), {k2}); }, "sum");
  s.out = compute({n, c}, [&](const std::vector<Var>& i) { return s.exp_stage(i[0], i[1]) / s.sum_stage(i[0]); }, "softmax");
  return s;
}

}  // namespace weft::te::cases
