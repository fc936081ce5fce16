// The vocabulary of FoldScaleAxis (Relay's fold_scale_axis.cc): messages
// saying along which axes a value may be scaled, scaled values, and the
// broadcasting helpers of Relay's pattern_utils.h.
#pragma once

#include <optional>
#include <vector>

#include "graph.h"

namespace weft::fold_scale_axis {

/// Sorted axes of a tensor.
using Axes = std::vector<int64_t>;

/// A value may be scaled along `axes`; `require_positive` when an op on the
/// way (relu) commutes with the scale only for nonnegative scales.
struct Message {
  Axes axes;
  bool require_positive = false;
};
/// nullopt: no scaling can pass (Relay's NullValue<Message>).
using MaybeMessage = std::optional<Message>;

/// The axes both allow, positive if either requires it; nullopt when either is
/// nullopt or no axis is common (Relay keeps an empty message, which no
/// consumer can use).
MaybeMessage intersect(const MaybeMessage& a, const MaybeMessage& b);

/// A rewritten value in the forward pass: `value`, or, when `axes` is not
/// empty, a value that still has to be multiplied by `scale` along `axes`
/// (Relay's ScaledExpr).
struct ForwardValue {
  Expr value;
  Axes axes;
  Expr scale;
  bool scaled() const { return !axes.empty(); }
};

/// Whether rhs broadcasts onto lhs so that it varies only along lhs_axes (its
/// extents there equal lhs's, 1 elsewhere), as Relay's MatchBroadcastToLeftAxes.
/// When rhs_value is given it becomes the scale as a tensor of the matched
/// axes only: squeezed, or a scalar repeated to their extents.
bool match_broadcast_to_left_axes(const Type& lhs, const Type& rhs, const Axes& lhs_axes, Expr* rhs_value = nullptr);

/// A tensor over `axes` (in order) given dims of size 1 so that it broadcasts
/// along those axes of a rank-`ndim` tensor (Relay's ExpandBiasToMatchAxis).
Expr expand_to_axes(Expr scale, int64_t ndim, const Axes& axes);

/// The same through reshape to `shape` with 1 outside `axes` (Relay's
/// ReshapeToMatchAxis); an empty Expr when an extent there is unknown.
Expr reshape_to_axes(const Expr& scale, const std::vector<int64_t>& shape, const Axes& axes);

/// expand_to_axes for one axis, reshape_to_axes for several (Relay's
/// ReshapeOrExpandToMatchAxis).
Expr reshape_or_expand_to_axes(const Expr& scale, const std::vector<int64_t>& shape, const Axes& axes);

/// A constant with no negative element, possibly under expand_dims, reshape,
/// transpose, squeeze or repeat (Relay's IsAllPositiveConstant).
bool is_nonnegative_constant(const Expr& e);

/// The value v would have had unscaled: v.value * scale along v.axes, for a
/// consumer that cannot take the scale (Relay stops with "outstanding scale").
Expr realize(const ForwardValue& v, int64_t ndim);

Expr multiply(const Expr& a, const Expr& b);
Expr divide(const Expr& a, const Expr& b);

}  // namespace weft::fold_scale_axis
