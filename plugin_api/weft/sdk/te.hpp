// weft plugin SDK: tensor expressions (ABI 1.9), so that an op's te_compute
// reads like its math:
//
//   .te_compute([](const std::vector<te::Tensor>& in, const Attrs&, const Type&) {
//     const te::Tensor& x = in[0];
//     return te::compute(x.shape(), [&](const te::Idx& i) { return te::max(x(i), 0); }, "relu");
//   })
//
// Expressions are immutable host objects held by RAII handles. Integer
// literals are int32 and float literals float32, and an immediate takes the
// other operand's dtype, as in TVM; the host checks dtypes and throws (as
// sdk::Error) what cannot be reconciled. docs/te.md describes the layer.
// Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/ir.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::sdk {

namespace detail {
template <>
struct RefOps<weft_te_expr_t> {
  static void retain(weft_te_expr_t* h) { host().te_expr_retain(h); }
  static void release(weft_te_expr_t* h) { host().te_expr_release(h); }
};
template <>
struct RefOps<weft_te_tensor_t> {
  static void retain(weft_te_tensor_t* h) { host().te_tensor_retain(h); }
  static void release(weft_te_tensor_t* h) { host().te_tensor_release(h); }
};
template <>
struct RefOps<weft_te_axis_t> {
  static void retain(weft_te_axis_t* h) { host().te_axis_retain(h); }
  static void release(weft_te_axis_t* h) { host().te_axis_release(h); }
};
template <>
struct RefOps<weft_te_reducer_t> {
  static void retain(weft_te_reducer_t* h) { host().te_reducer_retain(h); }
  static void release(weft_te_reducer_t* h) { host().te_reducer_release(h); }
};
}  // namespace detail

namespace te {

/// A scalar expression: an immediate, an index, a read, arithmetic, a reduction.
class Expr : public Handle<weft_te_expr_t> {
 public:
  Expr() = default;
  Expr(Handle<weft_te_expr_t> h) : Handle(std::move(h)) {}  // NOLINT: handles convert
  Expr(int value) : Expr(make(host().te_int, value, dtype::int32)) {}  // NOLINT: literals in expressions
  Expr(int64_t value)  // NOLINT: int32 where it fits, as TVM's literals
      : Expr(make(host().te_int, value, fits_int32(value) ? dtype::int32 : dtype::int64)) {}
  Expr(double value) : Expr(make(host().te_float, value, dtype::float32)) {}  // NOLINT

  DLDataType dtype() const {
    DLDataType dt{};
    check(host().te_expr_dtype(get(), &dt));
    return dt;
  }

  /// Calls a host builder whose last parameter is the out_expr.
  template <typename Fn, typename... Args>
  static Expr make(Fn fn, Args... args) {
    weft_te_expr_t* out = nullptr;
    check(fn(args..., &out));
    return Handle::adopt(out);
  }

 private:
  static bool fits_int32(int64_t v) {
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  }
};

/// The output index of a compute: one int32 variable per dimension.
using Idx = std::vector<Expr>;

/// An axis: an output dimension of a compute, or a reduction's range.
class Axis : public Handle<weft_te_axis_t> {
 public:
  Axis() = default;
  Axis(Handle<weft_te_axis_t> h) : Handle(std::move(h)) {}  // NOLINT
  /// The int32 variable ranging over the axis.
  Expr var() const { return Expr::make(host().te_axis_var, get()); }
};

/// A reduction axis over [0, extent) or [min, min + extent).
inline Axis reduce_axis(int64_t extent, const std::string& name = "k") {
  weft_te_axis_t* out = nullptr;
  check(host().te_axis(0, extent, 1, name.c_str(), &out));
  return Handle<weft_te_axis_t>::adopt(out);
}
inline Axis reduce_axis(int64_t min, int64_t extent, const std::string& name) {
  weft_te_axis_t* out = nullptr;
  check(host().te_axis(min, extent, 1, name.c_str(), &out));
  return Handle<weft_te_axis_t>::adopt(out);
}

namespace detail {
inline Expr index_expr(const Expr& e) { return e; }
inline Expr index_expr(const Axis& a) { return a.var(); }
inline Expr index_expr(int64_t i) { return Expr(i); }
inline Expr index_expr(int i) { return Expr(i); }
}  // namespace detail

/// A tensor: an op's input or a compute. `x(i)` reads it at an Idx, `x(i, j)`
/// at single indices (expressions, axes or integers).
class Tensor : public Handle<weft_te_tensor_t> {
 public:
  Tensor() = default;
  Tensor(Handle<weft_te_tensor_t> h) : Handle(std::move(h)) {}  // NOLINT

