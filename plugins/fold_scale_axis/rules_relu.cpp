// nn.relu and nn.leaky_relu pass a scale through when it is nonnegative:
// relu(s * x) = s * relu(x) for s >= 0 (leaky_relu alike).
#include "op_rules.h"

namespace weft::fold_scale_axis {

namespace {

MaybeMessage positive(const MaybeMessage& m) {
  if (!m) return m;
  return Message{m->axes, true};
}

std::vector<MaybeMessage> forward_prep(const Expr&, const MaybeMessage& out) { return {positive(out)}; }

std::optional<ForwardValue> forward_rewrite(const Expr& call, const std::vector<ForwardValue>& args,
                                            const MaybeMessage&) {
  if (!args[0].scaled()) return std::nullopt;
  return ForwardValue{rebuild_call(call)({args[0].value}), args[0].axes, args[0].scale};
}

MaybeMessage backward_prep(const Expr&, const std::vector<MaybeMessage>& in) { return positive(in[0]); }

std::optional<BackwardPlan> backward_transform(const Expr& call, const std::optional<ScaleRequest>& request,
                                               const MessageOf&) {
  if (!request) return std::nullopt;
  return BackwardPlan{{request}, rebuild_call(call)};
}

}  // namespace

const OpRules& relu_rules() {
  static const OpRules rules{forward_prep, forward_rewrite, backward_prep, backward_transform};
  return rules;
}

}  // namespace weft::fold_scale_axis
