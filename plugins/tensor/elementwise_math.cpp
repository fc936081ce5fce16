// Elementwise math: add, subtract, multiply, divide, power, maximum, minimum,
// mod, floor_divide, floor_mod (NumPy broadcasting) and the unary functions
// negative, exp, abs, log, sqrt, rsqrt, tanh, sigmoid, erf, floor, ceil, round,
// sign, clip. Semantics are TOPI's: integer divide and mod truncate (C fmod),
// floor_mod and floor_divide round toward minus infinity, round goes half to even.
// Integer results that overflow wrap in two's complement as NumPy's do
// (weft/sdk/integer_math.hpp), so INT_MIN / -1 is INT_MIN, not a trap.
#include <cmath>
#include <optional>
#include <type_traits>

#include <weft/sdk/gradient.hpp>
#include <weft/sdk/integer_math.hpp>

#include "constant_arithmetic.h"
#include "kernel_util.h"
#include "rewrite_match.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

enum class Dtypes { kFloat, kNumber };

template <typename F>
void visit(Dtypes which, DLDataType dt, const std::string& op, F&& f) {
  if (which == Dtypes::kFloat) visit_float(dt, op, f);
  else visit_number(dt, op, f);
}

/// The stride of a row-major tensor of shape `in` along each dim of the shape
/// `out` it broadcasts to: 0 where it is broadcast (a missing or size-1 dim).
Shape broadcast_strides(const Shape& in, const Shape& out) {
  Shape strides(out.size(), 0), own = row_major_strides(in);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) strides[lead + d] = in[d] == 1 ? 0 : own[d];
  return strides;
}

/// The output dims with each input's strides along them, size-1 dims dropped
/// and neighbours merged where both inputs step through them alike (so a
/// weight times a per-channel scale walks rows as long as a channel).
struct BroadcastWalk {
  Shape extents, a, b;
};

BroadcastWalk merged_walk(const Shape& sa, const Shape& sb, const Shape& so) {
  Shape ta = broadcast_strides(sa, so), tb = broadcast_strides(sb, so);
  BroadcastWalk w;
  for (size_t d = so.size(); d-- > 0;) {
    if (so[d] == 1) continue;
    if (!w.extents.empty() && ta[d] == w.a.front() * w.extents.front() && tb[d] == w.b.front() * w.extents.front()) {
      w.extents.front() *= so[d];
      continue;
    }
    w.extents.insert(w.extents.begin(), so[d]);
    w.a.insert(w.a.begin(), ta[d]);
    w.b.insert(w.b.begin(), tb[d]);
  }
  if (w.extents.empty()) w = {{1}, {0}, {0}};
  return w;
}

/// o[i] = f(a[..], b[..]) with NumPy broadcasting, walking the output a row
/// (its last merged dim) at a time with each input's offset kept by an
/// odometer: no per-element index arithmetic, nothing allocated per element.
template <typename T, typename F>
void broadcast_apply(const Shape& sa, const Shape& sb, const Shape& so, const T* a, const T* b, T* o, const F& f) {
  int64_t total = product(so);
  if (total == 0) return;
  BroadcastWalk w = merged_walk(sa, sb, so);
  size_t last = w.extents.size() - 1;
  int64_t inner = w.extents[last], ia = w.a[last], ib = w.b[last];
  Shape index(w.extents.size(), 0);
  int64_t off_a = 0, off_b = 0;
  for (int64_t row = 0, rows = total / inner; row < rows; ++row, o += inner) {
    for (int64_t j = 0; j < inner; ++j) o[j] = f(a[off_a + j * ia], b[off_b + j * ib]);
    for (size_t d = last; d-- > 0;) {
      off_a += w.a[d];
      off_b += w.b[d];
      if (++index[d] < w.extents[d]) break;
      off_a -= w.a[d] * w.extents[d];
      off_b -= w.b[d] * w.extents[d];
      index[d] = 0;
    }
  }
}

