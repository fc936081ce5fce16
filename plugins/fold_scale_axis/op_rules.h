// What each op does in FoldScaleAxis: one table per op (Relay's
// FScaleAxisForwardPrep/Rewrite and FScaleAxisBackwardPrep/Transform attrs),
// defined in the op family's rules_*.cpp and looked up by op name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scale_axes.h"

namespace weft::fold_scale_axis {

// ---- Forward: a scale flows down from a multiply into the consumer's weight.

/// Given the message the call's consumers send it, the message each argument
/// gets (what scaling the call can absorb or pass on).
using ForwardPrep = std::vector<MaybeMessage> (*)(const Expr& call, const MaybeMessage& out);
/// The call rewritten over its rewritten arguments, given the message at the
/// call; nullopt to leave it as it is (its scaled arguments are realized).
using ForwardRewrite = std::optional<ForwardValue> (*)(const Expr& call, const std::vector<ForwardValue>& args,
                                                       const MaybeMessage& message);

// ---- Backward: a scale flows up from a multiply into the producer's weight.

/// A scale to apply along message.axes of a node's value.
struct ScaleRequest {
  Message message;
  Expr scale;
};

/// How a call is transformed: what each argument is asked to absorb, and how
/// to build the call from the transformed arguments.
struct BackwardPlan {
  std::vector<std::optional<ScaleRequest>> requests;  // one per argument
  std::function<Expr(const std::vector<Expr>& args)> build;
};

using MessageOf = std::function<MaybeMessage(const Expr&)>;
/// The message a call sends to its consumer, from its arguments' messages.
using BackwardPrep = MaybeMessage (*)(const Expr& call, const std::vector<MaybeMessage>& in);
/// The plan for a call asked to absorb `request` (nullopt: none); nullopt to
/// rebuild it as it is, which is only valid without a request.
using BackwardTransform = std::optional<BackwardPlan> (*)(const Expr& call, const std::optional<ScaleRequest>& request,
                                                          const MessageOf& message_of);

struct OpRules {
  ForwardPrep forward_prep = nullptr;
  ForwardRewrite forward_rewrite = nullptr;
  BackwardPrep backward_prep = nullptr;
  BackwardTransform backward_transform = nullptr;
};

/// The rules of the op `name`; nullptr for an op FoldScaleAxis does not know
/// (no scale passes through it).
const OpRules* op_rules(const std::string& name);

// The tables, one per op, in the op families' files.
const OpRules& relu_rules();         // nn.relu, nn.leaky_relu
const OpRules& add_subtract_rules();  // add, subtract
const OpRules& multiply_rules();
const OpRules& divide_rules();
const OpRules& bias_add_rules();  // nn.bias_add
const OpRules& conv_rules();  // nn.conv2d, nn.conv3d
const OpRules& dense_rules();

/// A BackwardPlan that rebuilds the call with its arguments as given.
std::function<Expr(const std::vector<Expr>&)> rebuild_call(const Expr& call);

}  // namespace weft::fold_scale_axis
