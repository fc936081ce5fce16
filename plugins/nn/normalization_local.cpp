// nn.lrn and nn.l2_normalize: normalizations without learned parameters,
// as TOPI's lrn and l2_normalize compute them.
#include <cmath>
#include <optional>
#include <weft/sdk/gradient.hpp>

#include "normalization.h"
#include "te_util.h"

namespace weft_nn::norm {

namespace {

using weft::sdk::Value;

// ---- lrn -------------------------------------------------------------------------------------

/// TOPI's lrn takes 4-d data, an odd size and the channel axis 1 or 3.
Type lrn_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_args(args, {"data"})[0];
  if (data.ndim() != 4) throw Error("data " + data.str() + " must have 4 dimensions (NCHW or NHWC)");
  int64_t size = attrs.get_int("size"), axis = attrs.get_int("axis");
  if (size < 1 || size % 2 == 0) throw Error("size " + std::to_string(size) + " must be a positive odd number");
  if (axis != 1 && axis != 3) {
    throw Error("axis " + std::to_string(axis) + " must be 1 (NCHW) or 3 (NHWC) for data " + data.str());
  }
  return data;
}

/// out = data / (bias + alpha * sum / size) ^ beta, the sum of squares over
/// the size channels centered on each element (zero beyond the edges).
template <typename T>
void lrn_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  std::vector<int64_t> shape = in.shape();
  const int64_t size = k.attrs.get_int("size"), axis = k.attrs.get_int("axis"), half = size / 2;
  const T alpha = static_cast<T>(k.attrs.get_float("alpha")), beta = static_cast<T>(k.attrs.get_float("beta")),
          bias = static_cast<T>(k.attrs.get_float("bias"));
  const int64_t stride = strides_of(shape)[axis], channels = shape[axis];
  const T* x = in.data<T>();
  T* y = k.outputs.at(0).data<T>();
  for (int64_t e = 0, n = in.numel(); e < n; ++e) {
    int64_t c = (e / stride) % channels;
    T sum = 0;
    for (int64_t j = std::max<int64_t>(c - half, 0); j <= std::min(c + half, channels - 1); ++j) {
      T v = x[e + (j - c) * stride];
      sum += v * v;
    }
    y[e] = x[e] / std::pow(bias + alpha * sum / static_cast<T>(size), beta);
  }
}

// ---- l2_normalize ----------------------------------------------------------------------------

/// The axes marked for reduction; None or [] mean every axis (Relay's
/// reductions read an empty axis list so).
std::vector<bool> l2_axes(const Attrs& attrs, const Type& data) {
  Value axis = attrs.get_value("axis");
  std::vector<int64_t> listed = axis.is_none() ? std::vector<int64_t>{} : axis.as_ints();
  std::vector<bool> reduced(data.ndim(), listed.empty());
  for (int64_t a : listed) reduced[axis_index(a, data)] = true;
  return reduced;
}

Type l2_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_args(args, {"data"})[0];
  l2_axes(attrs, data);
  return data;
}

/// Relay's L2NormalizeInferCorrectLayout: the normalization follows the
/// layout its data arrives in, the axes renumbered by letter (None, all of
/// them, stays None), unless that layout lacks or splits one of them.
weft::sdk::InferredLayouts l2_layouts(const Attrs& attrs, const std::vector<weft::sdk::Layout>& new_in,
                                      const std::vector<weft::sdk::Layout>& old_in, const std::vector<Type>&) {
  using weft::sdk::Layout;
  const Layout& old_layout = old_in[0];
  if (!old_layout.defined()) return weft::sdk::layouts::cannot_follow(1);
  weft::sdk::InferredLayouts in_old{{old_layout}, {old_layout}, Attrs()};
  if (new_in.empty() || new_in[0] == old_layout) return in_old;
  const Layout& layout = new_in[0];
  Value axis = attrs.get_value("axis");
  std::vector<int64_t> listed = axis.is_none() ? std::vector<int64_t>{} : axis.as_ints(), moved;
  for (int64_t a : listed) {
    int64_t at = weft::sdk::layouts::renumbered_axis(old_layout, layout, a);
    if (at < 0 || layout.factor_of(layout[static_cast<size_t>(at)].name) > 0) return in_old;
    moved.push_back(at);
  }
  if (listed.empty()) return {{layout}, {layout}, Attrs()};
  return {{layout}, {layout}, weft::sdk::layouts::with(attrs, {{"axis", Value(moved)}})};
}

