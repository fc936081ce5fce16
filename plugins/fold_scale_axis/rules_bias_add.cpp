// nn.bias_add passes a scale on its data's bias axis backward: s * (x + b) =
// (s * x) + s * b. Relay registers no forward rule for it.
#include "op_rules.h"

namespace weft::fold_scale_axis {

namespace {

MaybeMessage backward_prep(const Expr& call, const std::vector<MaybeMessage>& in) {
  int64_t axis = call.attrs().get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(call.arg(0).type().ndim());
  if (in[0] && in[0]->axes.size() == 1 && in[0]->axes[0] == axis) return in[0];
  return std::nullopt;
}

std::optional<BackwardPlan> backward_transform(const Expr& call, const std::optional<ScaleRequest>& request,
                                               const MessageOf& message_of) {
  if (!request || !message_of(call.arg(0))) return std::nullopt;
  auto build = rebuild_call(call);
  Expr scale = request->scale;
  return BackwardPlan{{request, std::nullopt},
                      [=](const std::vector<Expr>& args) { return build({args[0], multiply(args[1], scale)}); }};
}

}  // namespace

const OpRules& bias_add_rules() {
  static const OpRules rules{nullptr, nullptr, backward_prep, backward_transform};
  return rules;
}

}  // namespace weft::fold_scale_axis
