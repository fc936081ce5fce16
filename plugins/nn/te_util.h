// Helpers the nn ops' TE computes share (docs/te.md): dtype checks that
// mirror what the reference kernels accept, clamped indices whose bounds the
// interval proof sees at once, and C-order index arithmetic.
#pragma once

#include <weft/plugin.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace weft_nn {
namespace te = weft::sdk::te;

namespace te_util {

inline bool is_float32_or_64(DLDataType t) { return t.lanes == 1 && t.code == kDLFloat && (t.bits == 32 || t.bits == 64); }

/// Declines (the group goes to the next target) a dtype the reference kernel
/// does not take: float32 and float64 only.
inline void require_float(DLDataType t, const char* op) {
  if (!is_float32_or_64(t)) throw weft::sdk::Unsupported(std::string(op) + ": the TE covers float32 and float64");
}

/// Whether the dtype is an integer or float scalar of the kernels' plain set.
inline bool is_plain(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLInt || t.code == kDLUInt) return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  return t.code == kDLFloat && (t.bits == 32 || t.bits == 64);
}

/// e clamped to [lo, hi]: where e is known to lie there the value is e, and
/// the clamp lets the bounds proof see it.
inline te::Expr clamp(const te::Expr& e, int64_t lo, int64_t hi) {
  return te::min(te::max(e, te::Expr(lo)), te::Expr(hi));
}

/// e clamped to [0, n - 1] where the bounds proof knows nothing of e (an
/// index computed in float): the clamp's interval leaves int32's range on
/// one side, so it is also taken modulo n, which changes nothing there.
inline te::Expr clamp_index(const te::Expr& e, int64_t n) {
  return te::floormod(clamp(e, 0, n - 1), te::Expr(n));
}

/// The C-order multi-index of `shape` at flat offset `flat` (in [0, prod)).
inline te::Idx unravel(const te::Expr& flat, const std::vector<int64_t>& shape) {
  te::Idx out(shape.size());
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    te::Expr q = strides[d] == 1 ? flat : te::floordiv(flat, te::Expr(strides[d]));
    out[d] = d == 0 ? q : te::floormod(q, te::Expr(shape[d]));
    if (shape[d] == 1) out[d] = te::Expr(0);
  }
  return out;
}

/// The C-order flat offset of `index` in `shape`.
inline te::Expr ravel(const te::Idx& index, const std::vector<int64_t>& shape) {
  te::Expr flat = index.empty() ? te::Expr(0) : index[0];
  for (size_t d = 1; d < shape.size(); ++d) flat = flat * te::Expr(shape[d]) + index[d];
  return flat;
}

/// A layout convertible from `canonical` (NCHW, OIHW8i8o, ...): indices of
/// the canonical axes to the layout's and back.
class LayoutMap {
 public:
  LayoutMap(const std::string& name, const std::string& canonical) : block_(canonical.size(), 0) {
    const weft::sdk::Layout layout(name);
    for (const weft::sdk::LayoutAxis& a : layout.axes()) {
      size_t c = canonical.find(a.primal_name());
      axes_.push_back({c, a.factor});
      if (a.factor) block_[c] = a.factor;
    }
  }
  /// The layout's index of the element at canonical index `c`.
  te::Idx to_layout(const te::Idx& c) const {
    te::Idx out;
    for (const auto& [axis, factor] : axes_) {
      if (factor) out.push_back(te::floormod(c[axis], te::Expr(factor)));
      else if (block_[axis]) out.push_back(te::floordiv(c[axis], te::Expr(block_[axis])));
      else out.push_back(c[axis]);
    }
    return out;
  }
  /// The canonical index of the element at the layout's index `l`.
  te::Idx to_canonical(const te::Idx& l) const {
    te::Idx out(block_.size());
    for (size_t i = 0; i < axes_.size(); ++i) {
      const auto& [axis, factor] = axes_[i];
      if (factor) continue;
      out[axis] = l[i];
    }
    for (size_t i = 0; i < axes_.size(); ++i) {
      const auto& [axis, factor] = axes_[i];
      if (factor) out[axis] = out[axis] * te::Expr(factor) + l[i];
    }
    return out;
  }

 private:
  std::vector<std::pair<size_t, int64_t>> axes_;
  std::vector<int64_t> block_;
};

/// Declines the dtypes a convolution kernel does not take: its two operands
/// (data and weight, or gradient and data) of the dtypes it reads, its
/// accumulator (out_dtype) float32, float64 or int32.
inline void require_conv_dtypes(const std::string& op, DLDataType acc, DLDataType data, DLDataType weight) {
  using namespace weft::sdk;
  auto readable = [](DLDataType t) {
    return t == dtype::float32 || t == dtype::float64 || t == dtype::int8 || t == dtype::uint8 || t == dtype::int32 ||
           t == dtype::int64;
  };
  if (!(acc == dtype::float32 || acc == dtype::float64 || acc == dtype::int32) || !readable(data) || !readable(weight))
    throw Unsupported(op + ": no TE for these dtypes");
}

/// Declines shapes with no elements (the kernels write nothing there).
inline void require_nonempty(const std::string& op, std::initializer_list<const std::vector<int64_t>*> shapes) {
  for (const std::vector<int64_t>* shape : shapes)
    for (int64_t d : *shape)
      if (d == 0) throw weft::sdk::Unsupported(op + ": no TE for empty tensors");
}

/// a * b for non-negative a and b, saturating at int64's largest value.
inline int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<int64_t>::max() : out;
}

/// Declines a call whose index arithmetic could leave int32, the TE's index
/// dtype (an attr there is an immediate that would take int32 and wrap): each
/// value of each attr named, and `span`, the largest index magnitude the
/// compute reaches (the sum of the terms, saturating), must fit in int32.
/// The reason names the op and the attr.
inline void require_int32_index(const std::string& op,
                                std::initializer_list<std::pair<const char*, const std::vector<int64_t>*>> attrs,
                                const std::vector<int64_t>& span) {
  constexpr int64_t kMax = 2147483647;
  for (const auto& [name, values] : attrs) {
    for (int64_t v : *values) {
      if (v > kMax || v < -kMax) {
        throw weft::sdk::Unsupported(op + ": the TE indexes in int32, and " + name + " holds " + std::to_string(v));
      }
    }
  }
  int64_t total = 0;
  for (int64_t t : span) {
    if (t < 0 || __builtin_add_overflow(total, t, &total)) total = kMax + 1;
    if (total > kMax) {
      std::string names;
      for (const auto& a : attrs) {
        if (names.find(a.first) == std::string::npos) names += std::string(names.empty() ? "" : ", ") + a.first;
      }
      throw weft::sdk::Unsupported(op + ": the TE indexes in int32, and its indices (from " + names +
                                   " and the shapes) reach past it");
    }
  }
}

/// t[i] in the accumulator's dtype, as the kernels convert each value they load.
inline te::Expr load_as(DLDataType acc, const te::Tensor& t, const te::Idx& i) {
  using weft::sdk::operator==;
  te::Expr v = t(i);
  return t.dtype() == acc ? v : te::cast(acc, v);
}

}  // namespace te_util
}  // namespace weft_nn
