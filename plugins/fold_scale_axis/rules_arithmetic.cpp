// add and subtract pass a scale through (the other operand is divided by it
// going forward, multiplied by it going backward); multiply and divide by a
// per-channel tensor produce the scale.
#include "op_rules.h"

namespace weft::fold_scale_axis {

namespace {

Type type_of_arg(const Expr& call, size_t i) { return call.arg(i).type(); }

// ---- add, subtract

std::vector<MaybeMessage> add_forward_prep(const Expr& call, const MaybeMessage& out) {
  Type lhs = type_of_arg(call, 0), rhs = type_of_arg(call, 1);
  if (out && match_broadcast_to_left_axes(lhs, rhs, out->axes)) return {out, std::nullopt};
  if (out && match_broadcast_to_left_axes(rhs, lhs, out->axes)) return {std::nullopt, out};
  return {std::nullopt, std::nullopt};
}

std::optional<ForwardValue> add_forward_rewrite(const Expr& call, const std::vector<ForwardValue>& args,
                                                const MaybeMessage&) {
  // Exactly one operand scaled: (s * x) + y = s * (x + y / s).
  if (args[0].scaled() == args[1].scaled()) return std::nullopt;
  size_t scaled = args[0].scaled() ? 0 : 1, other = 1 - scaled;
  const ForwardValue& s = args[scaled];
  Expr scale = reshape_or_expand_to_axes(s.scale, type_of_arg(call, scaled).shape(), s.axes);
  if (!scale) return std::nullopt;
  std::vector<Expr> operands(2);
  operands[scaled] = s.value;
  operands[other] = divide(args[other].value, scale);
  return ForwardValue{rebuild_call(call)(operands), s.axes, s.scale};
}

MaybeMessage add_backward_prep(const Expr& call, const std::vector<MaybeMessage>& in) {
  Type lhs = type_of_arg(call, 0), rhs = type_of_arg(call, 1);
  if (in[0] && match_broadcast_to_left_axes(lhs, rhs, in[0]->axes)) return in[0];
  if (in[1] && match_broadcast_to_left_axes(rhs, lhs, in[1]->axes)) return in[1];
  // Two scaled operands of one shape, scaled along the same axes.
  if (in[0] && in[1] && in[0]->axes == in[1]->axes && lhs.shape() == rhs.shape()) return in[0];
  return std::nullopt;
}

std::optional<BackwardPlan> add_backward_transform(const Expr& call, const std::optional<ScaleRequest>& request,
                                                   const MessageOf& message_of) {
  if (!request) return std::nullopt;
  bool lhs = message_of(call.arg(0)).has_value(), rhs = message_of(call.arg(1)).has_value();
  if (lhs && rhs) return BackwardPlan{{request, request}, rebuild_call(call)};
  if (!lhs && !rhs) return std::nullopt;
  // s * (x + y) = (s * x) + s * y: the unscaled operand is multiplied.
  size_t scaled = lhs ? 0 : 1;
  Expr other_scale = reshape_or_expand_to_axes(request->scale, type_of_arg(call, scaled).shape(), request->message.axes);
  if (!other_scale) return std::nullopt;
  std::vector<std::optional<ScaleRequest>> requests(2);
  requests[scaled] = request;
  auto build = rebuild_call(call);
  return BackwardPlan{requests, [=](const std::vector<Expr>& args) {
                        std::vector<Expr> operands = args;
                        operands[1 - scaled] = multiply(args[1 - scaled], other_scale);
                        return build(operands);
                      }};
}

// ---- multiply, divide: the producers

// The scale that operand `scaled` of a multiply (of a divide: the dividend)
// gets from the other along m's axes: the other squeezed to those axes (its
// reciprocal for a divide); nullopt when the other is not per-channel there or,
// when m requires it, not a nonnegative constant.
std::optional<Expr> factor_for(const Expr& call, size_t scaled, const Message& m, bool divides) {
  if (divides && scaled == 1) return std::nullopt;  // c / x is no scaling of x
  Type t_scaled = type_of_arg(call, scaled), t_factor = type_of_arg(call, 1 - scaled);
  Expr factor = call.arg(1 - scaled);
  if (!match_broadcast_to_left_axes(t_scaled, t_factor, m.axes, &factor)) return std::nullopt;
  if (m.require_positive && !is_nonnegative_constant(factor)) return std::nullopt;
  if (!divides) return factor;
  DLDataType dt = t_factor.dtype();
  if (dt != sdk::dtype::float32 && dt != sdk::dtype::float64) return std::nullopt;
  return divide(sdk::scalar(1.0, dt), factor);
}

template <bool kDivides>
std::optional<ForwardValue> producer_forward_rewrite(const Expr& call, const std::vector<ForwardValue>& args,
                                                     const MaybeMessage& message) {
  if (!message || args[0].scaled() || args[1].scaled()) return std::nullopt;
  for (size_t scaled : {size_t{0}, size_t{1}})
    if (auto factor = factor_for(call, scaled, *message, kDivides))
      return ForwardValue{args[scaled].value, message->axes, *factor};
  return std::nullopt;
}

template <bool kDivides>
std::optional<BackwardPlan> producer_backward_transform(const Expr& call, const std::optional<ScaleRequest>&,
                                                        const MessageOf& message_of) {
  // As Relay: the operand with a message is scaled, the left one first.
  for (size_t scaled : {size_t{0}, size_t{1}}) {
    MaybeMessage m = message_of(call.arg(scaled));
    if (!m) continue;
    auto factor = factor_for(call, scaled, *m, kDivides);
    if (!factor) return std::nullopt;
    std::vector<std::optional<ScaleRequest>> requests(2);
    requests[scaled] = ScaleRequest{*m, *factor};
    // The product is the scaled operand, which absorbed the factor.
    return BackwardPlan{requests, [scaled](const std::vector<Expr>& args) { return args[scaled]; }};
  }
  return std::nullopt;
}

}  // namespace

const OpRules& add_subtract_rules() {
  static const OpRules rules{add_forward_prep, add_forward_rewrite, add_backward_prep, add_backward_transform};
  return rules;
}

const OpRules& multiply_rules() {
  static const OpRules rules{nullptr, producer_forward_rewrite<false>, nullptr, producer_backward_transform<false>};
  return rules;
}

// Not in Relay's tables: x / c is x * (1 / c), which FoldConstant folds.
const OpRules& divide_rules() {
  static const OpRules rules{nullptr, producer_forward_rewrite<true>, nullptr, producer_backward_transform<true>};
  return rules;
}

}  // namespace weft::fold_scale_axis