  std::vector<int64_t> shape() const {
    const int64_t* dims = nullptr;
    size_t n = 0;
    check(host().te_tensor_info(get(), &dims, &n, nullptr));
    return std::vector<int64_t>(dims, dims + n);
  }
  size_t ndim() const { return shape().size(); }
  DLDataType dtype() const {
    DLDataType dt{};
    check(host().te_tensor_info(get(), nullptr, nullptr, &dt));
    return dt;
  }

  Expr operator()(const std::vector<Expr>& indices) const {
    std::vector<weft_te_expr_t*> hs;
    for (const Expr& i : indices) hs.push_back(i.get());
    return Expr::make(host().te_tensor_read, get(), hs.data(), hs.size());
  }
  template <typename... Index>
  Expr operator()(const Index&... indices) const {
    return (*this)(std::vector<Expr>{detail::index_expr(indices)...});
  }
};

// ---- Immediates ------------------------------------------------------------------------

/// `value` as a constant of dtype (an integer, float or bool immediate).
inline Expr make_const(DLDataType dt, double value) {
  if (dt.code == kDLFloat || dt.code == kDLBfloat) return Expr::make(host().te_float, value, dt);
  return Expr::make(host().te_int, static_cast<int64_t>(value), dt);
}
inline Expr int_imm(int64_t value, DLDataType dt = dtype::int32) { return Expr::make(host().te_int, value, dt); }
/// The dtype's lowest / highest finite value (where max and min reductions start).
inline Expr lowest(DLDataType dt) { return Expr::make(host().te_limit, dt, 0); }
inline Expr highest(DLDataType dt) { return Expr::make(host().te_limit, dt, 1); }
/// A fresh variable of dtype: a reducer's operand.
inline Expr var(const std::string& name, DLDataType dt) { return Expr::make(host().te_var, name.c_str(), dt); }

// ---- Operators -------------------------------------------------------------------------

inline Expr binary(weft_te_binary_op_t op, const Expr& a, const Expr& b) {
  return Expr::make(host().te_binary, op, a.get(), b.get());
}
inline Expr intrinsic(weft_te_intrinsic_t op, const std::vector<Expr>& args) {
  std::vector<weft_te_expr_t*> hs;
  for (const Expr& a : args) hs.push_back(a.get());
  return Expr::make(host().te_intrinsic, op, hs.data(), hs.size());
}

inline Expr operator+(const Expr& a, const Expr& b) { return binary(WEFT_TE_ADD, a, b); }
inline Expr operator-(const Expr& a, const Expr& b) { return binary(WEFT_TE_SUB, a, b); }
inline Expr operator*(const Expr& a, const Expr& b) { return binary(WEFT_TE_MUL, a, b); }
/// Truncating for integers, true division for floats.
inline Expr operator/(const Expr& a, const Expr& b) { return binary(WEFT_TE_DIV, a, b); }
inline Expr operator-(const Expr& a) { return intrinsic(WEFT_TE_NEG, {a}); }
inline Expr operator<(const Expr& a, const Expr& b) { return binary(WEFT_TE_LT, a, b); }
inline Expr operator<=(const Expr& a, const Expr& b) { return binary(WEFT_TE_LE, a, b); }
inline Expr operator>(const Expr& a, const Expr& b) { return binary(WEFT_TE_GT, a, b); }
inline Expr operator>=(const Expr& a, const Expr& b) { return binary(WEFT_TE_GE, a, b); }
// == != && || ! keep their meaning on handles; these are their TE forms.
inline Expr equal(const Expr& a, const Expr& b) { return binary(WEFT_TE_EQ, a, b); }
inline Expr not_equal(const Expr& a, const Expr& b) { return binary(WEFT_TE_NE, a, b); }
inline Expr logical_and(const Expr& a, const Expr& b) { return binary(WEFT_TE_AND, a, b); }
inline Expr logical_or(const Expr& a, const Expr& b) { return binary(WEFT_TE_OR, a, b); }
inline Expr logical_not(const Expr& a) { return intrinsic(WEFT_TE_NOT, {a}); }
/// Rounds toward minus infinity; floormod takes the divisor's sign.
inline Expr floordiv(const Expr& a, const Expr& b) { return binary(WEFT_TE_FLOORDIV, a, b); }
inline Expr floormod(const Expr& a, const Expr& b) { return binary(WEFT_TE_FLOORMOD, a, b); }
inline Expr min(const Expr& a, const Expr& b) { return binary(WEFT_TE_MIN, a, b); }
inline Expr max(const Expr& a, const Expr& b) { return binary(WEFT_TE_MAX, a, b); }
/// cond ? a : b, evaluating only the operand chosen.
inline Expr select(const Expr& cond, const Expr& a, const Expr& b) {
  return Expr::make(host().te_select, cond.get(), a.get(), b.get());
}
inline Expr cast(DLDataType dt, const Expr& value) { return Expr::make(host().te_cast, dt, value.get()); }

inline Expr abs(const Expr& x) { return intrinsic(WEFT_TE_ABS, {x}); }
inline Expr exp(const Expr& x) { return intrinsic(WEFT_TE_EXP, {x}); }
inline Expr log(const Expr& x) { return intrinsic(WEFT_TE_LOG, {x}); }
inline Expr tanh(const Expr& x) { return intrinsic(WEFT_TE_TANH, {x}); }
inline Expr erf(const Expr& x) { return intrinsic(WEFT_TE_ERF, {x}); }
inline Expr sqrt(const Expr& x) { return intrinsic(WEFT_TE_SQRT, {x}); }
inline Expr rsqrt(const Expr& x) { return intrinsic(WEFT_TE_RSQRT, {x}); }
inline Expr sigmoid(const Expr& x) { return intrinsic(WEFT_TE_SIGMOID, {x}); }
inline Expr floor(const Expr& x) { return intrinsic(WEFT_TE_FLOOR, {x}); }
inline Expr ceil(const Expr& x) { return intrinsic(WEFT_TE_CEIL, {x}); }
/// Half to even.
inline Expr round(const Expr& x) { return intrinsic(WEFT_TE_ROUND, {x}); }
inline Expr pow(const Expr& x, const Expr& y) { return intrinsic(WEFT_TE_POW, {x, y}); }
/// Toward zero.
inline Expr trunc(const Expr& x) { return intrinsic(WEFT_TE_TRUNC, {x}); }
/// C's fmod: the remainder of the truncating division, with x's sign, exact.
inline Expr fmod(const Expr& x, const Expr& y) { return intrinsic(WEFT_TE_FMOD, {x, y}); }

// ---- Computes --------------------------------------------------------------------------

/// The tensors whose element at i is body k of fcompute(i), one per body
/// (several for a tuple reduction such as argmax).
template <typename F>
std::vector<Tensor> compute_multi(const std::vector<int64_t>& shape, F&& fcompute, const std::string& name = "compute") {
  std::vector<Axis> axes;
  Idx index;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string axis_name = shape.size() <= 2 ? std::string(1, "ij"[d]) : "i" + std::to_string(d);
    weft_te_axis_t* a = nullptr;
    check(host().te_axis(0, shape[d], 0, axis_name.c_str(), &a));
    axes.push_back(Handle<weft_te_axis_t>::adopt(a));
    index.push_back(axes.back().var());
  }
  std::vector<Expr> bodies = fcompute(static_cast<const Idx&>(index));
  std::vector<weft_te_axis_t*> ah;
  for (const Axis& a : axes) ah.push_back(a.get());
  std::vector<weft_te_expr_t*> bh;
  for (const Expr& b : bodies) bh.push_back(b.get());
  std::vector<weft_te_tensor_t*> out(bodies.size(), nullptr);
  check(host().te_compute(name.c_str(), ah.data(), ah.size(), bh.data(), bh.size(), out.data()));
  std::vector<Tensor> tensors;
  for (weft_te_tensor_t* t : out) tensors.push_back(Handle<weft_te_tensor_t>::adopt(t));
  return tensors;
}