/// out = data / sqrt(max(sum of data^2 over the axes, eps)).
template <typename T>
void l2_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  std::vector<int64_t> shape = in.shape();
  std::vector<bool> reduced = l2_axes(k.attrs, Type::tensor(shape, in.dtype()));
  int64_t groups = 0;
  std::vector<int64_t> group_of = group_ids(shape, reduced, groups);
  const T* x = in.data<T>();
  T* y = k.outputs.at(0).data<T>();
  std::vector<T> sum(static_cast<size_t>(groups), T(0));
  for (size_t e = 0; e < group_of.size(); ++e) sum[group_of[e]] += x[e] * x[e];
  const T eps = static_cast<T>(k.attrs.get_float("eps"));
  for (size_t e = 0; e < group_of.size(); ++e) y[e] = x[e] / std::sqrt(std::max(sum[group_of[e]], eps));
}

// ---- TE computes ---------------------------------------------------------------------------

/// lrn as lrn_kernel: the sum of squares over the channels in the window
/// (those inside the axis: the reduction's condition), then the division.
std::vector<te::Tensor> lrn_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor& x = in.at(0);
  te_util::require_float(x.dtype(), "nn.lrn");
  const std::vector<int64_t> shape = x.shape();
  const int64_t size = attrs.get_int("size"), half = size / 2;
  const size_t axis = static_cast<size_t>(attrs.get_int("axis"));
  const int64_t channels = shape[axis];
  if (channels == 0) throw weft::sdk::Unsupported("nn.lrn: no TE for empty channels");
  const DLDataType dt = x.dtype();
  te::Tensor sum = te::compute(
      shape,
      [&](const te::Idx& i) {
        te::Axis r = te::reduce_axis(size, "r");
        te::Expr j = i[axis] + r.var() - te::Expr(half);
        te::Idx at = i;
        at[axis] = te_util::clamp(j, 0, channels - 1);
        te::Expr v = x(at);
        return te::sum(v * v, {r}, te::logical_and(j >= 0, j < te::Expr(channels)));
      },
      "lrn_sum");
  te::Expr alpha = te::make_const(dt, static_cast<double>(attrs.get_float("alpha")));
  te::Expr beta = te::make_const(dt, attrs.get_float("beta")), bias = te::make_const(dt, attrs.get_float("bias"));
  te::Expr n = te::make_const(dt, static_cast<double>(size));
  return {te::compute(
      shape, [&](const te::Idx& i) { return x(i) / te::pow(bias + alpha * sum(i) / n, beta); }, "lrn")};
}

/// l2_normalize as l2_kernel: the sum of squares over the reduced axes (in
/// the order of the elements), then x / sqrt(max(sum, eps)).
std::vector<te::Tensor> l2_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor& x = in.at(0);
  te_util::require_float(x.dtype(), "nn.l2_normalize");
  const std::vector<int64_t> shape = x.shape();
  std::vector<bool> reduced = l2_axes(attrs, Type::tensor(shape, x.dtype()));
  std::vector<int64_t> kept = shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced[d]) kept[d] = 1;
    if (shape[d] == 0) throw weft::sdk::Unsupported("nn.l2_normalize: no TE for empty data");
  }
  te::Tensor sum = te::compute(
      kept,
      [&](const te::Idx& i) {
        std::vector<te::Axis> r;
        te::Idx at = i;
        for (size_t d = 0; d < shape.size(); ++d) {
          if (!reduced[d]) continue;
          r.push_back(te::reduce_axis(shape[d], "r" + std::to_string(d)));
          at[d] = r.back().var();
        }
        te::Expr v = x(at);
        return te::sum(v * v, r);
      },
      "l2_sum");
  te::Expr eps = te::make_const(x.dtype(), attrs.get_float("eps"));
  return {te::compute(
      shape,
      [&](const te::Idx& i) {
        te::Idx at = i;
        for (size_t d = 0; d < shape.size(); ++d) {
          if (reduced[d]) at[d] = te::Expr(0);
        }
        return x(i) / te::sqrt(te::max(sum(at), eps));
      },
      "l2_normalize")};
}

