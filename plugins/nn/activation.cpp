// Activations: relu, leaky_relu, prelu, softmax, fast_softmax, log_softmax
// and dropout, as Relay's nn namespace defines them (TVM v0.19: relations in
// src/relay/op/nn/nn.cc, computes in TOPI).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "nn_ops.h"
#include "te_util.h"
#include "tensor_access.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;

/// Rectifier with slope `negative_slope` below zero (0 for relu), over one float tensor.
void rectify(const KernelArgs& k, double negative_slope) {
  with_float_type(k.inputs.at(0), [&](auto tag) {
    using T = decltype(tag);
    const T* in = k.inputs[0].data<T>();
    T* out = k.outputs.at(0).data<T>();
    const T slope = static_cast<T>(negative_slope);
    for (int64_t i = 0, n = k.outputs[0].numel(); i < n; ++i) out[i] = in[i] > T(0) ? in[i] : slope * in[i];
  });
}

// ---- prelu -------------------------------------------------------------------------------------

// The reference reads axis as a plain index: no negative axes (topi::prelu checks it).
Type prelu_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Type alpha = tensor_arg(args, 1, "alpha");
  int64_t axis = attrs.get_int("axis");
  std::vector<int64_t> shape = data.shape();
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
    throw Error("axis " + std::to_string(axis) + " is out of range for data " + data.str() + " (expected an axis in [0, " +
                std::to_string(shape.size()) + "))");
  }
  std::vector<int64_t> a = alpha.shape();
  if (a.size() != 1 || !dims_agree(a[0], shape[axis]) || alpha.dtype() != data.dtype()) {
    throw Error("alpha must hold one slope per channel of axis " + std::to_string(axis) + ": expected " +
                Type::tensor({shape[axis]}, data.dtype()).str() + ", got " + alpha.str() + " for data " + data.str());
  }
  return data;
}

void prelu_kernel(const KernelArgs& k) {
  const TensorView& data = k.inputs.at(0);
  std::vector<int64_t> shape = data.shape();
  int64_t axis = k.attrs.get_int("axis");
  int64_t channels = shape.at(axis);
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  with_float_type(data, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data.data<T>();
    const T* slope = k.inputs.at(1).data<T>();
    T* out = k.outputs.at(0).data<T>();
    for (int64_t i = 0, n = data.numel(); i < n; ++i) {
      T s = slope[(i / inner) % channels];
      out[i] = x[i] > T(0) ? x[i] : x[i] * s;
    }
  });
}

// ---- softmax family ----------------------------------------------------------------------------

Type softmax_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  normalize_axis(attrs.get_int("axis"), data.ndim(), "data " + data.str());
  return data;
}

/// TOPI's fast_exp for float32 (topi/elemwise.h): a range reduction to
/// 2^n * e^f with a degree-7 polynomial for e^f; other dtypes use exp.
float fast_exp(float v) {
  const float x = std::max(std::min(v, 88.3762626647950f), -88.3762626647949f);
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float f = x - n * 0.6931471805599453f;
  const float y =
      (((((((1.9875691500E-4f * f + 1.3981999507E-3f) * f + 8.3334519073E-3f) * f + 4.1665795894E-2f) * f +
          1.6666665459E-1f) *
             f +
         5.0000001201E-1f) *
            f * f) +
       f + 1.0f);
  const int32_t bits = static_cast<int32_t>(n + 127.0f) << 23;
  float two_n;
  std::memcpy(&two_n, &bits, sizeof two_n);
  return std::max(two_n * y, v);
}
double fast_exp(double v) { return std::exp(v); }

enum class SoftmaxKind { kSoftmax, kFastSoftmax, kLogSoftmax };

/// Softmax along one axis: the input viewed as (outer, extent, inner), each
/// (outer, inner) line normalized with its maximum subtracted first, as TOPI does.
Kernel softmax_kernel(SoftmaxKind kind) {
  return [kind](const KernelArgs& k) {
    const TensorView& data = k.inputs.at(0);
    std::vector<int64_t> shape = data.shape();
    int64_t axis = normalize_axis(k.attrs.get_int("axis"), shape.size(), "data");
    int64_t extent = shape[axis], outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    with_float_type(data, [&](auto tag) {
      using T = decltype(tag);
      const T* x = data.data<T>();
      T* out = k.outputs.at(0).data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
          const int64_t base = o * extent * inner + in;
          T m = x[base];
          for (int64_t e = 1; e < extent; ++e) m = std::max(m, x[base + e * inner]);
          T sum = 0;
          for (int64_t e = 0; e < extent; ++e) {
            const int64_t i = base + e * inner;
            T ex = kind == SoftmaxKind::kFastSoftmax ? fast_exp(x[i] - m) : std::exp(x[i] - m);
            if (kind != SoftmaxKind::kLogSoftmax) out[i] = ex;
            sum += ex;
          }
          for (int64_t e = 0; e < extent; ++e) {
            const int64_t i = base + e * inner;
            out[i] = kind == SoftmaxKind::kLogSoftmax ? x[i] - m - std::log(sum) : out[i] / sum;
          }
        }
      }
    });
  };
}