/// The tensor whose element at i is fcompute(i).
template <typename F>
Tensor compute(const std::vector<int64_t>& shape, F&& fcompute, const std::string& name = "compute") {
  return compute_multi(shape, [&](const Idx& i) { return std::vector<Expr>{fcompute(i)}; }, name)[0];
}

/// The index of t that NumPy broadcasting reads at the output index `out`:
/// t's dims line up with out's last ones, and a dim of extent 1 reads 0.
inline Idx broadcast_index(const Tensor& t, const Idx& out) {
  std::vector<int64_t> shape = t.shape();
  if (shape.size() > out.size()) throw Error("te::broadcast_index: a tensor of higher rank than the output");
  Idx index;
  const size_t lead = out.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) index.push_back(shape[d] == 1 ? Expr(0) : out[lead + d]);
  return index;
}

/// x padded by pad_before/pad_after elements per dimension with pad_value,
/// reading x only inside its bounds (topi's pad).
inline Tensor pad(const Tensor& x, const std::vector<int64_t>& pad_before, const std::vector<int64_t>& pad_after,
                  const Expr& pad_value = Expr(0), const std::string& name = "pad") {
  if (pad_before.size() != pad_after.size()) throw Error("te::pad: pad_before and pad_after differ in length");
  weft_te_tensor_t* out = nullptr;
  check(host().te_pad(x.get(), pad_before.data(), pad_after.data(), pad_before.size(), pad_value.get(), name.c_str(),
                      &out));
  return Handle<weft_te_tensor_t>::adopt(out);
}

