// What the tensor plugin's TE computes share: index arithmetic of row-major
// reshapes, dtype checks mirroring the reference kernels, and the constant
// body of an empty output.
#pragma once

#include <weft/plugin.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernel_util.h"

namespace weft_tensor {

namespace te = weft::sdk::te;

/// Whether dt is one of float32, float64, int32, int64 (the kernels' visit_number).
inline bool te_is_number(DLDataType dt) {
  using namespace weft::sdk;
  return dt == dtype::float32 || dt == dtype::float64 || dt == dtype::int32 || dt == dtype::int64;
}
inline bool te_is_float(DLDataType dt) { return dt.code == kDLFloat || dt.code == kDLBfloat; }

/// Declines (Unsupported) a dtype the reference kernel does not take, so the
/// call keeps the kernel's error.
inline void te_require_number(DLDataType dt, const std::string& op, bool or_bool = false) {
  using namespace weft::sdk;
  if (te_is_number(dt) || (or_bool && dt == weft::sdk::dtype::boolean)) return;
  throw weft::sdk::Unsupported(op + ": no TE for dtype " + weft::sdk::dtype_name(dt));
}
inline void te_require_float(DLDataType dt, const std::string& op) {
  using namespace weft::sdk;
  if (dt == dtype::float32 || dt == dtype::float64) return;
  throw Unsupported(op + ": no TE for dtype " + dtype_name(dt));
}

/// Declines shapes whose element count does not fit the int32 index arithmetic.
inline void te_require_int32_extent(const Shape& shape, const std::string& op) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<int32_t>::max() / d)) {
      throw weft::sdk::Unsupported(op + ": shape " + shape_str(shape) + " is too large for int32 indices");
    }
    n *= d;
  }
}

inline bool te_is_empty(const Shape& shape) {
  for (int64_t d : shape) {
    if (d == 0) return true;
  }
  return false;
}

/// A compute of `shape` holding zeros: the TE of an output with no elements
/// (nothing is read, so nothing needs a bound).
inline te::Tensor te_empty(const Shape& shape, DLDataType dt, const std::string& name) {
  return te::compute(shape, [&](const te::Idx&) { return te::make_const(dt, 0); }, name);
}

/// The row-major flat position of index i in shape.
inline te::Expr te_flat_index(const te::Idx& i, const Shape& shape) {
  te::Expr flat = te::Expr(0);
  bool first = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    flat = first ? i[d] : flat * te::Expr(shape[d]) + i[d];
    first = false;
  }
  return flat;
}

/// The index in shape of the row-major flat position `flat` (in [0, numel)).
inline te::Idx te_unflatten(const te::Expr& flat, const Shape& shape) {
  Shape strides = row_major_strides(shape);
  te::Idx index;
  bool outermost = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      index.push_back(te::Expr(0));
      continue;
    }
    te::Expr q = strides[d] == 1 ? flat : te::floordiv(flat, te::Expr(strides[d]));
    index.push_back(outermost ? q : te::floormod(q, te::Expr(shape[d])));
    outermost = false;
  }
  return index;
}

/// x with the row-major data of shape `out` (reshape and its kin).
inline te::Tensor te_reshape(const te::Tensor& x, const Shape& out, const std::string& name) {
  Shape in = x.shape();
  if (te_is_empty(out)) return te_empty(out, x.dtype(), name);
  te_require_int32_extent(out, name);
  return te::compute(out, [&](const te::Idx& i) { return x(te_unflatten(te_flat_index(i, out), in)); }, name);
}

/// One TE output as the vector a TeCompute returns.
inline std::vector<te::Tensor> te_one(te::Tensor t) { return std::vector<te::Tensor>{std::move(t)}; }

}  // namespace weft_tensor
