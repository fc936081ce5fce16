// nn.batch_norm, nn.instance_norm, nn.layer_norm and nn.group_norm: Relay's
// relations (nn.cc) and inference computes (TOPI's batch_norm, and what
// SimplifyInference expands the other three into). nn.lrn and
// nn.l2_normalize live in normalization_local.cpp.
#include "normalization.h"

#include <algorithm>

#include <weft/sdk/gradient.hpp>

#include "bias_axis.h"
#include "nn_ops.h"

namespace weft_nn {

namespace norm {

using weft::sdk::operator==;

std::vector<Type> tensor_args(const std::vector<Type>& args, const std::vector<std::string>& names) {
  if (args.size() != names.size()) {
    throw Error("expected " + std::to_string(names.size()) + " arguments, got " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_tensor()) throw Error("expected '" + names[i] + "' to be a tensor, got " + args[i].str());
  }
  return args;
}

size_t axis_index(int64_t axis, const Type& data, const std::string& attr) {
  const int64_t n = static_cast<int64_t>(data.ndim());
  if (axis < -n || axis >= n) {
    throw Error(attr + " " + std::to_string(axis) + " is out of range for data " + data.str() + " (expected [" +
                std::to_string(-n) + ", " + std::to_string(n) + "))");
  }
  return static_cast<size_t>(axis < 0 ? axis + n : axis);
}

void check_channel_param(const Type& param, const std::string& name, const Type& data, size_t axis) {
  int64_t channels = data.shape()[axis];
  std::vector<int64_t> shape = param.shape();
  bool ok = param.dtype() == data.dtype() && shape.size() == 1 &&
            (shape[0] == channels || shape[0] == WEFT_DIM_ANY || channels == WEFT_DIM_ANY);
  if (!ok) {
    throw Error(name + " " + param.str() + " must be a vector of data's dtype and of the extent of axis " +
                std::to_string(axis) + " of data " + data.str() + ", i.e. Tensor[(" +
                (channels == WEFT_DIM_ANY ? std::string("?") : std::to_string(channels)) + "), " +
                weft::sdk::dtype_name(data.dtype()) + "]");
  }
}

namespace {

// ---- batch_norm ------------------------------------------------------------------------------

const std::vector<std::string> kBatchNormInputs = {"data", "gamma", "beta", "moving_mean", "moving_var"};

/// Relay accepts axis -1 (the last axis) and 0..ndim-1, no other negatives.
size_t batch_norm_axis(const Attrs& attrs, const Type& data) {
  int64_t axis = attrs.get_int("axis");
  if (axis < -1 || axis >= static_cast<int64_t>(data.ndim())) {
    throw Error("axis " + std::to_string(axis) + " is out of range for data " + data.str() + " (expected -1 or 0.." +
                std::to_string(static_cast<int64_t>(data.ndim()) - 1) + ")");
  }
  return axis == -1 ? data.ndim() - 1 : static_cast<size_t>(axis);
}

Type batch_norm_relation(const std::vector<Type>& args, const Attrs& attrs) {
  std::vector<Type> t = tensor_args(args, kBatchNormInputs);
  const Type& data = t[0];
  size_t axis = batch_norm_axis(attrs, data);
  for (size_t i = 1; i < t.size(); ++i) check_channel_param(t[i], kBatchNormInputs[i], data, axis);
  Type vec = Type::tensor({data.shape()[axis]}, data.dtype());
  return Type::tuple({data, vec, vec});
}

/// Inference: the moving statistics normalize, and pass through as the
/// second and third outputs (TOPI returns them unchanged).
template <typename T>
void batch_norm_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  std::vector<int64_t> shape = in.shape();
  size_t axis = batch_norm_axis(k.attrs, Type::tensor(shape, in.dtype()));
  const T* x = in.data<T>();
  const T* gamma = k.inputs.at(1).data<T>();
  const T* beta = k.inputs.at(2).data<T>();
  const T* mean = k.inputs.at(3).data<T>();
  const T* var = k.inputs.at(4).data<T>();
  const T eps = static_cast<T>(k.attrs.get_float("epsilon"));
  const bool center = k.attrs.get_bool("center"), scale = k.attrs.get_bool("scale");
  T* y = k.outputs.at(0).data<T>();
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  for (int64_t e = 0, n = in.numel(); e < n; ++e) {
    int64_t c = (e / inner) % shape[axis];
    T v = (x[e] - mean[c]) / std::sqrt(var[c] + eps);
    if (scale) v *= gamma[c];
    if (center) v += beta[c];
    y[e] = v;
  }
  std::copy(mean, mean + shape[axis], k.outputs.at(1).data<T>());
  std::copy(var, var + shape[axis], k.outputs.at(2).data<T>());
}

// ---- instance_norm, layer_norm, group_norm ---------------------------------------------------

const std::vector<std::string> kAffineInputs = {"data", "gamma", "beta"};

enum class Kind { kInstance, kLayer, kGroup };

Type affine_norm_relation(Kind kind, const std::vector<Type>& args, const Attrs& attrs) {
  std::vector<Type> t = tensor_args(args, kAffineInputs);
  const Type& data = t[0];
  if (kind == Kind::kInstance && data.ndim() < 3) {
    throw Error("data " + data.str() + " must have at least 3 dimensions (batch, channel and a normalized axis)");
  }
  size_t axis = axis_index(attrs.get_int("axis"), data);
  check_channel_param(t[1], "gamma", data, axis);
  check_channel_param(t[2], "beta", data, axis);
  if (kind == Kind::kGroup) {
    int64_t groups = attrs.get_int("num_groups"), channels = data.shape()[axis];
    if (groups < 1 || (channels != WEFT_DIM_ANY && channels % groups != 0)) {
      throw Error("num_groups " + std::to_string(groups) + " must be positive and divide the " +
                  std::to_string(channels) + " channels of axis " + std::to_string(axis) + " of data " + data.str());
    }
  }
  return data;
}

/// Which axes each kind averages over, as SimplifyInference expands it:
/// instance_norm all but the batch axis 0 and `axis`; layer_norm `axis`;
/// group_norm, on the shape with `axis` split into (num_groups, C /
/// num_groups), the in-group channel axis and every axis after it.
template <typename T>
void affine_norm_kernel(Kind kind, const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  std::vector<int64_t> shape = in.shape();
  size_t axis = axis_index(k.attrs.get_int("axis"), Type::tensor(shape, in.dtype()));
  std::vector<int64_t> grouped = shape;
  std::vector<bool> reduced(shape.size(), false);
  if (kind == Kind::kInstance) {
    for (size_t d = 1; d < shape.size(); ++d) reduced[d] = d != axis;
  } else if (kind == Kind::kLayer) {
    reduced[axis] = true;
  } else {
    int64_t groups = k.attrs.get_int("num_groups");
    grouped[axis] = groups;
    grouped.insert(grouped.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape[axis] / groups);
    reduced.assign(grouped.size(), false);
    for (size_t d = axis + 1; d < grouped.size(); ++d) reduced[d] = true;
  }
  T* y = k.outputs.at(0).data<T>();
  normalize_over(in.data<T>(), y, grouped, reduced, k.attrs.get_float("epsilon"));
  scale_shift(y, shape, axis, k.attrs.get_bool("scale") ? k.inputs.at(1).data<T>() : nullptr,
              k.attrs.get_bool("center") ? k.inputs.at(2).data<T>() : nullptr);
}

// ---- gradients --------------------------------------------------------------------------------

namespace grad = weft::sdk::grad;
using weft::sdk::call;
using weft::sdk::Expr;

/// A per-channel vector viewed to broadcast along `axis` of data.
Expr along_axis(const Expr& channel_values, const Expr& data, size_t axis) {
  std::vector<int64_t> shape(data.type().ndim(), 1);
  shape[axis] = -1;
  return call("reshape", {channel_values}, {{"newshape", shape}});
}

/// The sum over every axis but `axis`: a per-channel gradient.
Expr per_channel(const Expr& e, size_t axis) {
  return call("sum", {e}, {{"axis", std::vector<int64_t>{static_cast<int64_t>(axis)}}, {"exclude", true}});
}

/// batch_norm at inference is affine in data per channel, with the moving
/// statistics as inputs: out = (x - mean) * rsqrt(var + eps) * gamma + beta.
/// The moving mean and variance also pass through as outputs 1 and 2.
std::vector<Expr> batch_norm_gradient(const Expr& c, const Expr& g) {
  Expr x = c.arg(0), gamma = c.arg(1), mean = c.arg(3), var = c.arg(4);
  Attrs a = c.attrs();
  size_t axis = axis_index(a.get_int("axis"), x.type());
  Expr g0 = get_item(g, 0);
  Expr shifted_var = grad::add(var, grad::scalar_like(var, a.get_float("epsilon")));
  Expr inv = call("rsqrt", {shifted_var});
  Expr scale = a.get_bool("scale") ? grad::mul(gamma, inv) : inv;
  Expr centered = grad::sub(x, along_axis(mean, x, axis));
  Expr dx = grad::mul(g0, along_axis(scale, x, axis));
  Expr dgamma =
      a.get_bool("scale") ? grad::mul(per_channel(grad::mul(g0, centered), axis), inv) : grad::zeros_like(gamma);
  Expr dbeta = a.get_bool("center") ? per_channel(g0, axis) : grad::zeros_like(c.arg(2));
  Expr dmean = grad::add(grad::neg(per_channel(dx, axis)), get_item(g, 1));
  // d rsqrt(v + eps) / dv = -0.5 rsqrt(v + eps) / (v + eps).
  Expr dinv = per_channel(grad::mul(g0, grad::mul(centered, a.get_bool("scale") ? along_axis(gamma, x, axis)
                                                                                : grad::ones_like(x))),
                          axis);
  Expr dvar = grad::add(grad::mul(dinv, grad::div(grad::mul(inv, grad::scalar_like(var, -0.5)), shifted_var)),
                        get_item(g, 2));
  return {dx, dgamma, dbeta, dmean, dvar};
}

/// instance/layer/group norm: x normalized by its own statistics over the
/// axes `kind` reduces (on the grouped view for group_norm), then scaled and
/// shifted per channel. With xhat = (x - mean) / sigma and dxhat = g gamma:
/// dx = (dxhat - mean(dxhat) - xhat mean(dxhat xhat)) / sigma over those axes.
std::vector<Expr> affine_norm_gradient(Kind kind, const Expr& c, const Expr& g) {
  Expr x = c.arg(0), gamma = c.arg(1), beta = c.arg(2);
  Attrs a = c.attrs();
  std::vector<int64_t> shape = grad::static_shape(x, "the normalized data");
  size_t axis = axis_index(a.get_int("axis"), x.type());
  std::vector<int64_t> view = shape, reduced;
  if (kind == Kind::kInstance) {
    for (size_t d = 1; d < shape.size(); ++d)
      if (d != axis) reduced.push_back(static_cast<int64_t>(d));
  } else if (kind == Kind::kLayer) {
    reduced.push_back(static_cast<int64_t>(axis));
  } else {
    int64_t groups = a.get_int("num_groups");
    view[axis] = groups;
    view.insert(view.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape[axis] / groups);
    for (size_t d = axis + 1; d < view.size(); ++d) reduced.push_back(static_cast<int64_t>(d));
  }
  auto mean_over = [&](const Expr& e) { return call("mean", {e}, {{"axis", reduced}, {"keepdims", true}}); };
  auto as_view = [&](const Expr& e) { return call("reshape", {e}, {{"newshape", view}}); };
  Expr xv = as_view(x);
  Expr mu = mean_over(xv);
  Expr var = call("variance", {xv, mu}, {{"axis", reduced}, {"keepdims", true}});
  Expr sigma = call("sqrt", {grad::add(var, grad::scalar_like(x, a.get_float("epsilon")))});
  Expr xhat = grad::div(grad::sub(xv, mu), sigma);
  Expr dxhat = as_view(a.get_bool("scale") ? grad::mul(g, along_axis(gamma, x, axis)) : g);
  Expr spread = grad::mul(xhat, mean_over(grad::mul(dxhat, xhat)));
  Expr dxv = grad::div(grad::sub(grad::sub(dxhat, mean_over(dxhat)), spread), sigma);
  Expr dgamma = a.get_bool("scale") ? per_channel(grad::mul(g, call("reshape_like", {xhat, x})), axis)
                                    : grad::zeros_like(gamma);
  Expr dbeta = a.get_bool("center") ? per_channel(g, axis) : grad::zeros_like(beta);
  return {call("reshape_like", {dxv, x}), dgamma, dbeta};
}

// ---- SimplifyInference: the reference's *ToInferUnpack (simplify_inference.cc) -----------------

/// A 0-d constant of data's dtype, as the reference's MakeConstantScalar(dtype, (float)value).
Expr scalar_of(const Type& data, double value) {
  return weft::sdk::scalar(static_cast<float>(value), data.dtype());
}

/// batch_norm at inference as arithmetic, as BatchNormToInferUnpack:
/// data * scale + shift with scale = 1 / sqrt(moving_var + epsilon) (* gamma)
/// and shift = -moving_mean * scale (+ beta), both along axis. The moving
/// statistics (outputs 1 and 2) stay projections of the call, as the
/// reference rewrites only the projection [0].
Expr batch_norm_simplified(const Expr& c) {
  Attrs a = c.attrs();
  Expr data = c.arg(0);
  Type t = data.type();
  Expr scale = call("divide", {scalar_of(t, 1.0), call("sqrt", {call("add", {c.arg(4), scalar_of(t, a.get_float("epsilon"))})})});
  if (a.get_bool("scale")) scale = call("multiply", {scale, c.arg(1)});
  Expr shift = call("multiply", {call("negative", {c.arg(3)}), scale});
  if (a.get_bool("center")) shift = call("add", {shift, c.arg(2)});
  int64_t ndim = static_cast<int64_t>(t.ndim()), axis = static_cast<int64_t>(batch_norm_axis(a, t));
  Expr out = call("add", {call("multiply", {data, expand_bias_to_axis(scale, ndim, axis)}),
                          expand_bias_to_axis(shift, ndim, axis)});
  return weft::sdk::tuple({out, get_item(c, 1), get_item(c, 2)});
}

/// instance/layer/group norm as arithmetic, as the reference's
/// InstanceNormToInferUnpack, LayerNormToInferUnpack, GroupNormToInferUnpack:
/// (x - mean) / sqrt(variance + epsilon) over the axes `kind` reduces (on the
/// grouped view for group_norm, reshaped back), then * gamma and + beta along
/// axis as the flags ask.
Expr affine_norm_simplified(Kind kind, const Expr& c) {
  Attrs a = c.attrs();
  Expr data = c.arg(0);
  Type t = data.type();
  int64_t ndim = static_cast<int64_t>(t.ndim()), axis = static_cast<int64_t>(axis_index(a.get_int("axis"), t));
  std::vector<int64_t> reduced;
  Expr x = data;
  if (kind == Kind::kInstance) {
    for (int64_t d = 1; d < ndim; ++d)
      if (d != axis) reduced.push_back(d);
  } else if (kind == Kind::kLayer) {
    reduced.push_back(a.get_int("axis"));  // as given: the reference reduces over param->axis
  } else {
    std::vector<int64_t> shape = grad::static_shape(data, "nn.group_norm's data"), grouped;
    int64_t groups = a.get_int("num_groups");
    for (int64_t d = 0; d < ndim; ++d) {
      if (d == axis) {
        grouped.push_back(groups);
        grouped.push_back(shape[d] / groups);
      } else {
        grouped.push_back(shape[d]);
      }
      if (d >= axis) reduced.push_back(d + 1);
    }
    x = call("reshape", {data}, {{"newshape", grouped}});
  }
  weft::sdk::AttrList over = {{"axis", reduced}, {"keepdims", true}, {"exclude", false}};
  Expr mean = call("mean", {x}, over);
  Expr var = call("variance", {x, mean}, over);
  Expr out = call("divide", {call("subtract", {x, mean}),
                             call("sqrt", {call("add", {var, scalar_of(t, a.get_float("epsilon"))})})});
  if (kind == Kind::kGroup) out = call("reshape", {out}, {{"newshape", grad::static_shape(data, "nn.group_norm's data")}});
  if (a.get_bool("scale")) out = call("multiply", {out, expand_bias_to_axis(c.arg(1), ndim, axis)});
  if (a.get_bool("center")) out = call("add", {out, expand_bias_to_axis(c.arg(2), ndim, axis)});
  return out;
}

void affine_attrs(OpBuilder& op, int64_t default_axis) {
  op.attr("axis", default_axis, "The channel axis, the one gamma and beta run along (negative counts from the end).")
      .attr("epsilon", 1e-5, "Added to the variance before its square root.")
      .attr("center", true, "Add beta.")
      .attr("scale", true, "Multiply by gamma.");
}

OpBuilder& affine_norm_op(Registrar& reg, const char* name, Kind kind, const std::string& doc) {
  return reg.op(name)
      .describe(doc)
      .input("data", "Tensor", "The input.")
      .input("gamma", "Tensor", "The scale, one value per channel.")
      .input("beta", "Tensor", "The offset, one value per channel.")
      .support_level(1)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(
          [kind](const std::vector<Type>& args, const Attrs& attrs) { return affine_norm_relation(kind, args, attrs); })
      // Relay's NormalizationInferCorrectLayout (layer_norm, instance_norm):
      // axis renumbered into the data's new layout, gamma and beta along it.
      // group_norm has none there: its groups split the channel axis.
      .infer_layout([kind](const Attrs& attrs, const std::vector<weft::sdk::Layout>& new_in,
                           const std::vector<weft::sdk::Layout>& old_in, const std::vector<Type>&) {
        if (kind == Kind::kGroup) return weft::sdk::layouts::cannot_follow(3);
        return weft::sdk::layouts::single_axis(attrs, new_in, old_in, "axis", 1);
      })
      .kernel([kind](const KernelArgs& k) {
        dispatch_float(k, [&](auto t) { affine_norm_kernel<decltype(t)>(kind, k); });
      })
      .gradient([kind](const Expr& c, const Expr& g) { return affine_norm_gradient(kind, c, g); })
      .rewrite("simplify_inference", [kind](const Expr& c) { return affine_norm_simplified(kind, c); });
}

}  // namespace
}  // namespace norm