OpBuilder& softmax_op(Registrar& reg, const char* name, const char* doc, SoftmaxKind kind) {
  return reg.op(name)
      .describe(doc)
      .input("data", "Tensor", "The input tensor.")
      .attr("axis", int64_t{-1}, "The axis to normalize over; negative counts from the end.")
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(softmax_relation)
      .infer_layout([](const Attrs& attrs, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                       const std::vector<Type>&) { return layouts::single_axis(attrs, new_in, old_in, "axis", 1); })
      .kernel(softmax_kernel(kind));
}

// ---- dropout -----------------------------------------------------------------------------------

// Relay's nn.dropout yields (result, mask); relay.nn.dropout() in Python takes
// field 0 of it and dropout_raw() returns the call itself. No op of its own.
Type dropout_relation(const std::vector<Type>& args, const Attrs&) {
  Type data = tensor_arg(args, 0, "data");
  return Type::tuple({data, data});
}

// At inference nothing is dropped: the data passes through and the mask is all ones.
void dropout_kernel(const KernelArgs& k) {
  const TensorView& data = k.inputs.at(0);
  with_float_type(data, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data.data<T>();
    T* out = k.outputs.at(0).data<T>();
    T* mask = k.outputs.at(1).data<T>();
    for (int64_t i = 0, n = data.numel(); i < n; ++i) {
      out[i] = x[i];
      mask[i] = T(1);
    }
  });
}

// ---- TE computes -------------------------------------------------------------------------------

/// x > 0 ? x : slope * x, as rectify.
TeCompute rectify_te(const char* name, bool has_alpha) {
  return [name, has_alpha](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
    const te::Tensor& x = in.at(0);
    te_util::require_float(x.dtype(), name);
    te::Expr slope = te::make_const(x.dtype(), has_alpha ? attrs.get_float("alpha") : 0.0);
    return std::vector<te::Tensor>{te::compute(
        x.shape(), [&](const te::Idx& i) { return te::select(x(i) > 0, x(i), slope * x(i)); }, name)};
  };
}

std::vector<te::Tensor> prelu_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor &x = in.at(0), &alpha = in.at(1);
  te_util::require_float(x.dtype(), "nn.prelu");
  const size_t axis = static_cast<size_t>(attrs.get_int("axis"));
  return {te::compute(
      x.shape(), [&](const te::Idx& i) { return te::select(x(i) > 0, x(i), x(i) * alpha(i.at(axis))); }, "prelu")};
}

/// The maximum as the kernel folds it, m = x0 then m = m < x ? x : m: x0
/// combined with the rest folded from -inf (equal even for NaN and -inf).
te::Reducer fold_max(DLDataType dt) {
  return te::comm_reducer(
      [](const std::vector<te::Expr>& a, const std::vector<te::Expr>& b) {
        return std::vector<te::Expr>{te::select(a[0] < b[0], b[0], a[0])};
      },
      {te::make_const(dt, -std::numeric_limits<double>::infinity())}, "fold_max");
}

/// fast_exp in float32, operation for operation (2^n as the kernel builds
/// it from bits: 0 for n = -127, infinity for n = 128, else exactly 2^n).
te::Expr fast_exp_te(const te::Expr& v) {
  auto c = [](float f) { return te::make_const(dtype::float32, static_cast<double>(f)); };
  const te::Expr x = te::max(te::min(v, c(88.3762626647950f)), c(-88.3762626647949f));
  const te::Expr n = te::floor(x * c(1.44269504088896341f) + c(0.5f));
  const te::Expr f = x - n * c(0.6931471805599453f);
  te::Expr p = c(1.9875691500E-4f) * f + c(1.3981999507E-3f);
  p = p * f + c(8.3334519073E-3f);
  p = p * f + c(4.1665795894E-2f);
  p = p * f + c(1.6666665459E-1f);
  p = p * f + c(5.0000001201E-1f);
  const te::Expr y = p * f * f + f + c(1.0f);
  const te::Expr two_n = te::select(n < c(-126.5f), c(0.0f),
                                    te::select(n > c(127.5f), c(std::numeric_limits<float>::infinity()),
                                               te::pow(c(2.0f), n)));
  return te::max(two_n * y, v);
}

