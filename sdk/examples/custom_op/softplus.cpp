// example.softplus: log(1 + e^(beta * x)) / beta, written as a third party would,
// against the installed SDK only: a reference kernel, and a TE compute that
// weft's code-generating targets (and `loops`) lower.
#include <weft/plugin.hpp>

#include <cmath>

namespace {

using namespace weft::sdk;

template <typename T>
void softplus(const KernelArgs& k, double beta) {
  const T* in = k.inputs.at(0).data<T>();
  T* out = k.outputs.at(0).data<T>();
  for (int64_t i = 0, n = k.outputs[0].numel(); i < n; ++i)
    out[i] = static_cast<T>(std::log1p(std::exp(beta * in[i])) / beta);
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.op("example.softplus")
      .describe("Smooth ReLU: log(1 + exp(beta * x)) / beta.")
      .input("data", "Tensor", "The input tensor.")
      .attr("beta", 1.0, "Sharpness; larger is closer to ReLU.")
      .support_level(10)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation)
      .kernel([](const KernelArgs& k) {
        const double beta = k.attrs.get_float("beta");
        if (k.inputs.at(0).dtype() == dtype::float64) {
          softplus<double>(k, beta);
        } else if (k.inputs.at(0).dtype() == dtype::float32) {
          softplus<float>(k, beta);
        } else {
          throw Error("example.softplus supports float32 and float64, got " + dtype_name(k.inputs[0].dtype()));
        }
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
        const te::Tensor& x = in.at(0);
        te::Expr beta = te::make_const(x.dtype(), attrs.get_float("beta"));
        return te::compute(
            x.shape(), [&](const te::Idx& i) { return te::log(1.0 + te::exp(beta * x(i))) / beta; }, "softplus");
      });
}