// ---- Reductions ------------------------------------------------------------------------

namespace detail {
inline std::vector<weft_te_axis_t*> axis_handles(const std::vector<Axis>& axes) {
  std::vector<weft_te_axis_t*> hs;
  for (const Axis& a : axes) hs.push_back(a.get());
  return hs;
}
inline Expr builtin_reduce(weft_te_reduce_kind_t kind, const Expr& source, const std::vector<Axis>& axes,
                           const Expr& condition) {
  std::vector<weft_te_axis_t*> hs = axis_handles(axes);
  return Expr::make(host().te_reduce_builtin, kind, source.get(), hs.data(), hs.size(), condition.get());
}
}  // namespace detail

/// The sum / max / min / product of source over the reduction axes where
/// condition holds (everywhere when it is empty).
inline Expr sum(const Expr& source, const std::vector<Axis>& axes, const Expr& condition = Expr()) {
  return detail::builtin_reduce(WEFT_TE_REDUCE_SUM, source, axes, condition);
}
inline Expr max(const Expr& source, const std::vector<Axis>& axes, const Expr& condition = Expr()) {
  return detail::builtin_reduce(WEFT_TE_REDUCE_MAX, source, axes, condition);
}
inline Expr min(const Expr& source, const std::vector<Axis>& axes, const Expr& condition = Expr()) {
  return detail::builtin_reduce(WEFT_TE_REDUCE_MIN, source, axes, condition);
}
inline Expr prod(const Expr& source, const std::vector<Axis>& axes, const Expr& condition = Expr()) {
  return detail::builtin_reduce(WEFT_TE_REDUCE_PROD, source, axes, condition);
}

/// A commutative reducer of identity.size() values (TVM's comm_reducer):
/// combine(lhs, rhs) gives the combined values, lhs and rhs one variable per
/// value of its identity's dtype.
class Reducer : public Handle<weft_te_reducer_t> {
 public:
  Reducer() = default;
  Reducer(Handle<weft_te_reducer_t> h) : Handle(std::move(h)) {}  // NOLINT
};

template <typename Combine>
Reducer comm_reducer(Combine&& combine, const std::vector<Expr>& identity, const std::string& name = "reducer") {
  std::vector<Expr> lhs, rhs;
  for (size_t i = 0; i < identity.size(); ++i) {
    lhs.push_back(var("x" + std::to_string(i), identity[i].dtype()));
    rhs.push_back(var("y" + std::to_string(i), identity[i].dtype()));
  }
  std::vector<Expr> result = combine(static_cast<const std::vector<Expr>&>(lhs), static_cast<const std::vector<Expr>&>(rhs));
  auto handles = [](const std::vector<Expr>& es) {
    std::vector<weft_te_expr_t*> hs;
    for (const Expr& e : es) hs.push_back(e.get());
    return hs;
  };
  if (result.size() != identity.size()) {
    throw Error("te::comm_reducer '" + name + "': combine gave " + std::to_string(result.size()) + " values for " +
                std::to_string(identity.size()) + " identities");
  }
  std::vector<weft_te_expr_t*> l = handles(lhs), r = handles(rhs), res = handles(result), id = handles(identity);
  weft_te_reducer_t* out = nullptr;
  check(host().te_reducer(name.c_str(), l.data(), r.data(), res.data(), id.data(), identity.size(), &out));
  return Handle<weft_te_reducer_t>::adopt(out);
}

/// One expression per value of `reducer` folded over `axes` of `sources`:
/// the bodies of one compute_multi.
inline std::vector<Expr> reduce(const Reducer& reducer, const std::vector<Expr>& sources,
                                const std::vector<Axis>& axes, const Expr& condition = Expr()) {
  std::vector<weft_te_expr_t*> sh;
  for (const Expr& s : sources) sh.push_back(s.get());
  std::vector<weft_te_axis_t*> ah = detail::axis_handles(axes);
  std::vector<weft_te_expr_t*> out(sources.size(), nullptr);
  check(host().te_reduce(reducer.get(), sh.data(), sh.size(), ah.data(), ah.size(), condition.get(), out.data()));
  std::vector<Expr> values;
  for (weft_te_expr_t* e : out) values.push_back(Handle<weft_te_expr_t>::adopt(e));
  return values;
}

}  // namespace te
}  // namespace weft::sdk