/// out[i] = f(lhs[..], rhs[..]) with NumPy broadcasting.
template <typename F>
Kernel broadcast_kernel(std::string op, Dtypes dtypes, F f) {
  return [op, dtypes, f](const KernelArgs& k) {
    const TensorView& out = k.outputs.at(0);
    visit(dtypes, out.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      broadcast_apply(k.inputs.at(0).shape(), k.inputs.at(1).shape(), out.shape(), k.inputs[0].data<T>(),
                      k.inputs[1].data<T>(), out.data<T>(), f);
    });
  };
}

/// out[i] = f(data[i]).
template <typename F>
Kernel map_kernel(std::string op, Dtypes dtypes, F f) {
  return [op, dtypes, f](const KernelArgs& k) {
    const TensorView& out = k.outputs.at(0);
    visit(dtypes, out.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      const T* x = k.inputs.at(0).data<T>();
      T* o = out.data<T>();
      for (int64_t i = 0, n = out.numel(); i < n; ++i) o[i] = f(x[i]);
    });
  };
}

/// A clip bound cast to the dtype as TOPI does (truncated toward zero), clamped
/// to an integer dtype's range: a bound beyond the range bounds nothing.
template <typename T>
T clip_bound(double bound) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(bound)) throw Error("clip: a NaN bound has no value in an integer dtype");
    return saturate_cast<T>(bound);
  } else {
    return static_cast<T>(bound);
  }
}

/// max(min(x, a_max), a_min), as TOPI, with the bounds cast to the dtype.
void clip_kernel(const KernelArgs& k) {
  double a_min = k.attrs.get_float("a_min"), a_max = k.attrs.get_float("a_max");
  const TensorView& out = k.outputs.at(0);
  visit_number(out.dtype(), "clip", [&](auto zero) {
    using T = decltype(zero);
    T lo = clip_bound<T>(a_min), hi = clip_bound<T>(a_max);
    const T* x = k.inputs.at(0).data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i) {
      T y = x[i] < hi ? x[i] : hi;
      o[i] = y > lo ? y : lo;
    }
  });
}

namespace te = weft::sdk::te;

/// clip's bound as clip_bound<T> gives it, as an immediate of dt.
te::Expr clip_bound_te(DLDataType dt, double bound) {
  if (dt == dtype::float32) return te::make_const(dt, static_cast<double>(static_cast<float>(bound)));
  if (dt == dtype::float64) return te::make_const(dt, bound);
  if (std::isnan(bound)) throw Unsupported("clip: a NaN bound has no value in an integer dtype");
  if (dt == dtype::int32) return te::int_imm(saturate_cast<int32_t>(bound), dt);
  if (dt == dtype::int64) return te::int_imm(saturate_cast<int64_t>(bound), dt);
  throw Unsupported("clip: no TE for dtype " + dtype_name(dt));
}

/// The kernel's clamp, select for select (NaN data gives a_max, as there).
std::vector<te::Tensor> clip_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor& x = in.at(0);
  te::Expr lo = clip_bound_te(x.dtype(), attrs.get_float("a_min"));
  te::Expr hi = clip_bound_te(x.dtype(), attrs.get_float("a_max"));
  return std::vector<te::Tensor>{te::compute(
      x.shape(),
      [&](const te::Idx& i) {
        te::Expr v = x(i);
        te::Expr y = te::select(v < hi, v, hi);
        return te::select(y > lo, y, lo);
      },
      "clip")};
}

/// Integer division by zero has no value; the reference leaves it undefined.
template <typename T>
void check_divisor(T b, const char* op) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) throw Error(std::string(op) + ": integer division by zero");
  }
}

template <typename T>
T trunc_div(T a, T b) {
  check_divisor(b, "divide");
  return wrapping_div(a, b);
}

