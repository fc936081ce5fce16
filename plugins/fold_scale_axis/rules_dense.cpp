// nn.dense consumes a scale: on its input features (forward: the weight's
// columns) or its output units (backward: the weight's rows).
#include "op_rules.h"

namespace weft::fold_scale_axis {

namespace {

// The feature axis: the last. (Relay names axis 1, the last of a 2-D data.)
Axes last_axis(const Expr& call) { return {static_cast<int64_t>(call.arg(0).type().ndim()) - 1}; }

std::vector<MaybeMessage> forward_prep(const Expr& call, const MaybeMessage&) {
  return {Message{last_axis(call), false}, std::nullopt};
}

std::optional<ForwardValue> forward_rewrite(const Expr& call, const std::vector<ForwardValue>& args,
                                            const MaybeMessage&) {
  if (!args[0].scaled() || args[1].scaled()) return std::nullopt;
  // dense(s * x, w) = dense(x, w * s): s (in,) broadcasts along w's columns.
  return ForwardValue{rebuild_call(call)({args[0].value, multiply(args[1].value, args[0].scale)}), {}, Expr()};
}

MaybeMessage backward_prep(const Expr& call, const std::vector<MaybeMessage>&) {
  return Message{last_axis(call), false};
}

std::optional<BackwardPlan> backward_transform(const Expr& call, const std::optional<ScaleRequest>& request,
                                               const MessageOf&) {
  if (!request) return std::nullopt;
  // s * dense(x, w) = dense(x, w * s[:, None]).
  Expr row_scale = expand_to_axes(request->scale, 2, {0});
  auto build = rebuild_call(call);
  return BackwardPlan{{std::nullopt, std::nullopt},
                      [=](const std::vector<Expr>& args) { return build({args[0], multiply(args[1], row_scale)}); }};
}

}  // namespace

const OpRules& dense_rules() {
  static const OpRules rules{forward_prep, forward_rewrite, backward_prep, backward_transform};
  return rules;
}

}  // namespace weft::fold_scale_axis