/// Softmax (or log_softmax) as the kernel: the maximum along the axis, the
/// sum of exp(x - max), then exp(x - max) / sum (x - max - log(sum)).
TeCompute softmax_te(SoftmaxKind kind) {
  return [kind](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
    const te::Tensor& x = in.at(0);
    te_util::require_float(x.dtype(), "softmax");
    const bool fast = kind == SoftmaxKind::kFastSoftmax && x.dtype() == dtype::float32;
    auto exp_of = [fast](const te::Expr& e) { return fast ? fast_exp_te(e) : te::exp(e); };
    std::vector<int64_t> shape = x.shape();
    const size_t axis = static_cast<size_t>(normalize_axis(attrs.get_int("axis"), shape.size(), "data"));
    const int64_t extent = shape[axis];
    for (int64_t d : shape) {
      if (d == 0) throw Unsupported("softmax: no TE for empty data");
    }
    std::vector<int64_t> reduced = shape;
    reduced[axis] = 1;
    auto at = [&](const te::Idx& i, const te::Expr& e) {
      te::Idx j = i;
      j[axis] = e;
      return x(j);
    };
    te::Tensor m;
    if (extent <= 1) {
      m = te::compute(reduced, [&](const te::Idx& i) { return at(i, 0); }, "max");
    } else {
      te::Reducer r = fold_max(x.dtype());
      te::Tensor rest = te::compute_multi(
          reduced,
          [&](const te::Idx& i) {
            te::Axis e = te::reduce_axis(1, extent - 1, "k");
            return te::reduce(r, {at(i, e.var())}, {e});
          },
          "max_rest")[0];
      m = te::compute(reduced, [&](const te::Idx& i) { return te::max(at(i, 0), rest(i)); }, "max");
    }
    auto m_at = [&](const te::Idx& i) {
      te::Idx j = i;
      j[axis] = te::Expr(0);
      return m(j);
    };
    te::Tensor s = te::compute(
        reduced,
        [&](const te::Idx& i) {
          te::Axis e = te::reduce_axis(extent, "k");
          return te::sum(exp_of(at(i, e.var()) - m_at(i)), {e});
        },
        "exp_sum");
    auto s_at = [&](const te::Idx& i) {
      te::Idx j = i;
      j[axis] = te::Expr(0);
      return s(j);
    };
    if (kind == SoftmaxKind::kLogSoftmax) {
      return std::vector<te::Tensor>{te::compute(
          shape, [&](const te::Idx& i) { return x(i) - m_at(i) - te::log(s_at(i)); }, "log_softmax")};
    }
    return std::vector<te::Tensor>{
        te::compute(shape, [&](const te::Idx& i) { return exp_of(x(i) - m_at(i)) / s_at(i); }, "softmax")};
  };
}

using Grads = std::vector<Expr>;

/// `g` where x >= 0, `negative_part` where x < 0.
Expr rectified(const Expr& x, const Expr& g, const Expr& negative_part) {
  return grad::where(call("less", {x, grad::zeros_like(x)}), negative_part, g);
}

/// Softmax's gradient: (g - sum(g * y)) * y along axis, y the softmax (the call).
Grads softmax_gradient(const Expr& c, const Expr& g) {
  std::vector<int64_t> axis = {c.attrs().get_int("axis")};
  Expr dot = call("sum", {grad::mul(g, c)}, {{"axis", axis}, {"keepdims", true}});
  return Grads{grad::mul(grad::sub(g, dot), c)};
}

}  // namespace

