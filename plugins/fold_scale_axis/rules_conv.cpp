// nn.conv2d and nn.conv3d consume a scale: on their input channels (forward)
// or output channels (backward), folded into the weight. Only full (groups = 1)
// and depthwise convolutions, in plain or blocked (NCHWc-style) layouts, as
// Relay: a grouped convolution's weight holds each group's input channels on
// one I axis, which a per-channel scale cannot be broadcast onto (Relay's
// TODO), so it keeps its scale. The rules read only the layouts' C, O and I
// axes, so they hold for any number of spatial axes.
#include <algorithm>
#include <weft/sdk/layout.hpp>

#include "op_rules.h"

namespace weft::fold_scale_axis {

namespace {

using sdk::Layout;

struct ConvLayouts {
  Layout data, kernel, out;
};

ConvLayouts layouts(const Expr& call) {
  sdk::Attrs a = call.attrs();
  std::string out = a.get_string("out_layout");
  return {Layout(a.get_string("data_layout")), Layout(a.get_string("kernel_layout")),
          Layout(out.empty() ? a.get_string("data_layout") : out)};
}

// Relay's IsDepthwiseConv: the weight, read as OIHW, has `groups` output
// channels and one input channel each.
bool is_depthwise(const Expr& call, const Layout& kernel) {
  std::vector<int64_t> w = call.arg(1).type().shape();
  auto extent = [&](char axis) {
    int big = kernel.index_of(axis), small = kernel.index_of(static_cast<char>(axis - 'A' + 'a'));
    if (big < 0) return int64_t{-1};
    return w[big] * (small >= 0 ? w[small] : 1);
  };
  return extent('O') == call.attrs().get_int("groups") && extent('I') == 1;
}

// The channel axes of `layout` a message names (C, and c when blocked), when
// the convolution is of a kind whose weight can absorb them.
MaybeMessage channel_message(const Expr& call, const Layout& layout, const Layout& kernel) {
  int big = layout.index_of('C'), small = layout.index_of('c');
  if (big < 0) return std::nullopt;
  if (call.attrs().get_int("groups") != 1 && !is_depthwise(call, kernel)) return std::nullopt;
  bool kernel_blocked = kernel.index_of('o') >= 0 && kernel.index_of('i') >= 0;
  bool kernel_plain = kernel.index_of('o') < 0 && kernel.index_of('i') < 0;
  if (!((kernel_plain && small < 0) || (kernel_blocked && small >= 0))) return std::nullopt;
  Axes axes{big};
  if (small >= 0) axes.push_back(small);
  std::sort(axes.begin(), axes.end());
  return Message{axes, false};
}

// weight * scale along its `axis` channels (and their blocked part): an
// empty Expr when a blocked weight's extent there is unknown.
Expr scaled_weight(const Expr& call, const Expr& weight, const Expr& scale, char axis) {
  Layout kernel = layouts(call).kernel;
  int big = kernel.index_of(axis), small = kernel.index_of(static_cast<char>(axis - 'A' + 'a'));
  if (big < 0) return Expr();
  if (small < 0) return multiply(weight, expand_to_axes(scale, static_cast<int64_t>(kernel.ndim()), {big}));
  Axes axes{big, small};
  std::sort(axes.begin(), axes.end());
  Expr shaped = reshape_to_axes(scale, call.arg(1).type().shape(), axes);
  return shaped ? multiply(weight, shaped) : Expr();
}

std::vector<MaybeMessage> forward_prep(const Expr& call, const MaybeMessage&) {
  ConvLayouts l = layouts(call);
  return {channel_message(call, l.data, l.kernel), std::nullopt};
}

std::optional<ForwardValue> forward_rewrite(const Expr& call, const std::vector<ForwardValue>& args,
                                            const MaybeMessage&) {
  if (!args[0].scaled() || args[1].scaled()) return std::nullopt;
  // conv(s * x, w) = conv(x, w * s) with s on w's input channels (a depthwise
  // weight's output channels are its input channels).
  char axis = is_depthwise(call, layouts(call).kernel) ? 'O' : 'I';
  Expr weight = scaled_weight(call, args[1].value, args[0].scale, axis);
  if (!weight) return std::nullopt;
  return ForwardValue{rebuild_call(call)({args[0].value, weight}), {}, Expr()};
}

MaybeMessage backward_prep(const Expr& call, const std::vector<MaybeMessage>&) {
  ConvLayouts l = layouts(call);
  return channel_message(call, l.out, l.kernel);
}

std::optional<BackwardPlan> backward_transform(const Expr& call, const std::optional<ScaleRequest>& request,
                                               const MessageOf&) {
  if (!request) return std::nullopt;
  // s * conv(x, w) = conv(x, w * s) with s on w's output channels.
  Expr probe = scaled_weight(call, call.arg(1), request->scale, 'O');
  if (!probe) return std::nullopt;
  auto build = rebuild_call(call);
  Expr scale = request->scale;
  return BackwardPlan{{std::nullopt, std::nullopt}, [=](const std::vector<Expr>& args) {
                        return build({args[0], scaled_weight(call, args[1], scale, 'O')});
                      }};
}

}  // namespace

const OpRules& conv_rules() {
  static const OpRules rules{forward_prep, forward_rewrite, backward_prep, backward_transform};
  return rules;
}

}  // namespace weft::fold_scale_axis
