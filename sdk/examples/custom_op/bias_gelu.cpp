// acme.bias_gelu: gelu(data + bias), the bias along one axis as nn.bias_add
// adds it, and gelu(v) = v * Phi(v) = 0.5 v (1 + erf(v / sqrt(2))). Written
// as a vendor would, against the installed SDK only: its attribute schema,
// type relation, layout hook, reference kernel, TE compute (weft's
// code-generating targets, loops, llvm and vulkan, lower it with no change)
// and gradient.
#include <weft/plugin.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace weft::sdk;

/// The axis attr as a position in [0, ndim), or an error naming the data.
int64_t bias_axis(const Attrs& attrs, int64_t ndim, const std::string& data) {
  const int64_t axis = attrs.get_int("axis");
  if (axis < -ndim || axis >= ndim)
    throw Error("acme.bias_gelu: axis " + std::to_string(axis) + " is out of range for data " + data);
  return axis < 0 ? axis + ndim : axis;
}

Type bias_gelu_relation(const std::vector<Type>& args, const Attrs& attrs) {
  const Type &data = args.at(0), &bias = args.at(1);
  if (!data.is_tensor() || !bias.is_tensor()) throw Error("acme.bias_gelu takes two tensors");
  if (data.dtype() != dtype::float32 && data.dtype() != dtype::float64)
    throw Error("acme.bias_gelu: data must be float32 or float64, got " + data.str());
  const std::vector<int64_t> shape = data.shape();
  const int64_t axis = bias_axis(attrs, static_cast<int64_t>(shape.size()), data.str());
  const Type want = Type::tensor({shape[axis]}, data.dtype());
  if (bias.dtype() != data.dtype() || bias.shape() != want.shape())
    throw Error("acme.bias_gelu: bias must be " + want.str() + " to match axis " + std::to_string(axis) +
                " of data " + data.str() + ", got " + bias.str());
  return data;
}

template <typename T>
void bias_gelu(const KernelArgs& k, int64_t axis) {
  const std::vector<int64_t> shape = k.inputs.at(0).shape();
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const T* x = k.inputs[0].data<T>();
  const T* b = k.inputs.at(1).data<T>();
  T* out = k.outputs.at(0).data<T>();
  for (int64_t i = 0, n = k.outputs[0].numel(); i < n; ++i) {
    const double v = static_cast<double>(x[i]) + static_cast<double>(b[(i / inner) % shape[axis]]);
    out[i] = static_cast<T>(0.5 * v * (1.0 + std::erf(v * M_SQRT1_2)));
  }
}

/// d/dv gelu(v) = Phi(v) + v phi(v), as IR; its constants of `typed`'s
/// dtype (v itself is built in the gradient, not yet typed).
Expr gelu_derivative(const Expr& v, const Expr& typed) {
  auto constant = [&](double value) { return grad::scalar_like(typed, value); };
  const Expr cdf = grad::mul(constant(0.5), grad::add(grad::ones_like(v), call("erf", {grad::mul(v, constant(M_SQRT1_2))})));
  const Expr pdf = grad::mul(constant(0.5 * M_2_SQRTPI * M_SQRT1_2),  // 1 / sqrt(2 pi)
                             call("exp", {grad::mul(constant(-0.5), grad::mul(v, v))}));
  return grad::add(cdf, grad::mul(v, pdf));
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.op("acme.bias_gelu")
      .describe("GELU of data plus a 1-D bias along one axis: 0.5 v (1 + erf(v / sqrt(2))), v = data + bias.")
      .input("data", "nD Tensor", "Input data, float32 or float64.")
      .input("bias", "1D Tensor", "The bias, one value per index of axis.")
      .attr("axis", int64_t{1}, "The axis the bias runs along; negative counts from the end.")
      .support_level(10)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(bias_gelu_relation)
      // A layout change moves the axis with the data's channels (NCHW -> NHWC: 1 -> 3).
      .infer_layout([](const Attrs& attrs, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                       const std::vector<Type>&) { return layouts::single_axis(attrs, new_in, old_in, "axis", 1); })
      .kernel([](const KernelArgs& k) {
        const int64_t axis = bias_axis(k.attrs, k.inputs.at(0).ndim(), "of rank " + std::to_string(k.inputs[0].ndim()));
        if (k.inputs[0].dtype() == dtype::float64)
          bias_gelu<double>(k, axis);
        else
          bias_gelu<float>(k, axis);
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
        const te::Tensor &x = in.at(0), &bias = in.at(1);
        const size_t axis = static_cast<size_t>(bias_axis(attrs, static_cast<int64_t>(x.ndim()), "of this call"));
        return te::compute(
            x.shape(),
            [&](const te::Idx& i) {
              te::Expr v = x(i) + bias(i.at(axis));
              return 0.5 * v * (1.0 + te::erf(v * M_SQRT1_2));
            },
            "bias_gelu");
      })
      .gradient([](const Expr& call_expr, const Expr& g) {
        const int64_t axis = call_expr.attrs().get_int("axis");
        const Expr v = call("nn.bias_add", {call_expr.arg(0), call_expr.arg(1)}, {{"axis", axis}});
        const Expr dv = grad::mul(g, gelu_derivative(v, call_expr.arg(0)));
        return std::vector<Expr>{dv, call("sum", {dv}, {{"axis", std::vector<int64_t>{axis}}, {"exclude", true}})};
      });
}