template <typename T>
T floor_div(T a, T b) {
  check_divisor(b, "floor_divide");
  if constexpr (std::is_integral_v<T>) {
    T q = wrapping_div(a, b);
    return (wrapping_rem(a, b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  } else {
    return std::floor(a / b);
  }
}

template <typename T>
T floor_mod(T a, T b) {
  check_divisor(b, "floor_mod");
  if constexpr (std::is_integral_v<T>) {
    T r = wrapping_rem(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  } else {
    return a - std::floor(a / b) * b;  // TOPI's floormod for floats
  }
}

template <typename T>
T trunc_mod(T a, T b) {
  check_divisor(b, "mod");
  if constexpr (std::is_integral_v<T>) return wrapping_rem(a, b);
  else return std::fmod(a, b);
}

/// A broadcasting binary op; its "simplify_expr" rewrite tries `simplify`,
/// then drops filled tensors to their scalar (full_elementwise).
OpBuilder& binary(Registrar& reg, const char* name, const char* doc, int level, CallRewrite simplify = {}) {
  return reg.op(name)
      .rewrite("simplify_expr", simplify ? first_of({std::move(simplify), full_elementwise}) : full_elementwise)
      .describe(doc)
      .input("lhs", "Tensor", "The left operand.")
      .input("rhs", "Tensor", "The right operand; broadcast against lhs as in NumPy.")
      .support_level(level)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(broadcast_relation)
      .infer_layout(layouts::broadcast);
}

OpBuilder& unary(Registrar& reg, const char* name, const char* doc, int level) {
  return reg.op(name)
      .describe(doc)
      .input("data", "Tensor", "The input tensor.")
      .support_level(level)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation)
      .infer_layout(layouts::elementwise);
}

/// The TE of a broadcasting binary op: f(lhs, rhs) at each output element.
template <typename F>
TeCompute broadcast_te(const char* name, F f) {
  return [name, f](const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
    const te::Tensor &a = in.at(0), &b = in.at(1);
    return std::vector<te::Tensor>{te::compute(
        out.shape(), [&](const te::Idx& i) { return f(a(te::broadcast_index(a, i)), b(te::broadcast_index(b, i))); },
        name)};
  };
}

/// The TE of a unary op: f(data) at each element.
template <typename F>
TeCompute map_te(const char* name, F f) {
  return [name, f](const std::vector<te::Tensor>& in, const Attrs&, const Type&) {
    const te::Tensor& x = in.at(0);
    return std::vector<te::Tensor>{te::compute(x.shape(), [&](const te::Idx& i) { return f(x(i)); }, name)};
  };
}

bool is_float(DLDataType dt) { return dt.code == kDLFloat || dt.code == kDLBfloat; }

/// A unary float function as a map kernel.
template <typename F>
Kernel float_map(const char* op, F f) {
  return map_kernel(op, Dtypes::kFloat, [f](auto x) { return static_cast<decltype(x)>(f(x)); });
}

namespace ad = weft::sdk::grad;

using Grads = std::vector<Expr>;

/// The gradient of a function whose derivative is zero wherever it has one.
Grads zero_gradient(const Expr& c, const Expr&) { return {ad::zeros_like(c.arg(0))}; }

/// grad passed where `cond` holds, zeros elsewhere, summed to `like`'s shape.
Expr masked(const Expr& cond, const Expr& grad, const Expr& like) {
  return ad::collapse_sum_like(ad::where(cond, grad, ad::zeros_like(grad)), like);
}

/// mod and floor_mod: r = x - q y with q = (x - r) / y an integer constant
/// between jumps, so dr/dx = 1 and dr/dy = -q.
Grads remainder_gradient(const Expr& c, const Expr& g) {
  Expr x = c.arg(0), y = c.arg(1);
  Expr quotient = ad::div(ad::sub(x, c), y);
  return Grads{ad::collapse_sum_like(g, x), ad::collapse_sum_like(ad::neg(ad::mul(g, quotient)), y)};
}

/// Whether `e` is `unit` (0 or 1) everywhere, as the reference's
/// EliminateIdentityRewrite sees it: a constant whose dims are all 1 holding
/// it, or a call of zeros/zeros_like (ones/ones_like for 1).
bool is_unit(const Expr& e, int unit) {
  if (is_call_of(e, unit == 0 ? "zeros" : "ones") || is_call_of(e, unit == 0 ? "zeros_like" : "ones_like")) return true;
  std::optional<double> v = single_value(e);  // as the reference, other dtypes are not read
  return v && *v == unit;
}

/// x op unit -> x (and unit op x -> x when op commutes), when x already has
/// the call's type: broadcasting against the unit would not enlarge it.
CallRewrite identity_elimination(int unit, bool commutes) {
  return [unit, commutes](const Expr& c) -> Expr {
    for (size_t x = 0; x < (commutes ? 2u : 1u); ++x) {
      if (is_unit(c.arg(1 - x), unit) && same_type(c.arg(x).type(), c.type())) return c.arg(x);
    }
    return {};
  };
}

/// As the reference's SimplifyClip: a clip whose bounds hold every value its
/// data may have is its data. Only for integers: the clip of a float NaN is
/// a_max, so no float clip is an identity.
Expr clip_of_what_fits(const Expr& c) {
  std::optional<IntegerRange> r = value_range(c.arg(0));
  Attrs a = c.attrs();
  return r && a.get_float("a_min") <= r->lo && r->hi <= a.get_float("a_max") ? c.arg(0) : Expr();
}

/// x + x -> x * 2, as the reference's SimplifyAdd (exact for floats, and for
/// integers as both wrap alike).
Expr doubling(const Expr& c) {
  if (c.arg(0).get() != c.arg(1).get()) return {};  // one node, as the reference compares
  Expr two = scalar_constant(2, c.type().dtype());
  return two ? call("multiply", {c.arg(0), two}) : Expr();
}

/// n / sqrt(x) -> n * rsqrt(x), as the reference's SimplifyRSqrt.
Expr rsqrt_divisor(const Expr& c) {
  if (!is_call_of(c.arg(1), "sqrt")) return {};
  return call("multiply", {c.arg(0), call("rsqrt", {c.arg(1).arg(0)})});
}

}  // namespace

void register_elementwise_math_ops(Registrar& reg) {
  // "simplify_expr_post_alter_op": the reference's SimplifyExprPostAlterOp keeps EliminateIdentityRewrite.
  binary(reg, "add", "Elementwise lhs + rhs, with broadcasting.", 1,
         first_of({identity_elimination(0, true), doubling, adjacent_constants, binomial_factored}))
      .rewrite("simplify_expr_post_alter_op", identity_elimination(0, true))
      .kernel(broadcast_kernel("add", Dtypes::kNumber, [](auto a, auto b) { return wrapping_add(a, b); }))
      .te_compute(broadcast_te("add", [](const te::Expr& a, const te::Expr& b) { return a + b; }))
      .gradient([](const Expr& c, const Expr& g) {
        return Grads{ad::collapse_sum_like(g, c.arg(0)), ad::collapse_sum_like(g, c.arg(1))};
      });
  binary(reg, "subtract", "Elementwise lhs - rhs, with broadcasting.", 1,
         identity_elimination(0, false))
      .rewrite("simplify_expr_post_alter_op", identity_elimination(0, false))
      .kernel(broadcast_kernel("subtract", Dtypes::kNumber, [](auto a, auto b) { return wrapping_sub(a, b); }))
      .te_compute(broadcast_te("subtract", [](const te::Expr& a, const te::Expr& b) { return a - b; }))
      .gradient([](const Expr& c, const Expr& g) {
        return Grads{ad::collapse_sum_like(g, c.arg(0)), ad::collapse_sum_like(ad::neg(g), c.arg(1))};
      });
  binary(reg, "multiply", "Elementwise lhs * rhs, with broadcasting.", 1,
         first_of({identity_elimination(1, true), multiply_before_add, adjacent_constants}))
      .rewrite("simplify_expr_post_alter_op", identity_elimination(1, true))
      .kernel(broadcast_kernel("multiply", Dtypes::kNumber, [](auto a, auto b) { return wrapping_mul(a, b); }))
      .te_compute(broadcast_te("multiply", [](const te::Expr& a, const te::Expr& b) { return a * b; }))
      .gradient([](const Expr& c, const Expr& g) {
        Expr x = c.arg(0), y = c.arg(1);
        return Grads{ad::collapse_sum_like(ad::mul(g, y), x), ad::collapse_sum_like(ad::mul(g, x), y)};
      });
  binary(reg, "divide", "Elementwise lhs / rhs, with broadcasting (IEEE for floats, truncating for ints).", 1,
         first_of({identity_elimination(1, false), rsqrt_divisor}))
      .rewrite("simplify_expr_post_alter_op", identity_elimination(1, false))
      .kernel(broadcast_kernel("divide", Dtypes::kNumber, [](auto a, auto b) { return trunc_div(a, b); }))
      .te_compute(broadcast_te("divide", [](const te::Expr& a, const te::Expr& b) { return a / b; }))
      .gradient([](const Expr& c, const Expr& g) {
        // d(x / y)/dy = -(x / y) / y: reuse the quotient.
        Expr x = c.arg(0), y = c.arg(1);
        return Grads{ad::collapse_sum_like(ad::div(g, y), x),
                     ad::collapse_sum_like(ad::neg(ad::div(ad::mul(g, c), y)), y)};
      });
  binary(reg, "power", "Elementwise lhs ** rhs, with broadcasting.", 4)
      .kernel(broadcast_kernel("power", Dtypes::kFloat, [](auto a, auto b) { return std::pow(a, b); }))
      .te_compute(broadcast_te("power", [](const te::Expr& a, const te::Expr& b) { return te::pow(a, b); }))
      .gradient([](const Expr& c, const Expr& g) {
        // d(x^y)/dx = y x^(y-1), d(x^y)/dy = x^y log x.
        Expr x = c.arg(0), y = c.arg(1);
        Expr dx = ad::mul(g, ad::mul(y, call("power", {x, ad::sub(y, ad::scalar_like(y, 1.0))})));
        Expr dy = ad::mul(g, ad::mul(c, call("log", {x})));
        return Grads{ad::collapse_sum_like(dx, x), ad::collapse_sum_like(dy, y)};
      });
  binary(reg, "maximum", "Elementwise maximum of lhs and rhs, with broadcasting.", 4)
      .kernel(broadcast_kernel("maximum", Dtypes::kNumber, [](auto a, auto b) { return a > b ? a : b; }))
      .te_compute(broadcast_te("maximum", [](const te::Expr& a, const te::Expr& b) { return te::max(a, b); }))
      .gradient([](const Expr& c, const Expr& g) {
        Expr x = c.arg(0), y = c.arg(1);
        return Grads{masked(call("greater_equal", {x, y}), g, x), masked(call("less", {x, y}), g, y)};
      });
  binary(reg, "minimum", "Elementwise minimum of lhs and rhs, with broadcasting.", 4)
      .kernel(broadcast_kernel("minimum", Dtypes::kNumber, [](auto a, auto b) { return a < b ? a : b; }))
      .te_compute(broadcast_te("minimum", [](const te::Expr& a, const te::Expr& b) { return te::min(a, b); }))
      .gradient([](const Expr& c, const Expr& g) {
        Expr x = c.arg(0), y = c.arg(1);
        return Grads{masked(call("less_equal", {x, y}), g, x), masked(call("greater", {x, y}), g, y)};
      });
  binary(reg, "mod", "Elementwise remainder of lhs / rhs truncated toward zero (C fmod), with broadcasting.", 1)
      .kernel(broadcast_kernel("mod", Dtypes::kNumber, [](auto a, auto b) { return trunc_mod(a, b); }))
      .te_compute(broadcast_te("mod", [](const te::Expr& a, const te::Expr& b) {
        return is_float(a.dtype()) ? te::fmod(a, b) : a - a / b * b;  // `/` truncates integers
      }))
      .gradient(remainder_gradient);
  binary(reg, "floor_divide", "Elementwise floor(lhs / rhs), with broadcasting.", 1)
      .kernel(broadcast_kernel("floor_divide", Dtypes::kNumber, [](auto a, auto b) { return floor_div(a, b); }))
      .te_compute(broadcast_te("floor_divide", [](const te::Expr& a, const te::Expr& b) {
        return is_float(a.dtype()) ? te::floor(a / b) : te::floordiv(a, b);
      }))
      .gradient([](const Expr& c, const Expr&) {
        return Grads{ad::zeros_like(c.arg(0)), ad::zeros_like(c.arg(1))};
      });
  binary(reg, "floor_mod", "Elementwise lhs - floor(lhs / rhs) * rhs (sign of rhs), with broadcasting.", 1)
      .kernel(broadcast_kernel("floor_mod", Dtypes::kNumber, [](auto a, auto b) { return floor_mod(a, b); }))
      .te_compute(broadcast_te("floor_mod", [](const te::Expr& a, const te::Expr& b) {
        return is_float(a.dtype()) ? a - te::floor(a / b) * b : te::floormod(a, b);  // TOPI's for floats
      }))
      .gradient(remainder_gradient);

  unary(reg, "negative", "Elementwise -data.", 3)
      .kernel(map_kernel("negative", Dtypes::kNumber, [](auto x) { return wrapping_neg(x); }))
      .te_compute(map_te("negative", [](const te::Expr& x) { return -x; }))
      .gradient([](const Expr&, const Expr& grad) { return std::vector<Expr>{call("negative", {grad})}; });
  unary(reg, "exp", "Elementwise e^data.", 1)
      .kernel(float_map("exp", [](auto x) { return std::exp(x); }))
      .te_compute(map_te("exp", [](const te::Expr& x) { return te::exp(x); }))
      .gradient([](const Expr& c, const Expr& grad) {
        // d/dx e^x = e^x: reuse the call itself rather than recomputing it.
        return std::vector<Expr>{call("multiply", {grad, c})};
      });
  unary(reg, "abs", "Elementwise |data|.", 3)
      .kernel(map_kernel("abs", Dtypes::kNumber, [](auto x) { return x < 0 ? wrapping_neg(x) : x; }))
      .te_compute(map_te("abs", [](const te::Expr& x) { return te::abs(x); }))
      .gradient([](const Expr& c, const Expr& g) {
        Expr x = c.arg(0);
        return Grads{ad::where(call("less", {x, ad::zeros_like(x)}), ad::neg(g), g)};
      });
  unary(reg, "sign", "Elementwise sign of data: -1, 0 or 1.", 3)
      .kernel(map_kernel("sign", Dtypes::kNumber, [](auto x) {
        using T = decltype(x);
        return x < 0 ? T(-1) : x > 0 ? T(1) : T(0);
      }))
      .te_compute(map_te("sign", [](const te::Expr& x) {
        auto c = [&](double v) { return te::make_const(x.dtype(), v); };
        return te::select(x < 0, c(-1), te::select(x > 0, c(1), c(0)));
      }))
      .gradient(zero_gradient);
  unary(reg, "log", "Elementwise natural logarithm.", 1)
      .kernel(float_map("log", [](auto x) { return std::log(x); }))
      .te_compute(map_te("log", [](const te::Expr& x) { return te::log(x); }))
      .gradient([](const Expr& c, const Expr& g) { return Grads{ad::div(g, c.arg(0))}; });
  unary(reg, "sqrt", "Elementwise square root.", 1)
      .kernel(float_map("sqrt", [](auto x) { return std::sqrt(x); }))
      .te_compute(map_te("sqrt", [](const te::Expr& x) { return te::sqrt(x); }))
      .gradient([](const Expr& c, const Expr& g) {
        // d sqrt(x)/dx = 0.5 / sqrt(x).
        return Grads{ad::div(ad::mul(g, ad::scalar_like(c, 0.5)), c)};
      });
  unary(reg, "rsqrt", "Elementwise 1 / sqrt(data).", 1)
      .kernel(float_map("rsqrt", [](auto x) { return 1 / std::sqrt(x); }))
      .te_compute(map_te("rsqrt", [](const te::Expr& x) { return te::rsqrt(x); }))
      .gradient([](const Expr& c, const Expr& g) {
        // d x^-1/2 / dx = -0.5 x^-3/2 = -0.5 rsqrt(x) / x.
        return Grads{ad::mul(g, ad::div(ad::mul(c, ad::scalar_like(c, -0.5)), c.arg(0)))};
      });
  unary(reg, "tanh", "Elementwise hyperbolic tangent.", 1)
      .kernel(float_map("tanh", [](auto x) { return std::tanh(x); }))
      .te_compute(map_te("tanh", [](const te::Expr& x) { return te::tanh(x); }))
      .gradient([](const Expr& c, const Expr& g) {
        return Grads{ad::mul(g, ad::sub(ad::ones_like(c), ad::mul(c, c)))};
      });
  unary(reg, "sigmoid", "Elementwise 1 / (1 + e^-data).", 1)
      .kernel(float_map("sigmoid", [](auto x) { return 1 / (1 + std::exp(-x)); }))
      .te_compute(map_te("sigmoid", [](const te::Expr& x) { return te::sigmoid(x); }))
      .gradient([](const Expr& c, const Expr& g) {
        return Grads{ad::mul(g, ad::mul(c, ad::sub(ad::ones_like(c), c)))};
      });
  unary(reg, "erf", "Elementwise Gauss error function.", 1)
      .kernel(float_map("erf", [](auto x) { return std::erf(x); }))
      .te_compute(map_te("erf", [](const te::Expr& x) { return te::erf(x); }))
      .gradient([](const Expr& c, const Expr& g) {
        // d erf(x)/dx = 2 / sqrt(pi) e^(-x^2).
        Expr x = c.arg(0);
        Expr bell = call("exp", {ad::neg(ad::mul(x, x))});
        return Grads{ad::mul(g, ad::mul(ad::scalar_like(x, 1.1283791670955126), bell))};
      });
  unary(reg, "floor", "Elementwise largest integer not above data.", 3)
      .kernel(float_map("floor", [](auto x) { return std::floor(x); }))
      .te_compute(map_te("floor", [](const te::Expr& x) { return te::floor(x); }))
      .gradient(zero_gradient);
  unary(reg, "ceil", "Elementwise smallest integer not below data.", 3)
      .kernel(float_map("ceil", [](auto x) { return std::ceil(x); }))
      .te_compute(map_te("ceil", [](const te::Expr& x) { return te::ceil(x); }))
      .gradient(zero_gradient);
  unary(reg, "round", "Elementwise nearest integer, halves to even.", 3)
      .kernel(float_map("round", [](auto x) { return std::nearbyint(x); }))
      .te_compute(map_te("round", [](const te::Expr& x) { return te::round(x); }))
      .gradient(zero_gradient);
  unary(reg, "clip",
        "Elementwise clamp of data to [a_min, a_max]; the bounds are cast to the tensor's dtype.", 3)
      .attr_required("a_min", WEFT_ATTR_FLOAT, "The lower bound.", "a number")
      .attr_required("a_max", WEFT_ATTR_FLOAT, "The upper bound.", "a number")
      .kernel(clip_kernel)
      .te_compute(clip_te)
      .rewrite("simplify_expr", clip_of_what_fits)
      .rewrite("simplify_expr_post_alter_op", clip_of_what_fits)
      .gradient([](const Expr& c, const Expr& g) {
        // Zero where the clamp is active, as Relay.
        Expr x = c.arg(0);
        Attrs a = c.attrs();
        Expr outside = call("logical_or", {call("less", {x, ad::scalar_like(x, a.get_float("a_min"))}),
                                           call("greater", {x, ad::scalar_like(x, a.get_float("a_max"))})});
        return Grads{ad::where(outside, ad::zeros_like(g), g)};
      });
}

}  // namespace weft_tensor
