// What the tensor ops' "simplify_expr" rewrites (SimplifyExpr) ask of the
// calls they get: which op produced an argument, whether two types agree, a
// type's static shape, which values a tensor can hold (for casts and clips),
// and (for transpose and layout_transform, as the reference's
// SimplifyTranspose) which axis permutation a call applies.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <weft/plugin.hpp>
#include <weft/sdk/layout.hpp>

namespace weft_tensor {

using weft::sdk::operator==;
using weft::sdk::operator!=;

/// Whether `e` is a call of the op `op`.
inline bool is_call_of(const weft::sdk::Expr& e, const char* op) {
  if (e.kind() != WEFT_EXPR_CALL) return false;
  weft::sdk::Expr callee = e.callee();
  return callee.kind() == WEFT_EXPR_OP && callee.name() == op;
}

/// Whether two types are the same (their Relay text is).
inline bool same_type(const weft::sdk::Type& a, const weft::sdk::Type& b) { return a.str() == b.str(); }

/// The dims of a tensor type when none is `?`.
inline std::optional<std::vector<int64_t>> static_shape(const weft::sdk::Type& t) {
  std::vector<int64_t> shape = t.shape();
  if (std::find(shape.begin(), shape.end(), WEFT_DIM_ANY) != shape.end()) return std::nullopt;
  return shape;
}

/// A rewrite of an op whose result takes its type from a `like` argument (the
/// reference's ConcretizeLikeRewrite): once that type is static, the call of
/// `static_op` on the arguments at `kept` with the shape (and, when `with_dtype`,
/// the dtype) as attrs `shape_attr`, "dtype". The `like` argument is then unused.
inline weft::sdk::CallRewrite concretized(std::string static_op, std::vector<size_t> kept, std::string shape_attr,
                                         bool with_dtype) {
  return [=](const weft::sdk::Expr& c) -> weft::sdk::Expr {
    weft::sdk::Type t = c.type();
    std::optional<std::vector<int64_t>> shape = static_shape(t);
    if (!shape) return {};
    std::vector<weft::sdk::Expr> args;
    for (size_t i : kept) args.push_back(c.arg(i));
    weft::sdk::AttrList attrs{{shape_attr, *shape}};
    if (with_dtype) attrs.push_back({"dtype", t.dtype()});
    return weft::sdk::call(static_op, args, attrs);
  };
}

/// The rewrites tried in turn: the first replacement, or null when all decline.
inline weft::sdk::CallRewrite first_of(std::vector<weft::sdk::CallRewrite> rewrites) {
  return [rewrites = std::move(rewrites)](const weft::sdk::Expr& c) -> weft::sdk::Expr {
    for (const weft::sdk::CallRewrite& r : rewrites) {
      if (weft::sdk::Expr e = r(c)) return e;
    }
    return {};
  };
}

/// A rank-0 constant `v` of dtype `dt` (int32, int64, float32 or float64);
/// null for other dtypes.
inline weft::sdk::Expr scalar_constant(double v, DLDataType dt) {
  int32_t i32 = static_cast<int32_t>(v);
  int64_t i64 = static_cast<int64_t>(v);
  float f32 = static_cast<float>(v);
  DLTensor t{};
  t.device = DLDevice{kDLCPU, 0};
  t.dtype = dt;
  if (dt == weft::sdk::dtype::int32) t.data = &i32;
  else if (dt == weft::sdk::dtype::int64) t.data = &i64;
  else if (dt == weft::sdk::dtype::float32) t.data = &f32;
  else if (dt == weft::sdk::dtype::float64) t.data = &v;
  else return {};
  return weft::sdk::constant(t);
}

/// The one number a constant of unit dims (each 1, or none) holds, when its
/// dtype is int32, int64, float32 or float64 and a double holds it exactly;
/// nullopt otherwise.
inline std::optional<double> single_value(const weft::sdk::Expr& e) {
  if (e.kind() != WEFT_EXPR_CONSTANT) return std::nullopt;
  DLTensor t = e.data();
  for (int i = 0; i < t.ndim; ++i)
    if (t.shape[i] != 1) return std::nullopt;
  const char* at = static_cast<const char*>(t.data) + t.byte_offset;
  if (t.dtype == weft::sdk::dtype::float32) return *reinterpret_cast<const float*>(at);
  if (t.dtype == weft::sdk::dtype::float64) return *reinterpret_cast<const double*>(at);
  if (t.dtype == weft::sdk::dtype::int32) return *reinterpret_cast<const int32_t*>(at);
  if (t.dtype != weft::sdk::dtype::int64) return std::nullopt;
  const int64_t v = *reinterpret_cast<const int64_t*>(at);
  if (std::abs(static_cast<double>(v)) >= std::ldexp(1.0, 53)) return std::nullopt;
  return static_cast<double>(v);
}

/// The scalar `e` is filled with when it is zeros, ones or full of a scalar
/// constant of its own dtype, or one of their *_like forms (the reference's
/// FullElementwise); null otherwise.
inline weft::sdk::Expr fill_scalar(const weft::sdk::Expr& e) {
  DLDataType dt = e.type().dtype();
  if (is_call_of(e, "zeros") || is_call_of(e, "zeros_like")) return scalar_constant(0, dt);
  if (is_call_of(e, "ones") || is_call_of(e, "ones_like")) return scalar_constant(1, dt);
  const bool full = is_call_of(e, "full");
  if (!full && !is_call_of(e, "full_like")) return {};
  weft::sdk::Expr value = e.arg(full ? 0 : 1);
  if (value.kind() != WEFT_EXPR_CONSTANT || value.type().dtype() != dt) return {};
  return value;
}

/// op(fill, x) -> op(scalar, x) and op(x, fill) -> op(x, scalar) for a
/// broadcasting binary op, when x already has the call's shape: the filled
/// tensor then only broadcasts its scalar.
inline weft::sdk::Expr full_elementwise(const weft::sdk::Expr& c) {
  for (size_t i = 0; i < 2; ++i) {
    weft::sdk::Expr other = c.arg(1 - i);
    if (other.type().shape() != c.type().shape()) continue;
    if (weft::sdk::Expr value = fill_scalar(c.arg(i))) {
      return weft::sdk::call(c.callee().name(), i == 0 ? std::vector{value, other} : std::vector{other, value},
                             {});
    }
  }
  return {};
}

/// The closed range [lo, hi] of integer values a tensor may hold.
struct IntegerRange {
  double lo, hi;
};

/// Every value of an integer dtype (bool is uint1: 0 and 1); nullopt for floats.
inline std::optional<IntegerRange> integer_range(DLDataType t) {
  if (t.code == kDLInt) return IntegerRange{-std::ldexp(1.0, t.bits - 1), std::ldexp(1.0, t.bits - 1) - 1};
  if (t.code == kDLUInt) return IntegerRange{0, std::ldexp(1.0, t.bits) - 1};
  return std::nullopt;
}

/// The integer values `e` may hold: its dtype's, narrowed by a clip that
/// produced it (whose bounds, cast to the dtype, may round either way).
inline std::optional<IntegerRange> value_range(const weft::sdk::Expr& e) {
  std::optional<IntegerRange> r = integer_range(e.type().dtype());
  if (!r || !is_call_of(e, "clip")) return r;
  weft::sdk::Attrs a = e.attrs();
  return IntegerRange{std::max(r->lo, std::floor(a.get_float("a_min"))),
                      std::min(r->hi, std::ceil(a.get_float("a_max")))};
}

/// Whether dtype `to` represents every integer in `r` exactly.
inline bool holds(DLDataType to, IntegerRange r) {
  if (std::optional<IntegerRange> to_range = integer_range(to)) return to_range->lo <= r.lo && r.hi <= to_range->hi;
  if (to.code != kDLFloat) return false;  // bfloat16 is left alone, as the reference
  const int digits = to.bits == 16 ? 11 : to.bits == 32 ? 24 : 53;  // significand bits, with the implicit one
  return std::max(-r.lo, r.hi) <= std::ldexp(1.0, digits);
}

/// Whether casting `e` to `to` keeps every value it may hold, so a later cast
/// sees the same numbers it would have seen in `e`.
inline bool casts_exactly(const weft::sdk::Expr& e, DLDataType to) {
  DLDataType from = e.type().dtype();
  if (from.lanes != to.lanes) return false;
  if (std::optional<IntegerRange> r = value_range(e)) return holds(to, *r);
  return from.code == to.code && from.bits <= to.bits;  // a float widens within its kind
}

/// The permutation `call` applies (output dim i is input dim order[i]): any
/// transpose, or a layout_transform whose dst only reorders src's axes (the
/// same letters and block sizes); nullopt for anything else.
inline std::optional<std::vector<int64_t>> axis_order(const weft::sdk::Expr& call) {
  if (is_call_of(call, "transpose")) {
    const auto ndim = static_cast<int64_t>(call.type().ndim());
    weft::sdk::Value axes = call.attrs().get_value("axes");
    std::vector<int64_t> order;
    if (axes.is_none() || axes.as_ints().empty()) {
      for (int64_t i = ndim - 1; i >= 0; --i) order.push_back(i);
    } else {
      for (int64_t axis : axes.as_ints()) order.push_back(axis < 0 ? axis + ndim : axis);
    }
    return order;
  }
  if (!is_call_of(call, "layout_transform")) return std::nullopt;
  weft::sdk::Attrs a = call.attrs();
  weft::sdk::Layout from(a.get_string("src_layout")), to(a.get_string("dst_layout"));
  if (from.ndim() != to.ndim()) return std::nullopt;
  std::vector<int64_t> order;
  for (const weft::sdk::LayoutAxis& axis : to.axes()) {
    int i = from.index_of(axis.name);
    if (i < 0 || from[static_cast<size_t>(i)].factor != axis.factor) return std::nullopt;
    order.push_back(i);
  }
  return order;
}

/// `outer` applied after `inner`, as one permutation.
inline std::vector<int64_t> compose(const std::vector<int64_t>& inner, const std::vector<int64_t>& outer) {
  std::vector<int64_t> out;
  for (int64_t axis : outer) out.push_back(inner.at(static_cast<size_t>(axis)));
  return out;
}

/// The layout whose axis i is axis order[i] of `layout` (the reference's PermuteLayout).
inline std::string permute_layout(const weft::sdk::Layout& layout, const std::vector<int64_t>& order) {
  std::string out;
  for (int64_t axis : order) {
    const weft::sdk::LayoutAxis& a = layout[static_cast<size_t>(axis)];
    if (a.factor) out += std::to_string(a.factor);
    out += a.name;
  }
  return out;
}

/// The inverse permutation.
inline std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> out(order.size());
  for (size_t i = 0; i < order.size(); ++i) out[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return out;
}

}  // namespace weft_tensor