namespace grad = weft::sdk::grad;
using weft::sdk::call;
using weft::sdk::Expr;

/// The sum over the `size` channels centered on each element along `axis`
/// (zero beyond the edges), as the sum of `size` shifted slices of the
/// zero-padded tensor. `shape` is x's static shape.
Expr window_sum(const Expr& x, const Expr& like, const std::vector<int64_t>& shape, int64_t axis, int64_t size) {
  const int64_t half = size / 2;
  std::vector<Value> widths(shape.size(), Value(std::vector<int64_t>{0, 0}));
  widths[static_cast<size_t>(axis)] = Value(std::vector<int64_t>{half, half});
  Expr padded = call("nn.pad", {x, grad::scalar_like(like, 0.0)}, {{"pad_width", widths}});
  std::optional<Expr> total;
  for (int64_t shift = 0; shift < size; ++shift) {
    std::vector<int64_t> begin(shape.size(), 0), end = shape;
    begin[static_cast<size_t>(axis)] = shift;
    end[static_cast<size_t>(axis)] = shift + shape[static_cast<size_t>(axis)];
    Expr part = call("strided_slice", {padded}, {{"begin", begin}, {"end", end}});
    total = total ? grad::add(*total, part) : part;
  }
  return *total;
}

/// lrn's gradient. With d = bias + alpha / size * window_sum(x^2) and
/// y = x * d^-beta: dx = g * d^-beta - 2 beta alpha / size * x *
/// window_sum(g * x * d^(-beta - 1)); the window is symmetric, so the
/// channels whose window holds j are the channels in j's window.
std::vector<Expr> lrn_gradient(const Expr& c, const Expr& g) {
  const Expr& x = c.arg(0);
  const Attrs& attrs = c.attrs();
  const int64_t size = attrs.get_int("size"), axis = attrs.get_int("axis");
  const double alpha = attrs.get_float("alpha"), beta = attrs.get_float("beta");
  std::vector<int64_t> shape = grad::static_shape(x, "nn.lrn's data");
  Expr d = grad::add(grad::scalar_like(x, attrs.get_float("bias")),
                     grad::mul(grad::scalar_like(x, alpha / static_cast<double>(size)),
                               window_sum(grad::mul(x, x), x, shape, axis, size)));
  Expr scale = call("power", {d, grad::scalar_like(x, -beta)});
  Expr inner = call("power", {d, grad::scalar_like(x, -beta - 1.0)});
  Expr spread = window_sum(grad::mul(g, grad::mul(x, inner)), x, shape, axis, size);
  Expr coefficient = grad::scalar_like(x, 2.0 * beta * alpha / static_cast<double>(size));
  return {grad::sub(grad::mul(g, scale), grad::mul(coefficient, grad::mul(x, spread)))};
}