void register_normalization_ops(weft::sdk::Registrar& reg) {
  using namespace norm;
  OpBuilder& bn = reg.op("nn.batch_norm")
                      .describe(
                          "Batch normalization at inference: out = (data - moving_mean) / sqrt(moving_var + epsilon) * "
                          "gamma + beta along the channel axis. Returns a tuple (out, moving_mean, moving_var); the "
                          "moving statistics pass through unchanged.")
                      .input("data", "Tensor", "The input.")
                      .input("gamma", "Tensor", "The scale, one value per channel.")
                      .input("beta", "Tensor", "The offset, one value per channel.")
                      .input("moving_mean", "Tensor", "The running mean, one value per channel.")
                      .input("moving_var", "Tensor", "The running variance, one value per channel.")
                      .support_level(1)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  bn.attr("axis", int64_t{1}, "The channel axis; -1 is the last.", "-1 or an axis of data")
      .attr("epsilon", 1e-5, "Added to the variance before its square root.")
      .attr("center", true, "Add beta.")
      .attr("scale", true, "Multiply by gamma.")
      .type_relation(batch_norm_relation)
      .infer_layout([](const weft::sdk::Attrs& attrs, const std::vector<weft::sdk::Layout>& new_in,
                       const std::vector<weft::sdk::Layout>& old_in, const std::vector<weft::sdk::Type>&) {
        return weft::sdk::layouts::single_axis(attrs, new_in, old_in, "axis", 3);
      })
      .kernel([](const KernelArgs& k) {
        dispatch_float(k, [&](auto t) { batch_norm_kernel<decltype(t)>(k); });
      })
      .gradient(batch_norm_gradient)
      .rewrite("simplify_inference", batch_norm_simplified);

  affine_attrs(affine_norm_op(reg, "nn.instance_norm", Kind::kInstance,
                              "Instance normalization: (data - mean) / sqrt(var + epsilon) * gamma + beta, mean "
                              "and (biased) variance taken per instance and channel over every other axis."),
               1);
  affine_attrs(affine_norm_op(reg, "nn.layer_norm", Kind::kLayer,
                              "Layer normalization: (data - mean) / sqrt(var + epsilon) * gamma + beta, mean and "
                              "(biased) variance taken along axis."),
               -1);
  OpBuilder& gn = affine_norm_op(reg, "nn.group_norm", Kind::kGroup,
                                 "Group normalization: the channels of axis split into num_groups groups; mean and "
                                 "(biased) variance are taken per group over its channels and every axis after "
                                 "axis; then * gamma + beta per channel.");
  gn.attr_required("num_groups", WEFT_ATTR_INT, "The number of channel groups; it must divide the channels.",
                   "a positive int");
  affine_attrs(gn, 1);

  register_local_normalization_ops(reg);
}

}  // namespace weft_nn
