// A table-driven check_grad runner for op gradients: each case builds a
// float64 function around one op and says how to draw its inputs; every case
// runs in both AD modes.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "weft/expr.h"
#include "weft/gradient.h"
#include "weft/passes.h"
#include "weft/testing/check_grad.h"
#include "weft/type.h"

namespace weft::testing {

struct GradCase {
  std::string name;
  std::function<Function()> build;
  CheckGradOptions options;                          // mode is set per run
  std::vector<size_t> test_inputs = {};              // empty: every parameter
  std::function<std::vector<Tensor>()> inputs = {};  // empty: drawn by check_grad
};

inline std::ostream& operator<<(std::ostream& os, const GradCase& c) { return os << c.name; }

inline Type f64(std::vector<int64_t> shape) { return tensor_type(std::move(shape), DataType::Float(64)); }

using OpAttrs = std::vector<std::pair<std::string, AttrValue>>;

/// The parameters %x0: shapes[0], ... and the call op(%x0, ..., attrs).
struct OpCall {
  std::vector<Var> params;
  Expr call;
};

inline OpCall op_call(const std::string& op, const std::vector<std::vector<int64_t>>& shapes, const OpAttrs& attrs) {
  OpCall c;
  std::vector<Expr> args;
  for (size_t i = 0; i < shapes.size(); ++i) {
    c.params.push_back(var("x" + std::to_string(i), f64(shapes[i])));
    args.push_back(c.params.back());
  }
  c.call = call(op, args, attrs);
  return c;
}

/// fn(<c's parameters>, %w: weight) { c's call * %w }.
inline Function weighted(OpCall c, Type weight) {
  Var w = var("w", std::move(weight));
  c.params.push_back(w);
  return function(c.params, call("multiply", {c.call, w}));
}

/// fn(%x0: shapes[0], ...) { op(%x0, ..., attrs) }.
inline std::function<Function()> op_fn(std::string op, std::vector<std::vector<int64_t>> shapes, OpAttrs attrs = {}) {
  return [=] {
    OpCall c = op_call(op, shapes, attrs);
    return function(c.params, c.call);
  };
}

/// fn(%x0: shapes[0], ..., %w: out_shape) { op(%x0, ..., attrs) * %w }. The
/// drawn weights make the seed non-uniform, so a gradient that moves elements
/// to the wrong place (a permutation, a slice) fails the check, which
/// op_fn's all-ones seed cannot show for such ops.
inline std::function<Function()> weighted_op_fn(std::string op, std::vector<std::vector<int64_t>> shapes,
                                                std::vector<int64_t> out_shape, OpAttrs attrs = {}) {
  return [=] { return weighted(op_call(op, shapes, attrs), f64(out_shape)); };
}

/// weighted_op_fn with the weight shaped as the op's inferred output.
inline std::function<Function()> seeded_op_fn(std::string op, std::vector<std::vector<int64_t>> shapes,
                                              OpAttrs attrs = {}) {
  return [=] {
    OpCall c = op_call(op, shapes, attrs);
    c.call = infer_type(c.call);
    Type out = c.call->checked_type();
    return weighted(std::move(c), std::move(out));
  };
}

/// Inputs drawn around `mean` with spread `scale` (away from kinks and poles).
inline CheckGradOptions around(double mean, double scale) {
  CheckGradOptions o;
  o.mean = mean;
  o.scale = scale;
  return o;
}

/// gradient_check of the case in `mode`, as a GoogleTest assertion.
inline void expect_gradients_match(const GradCase& c, GradientMode mode) {
  CheckGradOptions o = c.options;
  o.mode = mode;
  std::vector<Tensor> inputs = c.inputs ? c.inputs() : std::vector<Tensor>{};
  EXPECT_TRUE(check_grad(c.build(), inputs, c.test_inputs, o)) << c.name << " in " << gradient_mode_name(mode);
}

}  // namespace weft::testing