void register_activation_ops(Registrar& reg) {
  reg.op("nn.relu")
      .describe("Rectified linear unit, elementwise max(data, 0).")
      .input("data", "Tensor", "The input tensor.")
      .support_level(1)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation)
      .infer_layout(layouts::elementwise)
      .kernel([](const KernelArgs& k) { rectify(k, 0.0); })
      .te_compute(rectify_te("relu", false))
      .gradient([](const Expr& c, const Expr& g) { return Grads{rectified(c.arg(0), g, grad::zeros_like(g))}; });

  reg.op("nn.leaky_relu")
      .describe("Leaky rectified linear unit: data > 0 ? data : alpha * data, elementwise.")
      .input("data", "Tensor", "The input tensor.")
      .attr("alpha", 0.01, "Slope for negative inputs.")
      .text_default(0.25)  // LeakyReluAttrs' default; the Python wrapper's is 0.01
      .support_level(3)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation)
      .infer_layout(layouts::elementwise)
      .kernel([](const KernelArgs& k) { rectify(k, k.attrs.get_float("alpha")); })
      .te_compute(rectify_te("leaky_relu", true))
      .gradient([](const Expr& c, const Expr& g) {
        Expr x = c.arg(0);
        return Grads{rectified(x, g, grad::mul(g, grad::scalar_like(x, c.attrs().get_float("alpha"))))};
      });

  reg.op("nn.prelu")
      .describe("Parametric rectified linear unit: data > 0 ? data : alpha[c] * data, with c the index along axis.")
      .input("data", "Tensor", "The input tensor.")
      .input("alpha", "1D Tensor", "One slope per channel of `axis`.")
      .attr("axis", int64_t{1}, "The channel axis, in [0, rank).")
      .support_level(3)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(prelu_relation)
      // Relay's PReluInferCorrectLayout: data stays in the layout it had (axis
      // is not renumbered), alpha runs along that axis.
      .infer_layout([](const Attrs& attrs, const std::vector<Layout>&, const std::vector<Layout>& old_in,
                       const std::vector<Type>&) {
        const Layout& data = old_in[0];
        int64_t axis = attrs.get_int("axis");
        if (!data.defined() || axis < 0 || static_cast<size_t>(axis) >= data.ndim()) return layouts::cannot_follow(2);
        return InferredLayouts{{data, Layout(std::string(1, data[static_cast<size_t>(axis)].name))}, {data}, Attrs()};
      })
      .kernel(prelu_kernel)
      .te_compute(prelu_te)
      .gradient([](const Expr& c, const Expr& g) {
        // alpha runs along axis: view it with 1s elsewhere to broadcast.
        Expr x = c.arg(0), alpha = c.arg(1);
        int64_t axis = c.attrs().get_int("axis");
        std::vector<int64_t> shape(x.type().ndim(), 1);
        shape.at(static_cast<size_t>(axis)) = -1;
        Expr slope = call("reshape", {alpha}, {{"newshape", shape}});
        Expr negative = call("less", {x, grad::zeros_like(x)});
        Expr dx = grad::where(negative, grad::mul(g, slope), g);
        Expr dalpha = call("sum", {grad::where(negative, grad::mul(g, x), grad::zeros_like(x))},
                           {{"axis", std::vector<int64_t>{axis}}, {"exclude", true}});
        return Grads{dx, dalpha};
      });

  softmax_op(reg, "nn.softmax", "Softmax along axis: exp(x_i) / sum_j exp(x_j).", SoftmaxKind::kSoftmax)
      .te_compute(softmax_te(SoftmaxKind::kSoftmax))
      .gradient(softmax_gradient);
  // The fast exponential approximates exp, so the gradient is softmax's.
  softmax_op(reg, "nn.fast_softmax",
             "Softmax along axis computed with the reference's fast exponential approximation "
             "(float32; other dtypes use exp).",
             SoftmaxKind::kFastSoftmax)
      .te_compute(softmax_te(SoftmaxKind::kFastSoftmax))
      .gradient(softmax_gradient);
  softmax_op(reg, "nn.log_softmax", "Log of softmax along axis: x_i - log(sum_j exp(x_j)).", SoftmaxKind::kLogSoftmax)
      .te_compute(softmax_te(SoftmaxKind::kLogSoftmax))
      .gradient([](const Expr& c, const Expr& g) {
        // g - softmax * sum(g) along axis.
        Expr total = call("sum", {g}, {{"axis", std::vector<int64_t>{c.attrs().get_int("axis")}}, {"keepdims", true}});
        return Grads{grad::sub(g, grad::mul(call("exp", {c}), total))};
      });

  reg.op("nn.dropout")
      .describe(
          "Dropout. Yields a tuple (result, mask); at inference the result is the data unchanged and the mask is "
          "all ones. Training-time dropping (each element zeroed with probability rate, the rest scaled by "
          "1/(1-rate)) is the reference's definition and is not drawn by this reference kernel.")
      .input("data", "Tensor", "The input tensor.")
      .attr("rate", 0.5, "Probability of an element being dropped during training.")
      .support_level(1)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(dropout_relation)
      // Elementwise (ElemwiseArbitraryLayout): the result and the mask in the data's layout.
      .infer_layout([](const Attrs& attrs, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                       const std::vector<Type>& types) {
        InferredLayouts out = layouts::elementwise(attrs, new_in, old_in, types);
        out.outputs.push_back(out.outputs[0]);
        return out;
      })
      .kernel(dropout_kernel)
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs&, const Type&) {
        const te::Tensor& x = in.at(0);
        te_util::require_float(x.dtype(), "nn.dropout");
        return std::vector<te::Tensor>{
            te::compute(x.shape(), [&](const te::Idx& i) { return x(i); }, "dropout"),
            te::compute(x.shape(), [&](const te::Idx&) { return te::make_const(x.dtype(), 1.0); }, "dropout_mask")};
      })
      .gradient([](const Expr&, const Expr& g) {
        // The result is the data (nothing dropped at inference); the mask is constant.
        return Grads{get_item(g, 0)};
      })
      // At inference the result is the data, as the reference's SimplifyInference
      // rewrites dropout(x)[0]; the mask stays a projection of the call.
      .rewrite("simplify_inference", [](const Expr& c) { return tuple({c.arg(0), get_item(c, 1)}); });
}

}  // namespace weft_nn
