// weft plugin SDK: small builders for writing op gradients in IR form
// (OpBuilder::gradient). They assume the `tensor` plugin's ops (add, multiply,
// where, collapse_sum_like, ...), which a plugin with gradients requires.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <weft/sdk/ir.hpp>

namespace weft::sdk::grad {

/// A 0-d constant holding `value` in `like`'s dtype (float32 or float64).
inline Expr scalar_like(const Expr& like, double value) { return scalar(value, like.type().dtype()); }

inline Expr add(const Expr& a, const Expr& b) { return call("add", {a, b}); }
inline Expr sub(const Expr& a, const Expr& b) { return call("subtract", {a, b}); }
inline Expr mul(const Expr& a, const Expr& b) { return call("multiply", {a, b}); }
inline Expr div(const Expr& a, const Expr& b) { return call("divide", {a, b}); }
inline Expr neg(const Expr& a) { return call("negative", {a}); }
inline Expr zeros_like(const Expr& a) { return call("zeros_like", {a}); }
inline Expr ones_like(const Expr& a) { return call("ones_like", {a}); }
/// cond ? a : b, elementwise.
inline Expr where(const Expr& cond, const Expr& a, const Expr& b) { return call("where", {cond, a, b}); }
/// `g` summed down to `like`'s shape: undoes NumPy broadcasting.
inline Expr collapse_sum_like(const Expr& g, const Expr& like) { return call("collapse_sum_like", {g, like}); }
/// `g` cast to `like`'s dtype.
inline Expr cast_like(const Expr& g, const Expr& like) { return call("cast", {g}, {{"dtype", like.type().dtype()}}); }

/// A constant of `shape` and dtype `dt` (a float or int type of 32 or 64
/// bits) holding `values` in C order.
inline Expr constant_of(const std::vector<int64_t>& shape, DLDataType dt, const std::vector<double>& values) {
  std::vector<unsigned char> bytes(values.size() * (dt.bits / 8));
  for (size_t i = 0; i < values.size(); ++i) {
    unsigned char* at = bytes.data() + i * (dt.bits / 8);
    if (dt == dtype::float32)
      *reinterpret_cast<float*>(at) = static_cast<float>(values[i]);
    else if (dt == dtype::float64)
      *reinterpret_cast<double*>(at) = values[i];
    else if (dt == dtype::int32)
      *reinterpret_cast<int32_t*>(at) = static_cast<int32_t>(values[i]);
    else if (dt == dtype::int64)
      *reinterpret_cast<int64_t*>(at) = static_cast<int64_t>(values[i]);
    else
      throw Error("a gradient constant of dtype " + dtype_name(dt) + " is not supported");
  }
  DLTensor t{};
  t.data = bytes.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dt;
  t.shape = const_cast<int64_t*>(shape.data());
  return constant(t);
}

/// The gradient through y = M x along `axis`, M an (out x in) matrix given
/// row-major: M^T g along that axis. `shape` is g's static shape (out along
/// axis); the result has in along axis. Shared by ops that select or mix
/// along axes (strided_slice, resizing).
inline Expr transpose_matrix_along_axis(const Expr& g, const std::vector<int64_t>& shape, size_t axis, int64_t in,
                                        const std::vector<double>& matrix, DLDataType dt) {
  const int64_t out = shape.at(axis);
  int64_t pre = 1, post = 1;
  for (size_t d = 0; d < axis; ++d) pre *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) post *= shape[d];
  Expr spread = call("reshape", {g}, {{"newshape", std::vector<int64_t>{pre, out, 1, post}}});
  Expr m = constant_of({1, out, in, 1}, dt, matrix);
  std::vector<int64_t> result = shape;
  result[axis] = in;
  Expr summed = call("sum", {call("multiply", {spread, m})}, {{"axis", std::vector<int64_t>{1}}});
  return call("reshape", {summed}, {{"newshape", result}});
}

/// A static shape of an argument or a call, for gradients that need one; an
/// Error naming `what` when a dim is `?`.
inline std::vector<int64_t> static_shape(const Expr& e, const std::string& what) {
  std::vector<int64_t> shape = e.type().shape();
  for (int64_t d : shape) {
    if (d == WEFT_DIM_ANY) throw Error("the gradient needs a static shape for " + what + ", got " + e.type().str());
  }
  return shape;
}

/// The axes a reduction with attrs `axis` (None or ints, possibly negative)
/// and `exclude` reduces over data of rank `ndim`, as flags.
inline std::vector<bool> reduced_axes(const Attrs& attrs, int64_t ndim) {
  Value axis = attrs.get_value("axis");
  std::vector<bool> listed(static_cast<size_t>(ndim), false);
  bool all = axis.is_none() || axis.as_ints().empty();
  if (!all) {
    for (int64_t a : axis.as_ints()) listed.at(static_cast<size_t>(a < 0 ? a + ndim : a)) = true;
  }
  bool exclude = attrs.has("exclude") && attrs.get_bool("exclude");
  std::vector<bool> out(static_cast<size_t>(ndim));
  for (size_t i = 0; i < out.size(); ++i) out[i] = all ? true : (exclude ? !listed[i] : listed[i]);
  return out;
}

/// A reduction's output (or its gradient) `g`, given back its reduced axes
/// with extent 1 and broadcast to `data`'s shape.
inline Expr unreduce(const Expr& g, const Expr& data, const Attrs& attrs) {
  std::vector<int64_t> shape = static_shape(data, "the reduced data");
  std::vector<bool> reduced = reduced_axes(attrs, static_cast<int64_t>(shape.size()));
  std::vector<int64_t> kept = shape;
  for (size_t i = 0; i < kept.size(); ++i)
    if (reduced[i]) kept[i] = 1;
  return call("broadcast_to_like", {call("reshape", {g}, {{"newshape", kept}}), data});
}

/// How many elements of `data` each output of the reduction combines.
inline int64_t reduced_count(const Expr& data, const Attrs& attrs) {
  std::vector<int64_t> shape = static_shape(data, "the reduced data");
  std::vector<bool> reduced = reduced_axes(attrs, static_cast<int64_t>(shape.size()));
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i)
    if (reduced[i]) n *= shape[i];
  return n;
}

}  // namespace weft::sdk::grad
