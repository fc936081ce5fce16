// weft plugin SDK: layer helpers for model builders, as the reference
// toolkit's relay.testing.layers: each creates the variables a layer reads
// (`<name>_weight`, `<name>_gamma`, ...) unless they are given, so a network
// reads like its definition and its parameters get the names initializers
// dispatch on. Part of plugin.hpp; include that.
//
//   Expr y = layers::conv2d(x, "conv0", {{"channels", 64}, {"kernel_size", {7, 7}}});
//   y = layers::batch_norm_infer(y, "bn0", {{"epsilon", 2e-5}});
#pragma once

#include <weft/sdk/ir.hpp>

#include <string>

namespace weft::sdk::layers {

namespace detail {
inline Expr or_var(const Expr& given, const std::string& name) { return given ? given : var(name); }
}  // namespace detail

/// nn.conv2d(data, weight, attrs); weight defaults to a new var `<name>_weight`.
inline Expr conv2d(const Expr& data, const std::string& name, const AttrList& attrs = {},
                   const Expr& weight = Expr()) {
  return call("nn.conv2d", {data, detail::or_var(weight, name + "_weight")}, attrs);
}

/// nn.conv3d(data, weight, attrs); weight defaults to a new var `<name>_weight`.
inline Expr conv3d(const Expr& data, const std::string& name, const AttrList& attrs = {},
                   const Expr& weight = Expr()) {
  return call("nn.conv3d", {data, detail::or_var(weight, name + "_weight")}, attrs);
}

/// nn.conv2d_transpose(data, weight, attrs); weight defaults to `<name>_weight`.
inline Expr conv2d_transpose(const Expr& data, const std::string& name, const AttrList& attrs = {},
                             const Expr& weight = Expr()) {
  return call("nn.conv2d_transpose", {data, detail::or_var(weight, name + "_weight")}, attrs);
}

/// The four inputs of a batch norm; those left empty become new vars.
struct BatchNormInputs {
  Expr gamma, beta, moving_mean, moving_var;
};

/// nn.batch_norm in inference form: the normalized output (field 0) of a
/// batch norm over `<name>_gamma`, `_beta`, `_moving_mean` and `_moving_var`.
inline Expr batch_norm_infer(const Expr& data, const std::string& name, const AttrList& attrs = {},
                             const BatchNormInputs& given = {}) {
  Expr bn = call("nn.batch_norm",
                 {data, detail::or_var(given.gamma, name + "_gamma"), detail::or_var(given.beta, name + "_beta"),
                  detail::or_var(given.moving_mean, name + "_moving_mean"),
                  detail::or_var(given.moving_var, name + "_moving_var")},
                 attrs);
  return get_item(bn, 0);
}

/// nn.dense then nn.bias_add on the last axis, over `<name>_weight` and
/// `<name>_bias` unless given. `attrs` are dense's (units, out_dtype).
inline Expr dense_add_bias(const Expr& data, const std::string& name, const AttrList& attrs = {},
                           const Expr& weight = Expr(), const Expr& bias = Expr()) {
  Expr out = call("nn.dense", {data, detail::or_var(weight, name + "_weight")}, attrs);
  return call("nn.bias_add", {out, detail::or_var(bias, name + "_bias")}, {{"axis", -1}});
}

/// The kernel layout that goes with a data layout: NCHW -> OIHW, NHWC -> HWIO,
/// and for depthwise convolutions NHWC -> HWOI. Error for any other layout.
inline std::string conv_kernel_layout(const std::string& data_layout, bool is_depthwise = false) {
  if (data_layout == "NCHW") return "OIHW";
  if (data_layout == "NHWC") return is_depthwise ? "HWOI" : "HWIO";
  throw Error("Unknown data layout " + data_layout + " (expected NCHW or NHWC)");
}

}  // namespace weft::sdk::layers
