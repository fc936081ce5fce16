// Messages and broadcasting helpers of FoldScaleAxis (see scale_axes.h).
#include "scale_axes.h"

#include <algorithm>

namespace weft::fold_scale_axis {

MaybeMessage intersect(const MaybeMessage& a, const MaybeMessage& b) {
  if (!a || !b) return std::nullopt;
  Message out;
  std::set_intersection(a->axes.begin(), a->axes.end(), b->axes.begin(), b->axes.end(), std::back_inserter(out.axes));
  if (out.axes.empty()) return std::nullopt;
  out.require_positive = a->require_positive || b->require_positive;
  return out;
}

Expr multiply(const Expr& a, const Expr& b) { return sdk::call("multiply", {a, b}); }
Expr divide(const Expr& a, const Expr& b) { return sdk::call("divide", {a, b}); }

bool match_broadcast_to_left_axes(const Type& lhs, const Type& rhs, const Axes& lhs_axes, Expr* rhs_value) {
  std::vector<int64_t> tl = lhs.shape(), tr = rhs.shape();
  if (tl.size() < tr.size()) return false;
  size_t base = tl.size() - tr.size();
  // A scalar scale: repeated to the extents of the matched axes. (Relay reads
  // the first axis's extent for every axis; each axis's own is meant.)
  if (tr.empty() && rhs_value && !lhs_axes.empty()) {
    Expr v = sdk::call("expand_dims", {*rhs_value},
                       {{"axis", 0}, {"num_newaxis", static_cast<int64_t>(lhs_axes.size())}});
    for (size_t i = 0; i < lhs_axes.size(); ++i) {
      int64_t extent = tl[static_cast<size_t>(lhs_axes[i])];
      if (extent < 0) return false;
      v = sdk::call("repeat", {v}, {{"repeats", extent}, {"axis", static_cast<int64_t>(i)}});
    }
    *rhs_value = v;
    return true;
  }
  std::vector<int64_t> squeeze_axes;
  size_t j = 0;
  for (size_t i = 0; i < tl.size(); ++i) {
    if (j < lhs_axes.size() && static_cast<int64_t>(i) == lhs_axes[j]) {
      if (i < base || tl[i] < 0 || tl[i] != tr[i - base]) return false;
      ++j;
    } else if (i >= base) {
      if (tr[i - base] != 1) return false;
      squeeze_axes.push_back(static_cast<int64_t>(i - base));
    }
  }
  if (rhs_value && !squeeze_axes.empty()) *rhs_value = sdk::call("squeeze", {*rhs_value}, {{"axis", squeeze_axes}});
  return true;
}

Expr expand_to_axes(Expr scale, int64_t ndim, const Axes& axes) {
  for (size_t i = axes.size(); i != 0; --i) {
    // Dims after the last axis, then between consecutive axes.
    int64_t pad = i == axes.size() ? ndim - axes[i - 1] - 1 : axes[i] - axes[i - 1] - 1;
    if (pad > 0)
      scale = sdk::call("expand_dims", {scale}, {{"axis", static_cast<int64_t>(i)}, {"num_newaxis", pad}});
  }
  return scale;
}

Expr reshape_to_axes(const Expr& scale, const std::vector<int64_t>& shape, const Axes& axes) {
  std::vector<int64_t> newshape;
  for (size_t i = 0; i < shape.size(); ++i) {
    bool matched = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (matched && shape[i] < 0) return Expr();
    newshape.push_back(matched ? shape[i] : 1);
  }
  return sdk::call("reshape", {scale}, {{"newshape", newshape}});
}

Expr reshape_or_expand_to_axes(const Expr& scale, const std::vector<int64_t>& shape, const Axes& axes) {
  if (axes.size() > 1) return reshape_to_axes(scale, shape, axes);
  return expand_to_axes(scale, static_cast<int64_t>(shape.size()), axes);
}

namespace {

template <typename T>
bool all_nonnegative(const DLTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  const T* data = reinterpret_cast<const T*>(static_cast<const char*>(t.data) + t.byte_offset);
  return std::all_of(data, data + n, [](T v) { return v >= T(0); });
}

}  // namespace

bool is_nonnegative_constant(const Expr& e) {
  Expr at = e;
  // Peel the layout ops the scale may have gone through (a loop: Relay's tail recursion).
  for (;;) {
    std::string op = op_name(at);
    if (op == "expand_dims" || op == "reshape" || op == "transpose" || op == "squeeze" || op == "repeat") {
      at = at.arg(0);
      continue;
    }
    break;
  }
  if (at.kind() != WEFT_EXPR_CONSTANT) return false;
  DLTensor t = at.data();
  DLDataType dt = t.dtype;
  if (dt.lanes != 1) return false;
  if (dt == sdk::dtype::float32) return all_nonnegative<float>(t);
  if (dt == sdk::dtype::float64) return all_nonnegative<double>(t);
  if (dt == sdk::dtype::int8) return all_nonnegative<int8_t>(t);
  if (dt == sdk::dtype::int32) return all_nonnegative<int32_t>(t);
  if (dt == sdk::dtype::uint8) return all_nonnegative<uint8_t>(t);
  if (dt == DLDataType{kDLUInt, 32, 1}) return all_nonnegative<uint32_t>(t);
  return false;
}

Expr realize(const ForwardValue& v, int64_t ndim) {
  if (!v.scaled()) return v.value;
  return multiply(v.value, expand_to_axes(v.scale, ndim, v.axes));
}

}  // namespace weft::fold_scale_axis