/// l2_normalize's gradient. With s = sum(x^2) over the axes and
/// r = max(s, eps)^-1/2: dx = g * r - x * r^3 * sum(g * x), the second term
/// only where s > eps (below, the floor is constant).
std::vector<Expr> l2_normalize_gradient(const Expr& c, const Expr& g) {
  const Expr& x = c.arg(0);
  std::vector<bool> reduced = l2_axes(c.attrs(), x.type());
  std::vector<int64_t> axes;
  for (size_t i = 0; i < reduced.size(); ++i)
    if (reduced[i]) axes.push_back(static_cast<int64_t>(i));
  auto reduce = [&](const Expr& e) { return call("sum", {e}, {{"axis", axes}, {"keepdims", true}}); };
  Expr eps = grad::scalar_like(x, c.attrs().get_float("eps"));
  Expr s = reduce(grad::mul(x, x));
  Expr r = call("rsqrt", {call("maximum", {s, eps})});
  Expr cubed = grad::mul(r, grad::mul(r, r));
  Expr through_norm = grad::mul(cubed, reduce(grad::mul(g, x)));
  Expr floored = grad::where(call("greater", {s, eps}), through_norm, grad::zeros_like(s));
  return {grad::sub(grad::mul(g, r), grad::mul(x, floored))};
}

/// l2_normalize as arithmetic, as the reference's L2NormToInferUnpack:
/// data / sqrt(max(sum(data * data, axis, keepdims), eps)), eps a scalar of
/// data's dtype (the reference makes it float32, which float64 data fails to
/// type-check against).
Expr l2_normalize_simplified(const Expr& c) {
  Expr data = c.arg(0);
  Expr eps = grad::scalar_like(data, c.attrs().get_float("eps"));
  Expr squares = call("sum", {call("multiply", {data, data})},
                      {{"axis", c.attrs().get_value("axis")}, {"keepdims", true}, {"exclude", false}});
  return call("divide", {data, call("sqrt", {call("maximum", {squares, eps})})});
}

}  // namespace

void register_local_normalization_ops(Registrar& reg) {
  reg.op("nn.lrn")
      .describe(
          "Local response normalization across channels: out = data / (bias + alpha * sum / size) ^ beta, "
          "where sum adds the squares of the size channels centered on each element (zero beyond the "
          "edges).")
      .input("data", "Tensor", "A 4-d input (NCHW with axis 1, NHWC with axis 3).")
      .attr("size", int64_t{5}, "The number of channels summed; odd.", "a positive odd int")
      .attr("axis", int64_t{1}, "The channel axis: 1 or 3.", "1 or 3")
      .attr("bias", 2.0, "Added before the power.")
      .attr("alpha", 1e-5, "The scale of the mean square.")
      .text_default(1e-4)  // LRNAttrs' default; the Python wrapper's is 1e-5
      .attr("beta", 0.75, "The exponent.")
      .support_level(2)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(lrn_relation)
      .kernel([](const KernelArgs& k) { dispatch_float(k, [&](auto t) { lrn_kernel<decltype(t)>(k); }); })
      .te_compute(lrn_te)
      .gradient(lrn_gradient);

  reg.op("nn.l2_normalize")
      .describe("L2 normalization: out = data / sqrt(max(sum(data^2 over axis), eps)).")
      .input("data", "Tensor", "The input.")
      .attr_required("eps", WEFT_ATTR_FLOAT, "The floor under the sum of squares.", "a float")
      .attr_optional("axis", WEFT_ATTR_ANY, "The axes summed over; None (or []) sums over every axis.",
                     "None, an int or a list of ints")
      .normalize([](const Value& v) -> Value {
        if (v.type() == WEFT_ATTR_INT) return Value(std::vector<int64_t>{v.as_int()});
        if (v.type() == WEFT_ATTR_INT_LIST) return v;
        if (v.type() != WEFT_ATTR_LIST) throw Error("expected a list of ints");
        std::vector<int64_t> axes;
        for (const Value& item : v.as_list()) {
          if (item.type() != WEFT_ATTR_INT) throw Error("expected a list of ints");
          axes.push_back(item.as_int());
        }
        return Value(axes);
      })
      .support_level(2)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(l2_relation)
      .infer_layout(l2_layouts)
      .kernel([](const KernelArgs& k) {
        dispatch_float(k, [&](auto t) { l2_kernel<decltype(t)>(k); });
      })
      .te_compute(l2_te)
      .gradient(l2_normalize_gradient)
      .rewrite("simplify_inference", l2_normalize_simplified);
}

}  // namespace weft_nn::norm
