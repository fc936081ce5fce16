// nn.layer_norm and nn.lrn as oneDNN's layer_normalization and lrn
// primitives (standalone_primitive.h).
#include "op_mapping.h"
#include "standalone_primitive.h"

namespace onednn_target {

namespace sdk = weft::sdk;

namespace {

/// (data - mean) / sqrt(variance + epsilon) * gamma + beta over the last
/// axis: oneDNN normalizes over a tensor's last dim only, so a layer_norm on
/// another axis is declined.
StandaloneSpec layer_norm_spec(const sdk::Expr& call) {
  const sdk::Attrs attrs = call.attrs();
  const Shape data = call.arg(0).type().shape();
  const int64_t ndim = static_cast<int64_t>(data.size());
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += ndim;
  if (axis != ndim - 1) {
    refuse(call, "axis " + std::to_string(attrs.get_int("axis")) + " of " + call.arg(0).type().str() +
                     " is not the last: oneDNN's layer normalization runs over the last axis only");
  }
  const bool scale = attrs.get_bool("scale"), center = attrs.get_bool("center");
  const float epsilon = static_cast<float>(attrs.get_float("epsilon"));
  StandaloneSpec spec;
  spec.what = "layer_normalization";
  spec.dst = plain_view(data, identity_groups(data.size()));
  spec.inputs.push_back({0, DNNL_ARG_SRC, spec.dst});
  const dnnl::memory::desc per_channel = plain_view({data.back()}, identity_groups(1));
  auto flags = dnnl::normalization_flags::none;
  if (scale) {
    spec.inputs.push_back({1, DNNL_ARG_SCALE, per_channel});
    flags |= dnnl::normalization_flags::use_scale;
  }
  if (center) {
    spec.inputs.push_back({2, DNNL_ARG_SHIFT, per_channel});
    flags |= dnnl::normalization_flags::use_shift;
  }
  const dnnl::memory::desc src = spec.dst;
  spec.make = [src, epsilon, flags](const dnnl::engine& engine, const dnnl::primitive_attr& attr) {
    using lnorm = dnnl::layer_normalization_forward;
    const lnorm::desc desc(dnnl::prop_kind::forward_inference, src, epsilon, flags);
    return dnnl::primitive_desc_base(lnorm::primitive_desc(desc, attr, engine));
  };
  return spec;
}

/// data / (bias + alpha / size * sum of squares over the size channels
/// around)^beta, TOPI's lrn, is oneDNN's lrn_across_channels with k = bias
/// (oneDNN divides alpha by the local size too). The channel axis, 1 or 3,
/// is the view's dim 1.
StandaloneSpec lrn_spec(const sdk::Expr& call) {
  const sdk::Attrs attrs = call.attrs();
  const Shape data = call.arg(0).type().shape();
  const int64_t axis = attrs.get_int("axis");
  if (data.size() != 4 || (axis != 1 && axis != 3)) refuse(call, "it is not over axis 1 or 3 of 4-d data");
  const AxisGroups groups = axis == 1 ? identity_groups(4) : AxisGroups{{0}, {3}, {1}, {2}};
  StandaloneSpec spec;
  spec.what = "lrn";
  spec.dst = plain_view(data, groups);
  spec.inputs.push_back({0, DNNL_ARG_SRC, spec.dst});
  const dnnl::memory::desc src = spec.dst;
  const int64_t size = attrs.get_int("size");
  const float alpha = static_cast<float>(attrs.get_float("alpha")), beta = static_cast<float>(attrs.get_float("beta"));
  const float k = static_cast<float>(attrs.get_float("bias"));
  spec.make = [src, size, alpha, beta, k](const dnnl::engine& engine, const dnnl::primitive_attr& attr) {
    const dnnl::lrn_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::lrn_across_channels, src,
                                       size, alpha, beta, k);
    return dnnl::primitive_desc_base(dnnl::lrn_forward::primitive_desc(desc, attr, engine));
  };
  return spec;
}

}  // namespace

std::optional<StandaloneSpec> normalization_spec(const sdk::Expr& call) {
  const std::string op = call.op_name();
  if (op != "nn.layer_norm" && op != "nn.lrn") return std::nullopt;
  expect_f32_call(call);
  return op == "nn.layer_norm" ? layer_norm_spec(call) : lrn_spec(call);
}

}  // namespace onednn_target
