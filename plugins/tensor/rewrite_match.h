// What the tensor ops' "simplify_expr" rewrites (SimplifyExpr) ask of the
// calls they get: which op produced an argument, whether two types agree, and
// (for transpose and layout_transform, as the reference's SimplifyTranspose)
// which axis permutation a call applies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <weft/plugin.hpp>
#include <weft/sdk/layout.hpp>

namespace weft_tensor {

/// Whether `e` is a call of the op `op`.
inline bool is_call_of(const weft::sdk::Expr& e, const char* op) {
  if (e.kind() != WEFT_EXPR_CALL) return false;
  weft::sdk::Expr callee = e.callee();
  return callee.kind() == WEFT_EXPR_OP && callee.name() == op;
}

/// Whether two types are the same (their Relay text is).
inline bool same_type(const weft::sdk::Type& a, const weft::sdk::Type& b) { return a.str() == b.str(); }

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
