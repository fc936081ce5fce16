// negative, exp: elementwise over one tensor, with IR gradients.
#include <cmath>

#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

template <typename F>
Kernel unary_kernel(const char* op, F f) {
  return [op, f](const KernelArgs& k) {
    auto apply = [&](auto* in, auto* out) {
      for (int64_t i = 0, n = k.outputs[0].numel(); i < n; ++i) out[i] = f(in[i]);
    };
    if (float_kernel_dtype(k, op)) {
      apply(k.inputs.at(0).data<double>(), k.outputs[0].data<double>());
    } else {
      apply(k.inputs.at(0).data<float>(), k.outputs[0].data<float>());
    }
  };
}

OpBuilder& unary_op(Registrar& reg, const char* name, const char* doc, int level) {
  return reg.op(name)
      .describe(doc)
      .input("data", "Tensor", "The input tensor.")
      .support_level(level)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation);
}

}  // namespace

void register_unary_ops(Registrar& reg) {
  unary_op(reg, "negative", "Elementwise -data.", 3)
      .kernel(unary_kernel("negative", [](auto x) { return -x; }))
      .gradient([](const Expr&, const Expr& grad) { return std::vector<Expr>{call("negative", {grad})}; });
  unary_op(reg, "exp", "Elementwise e^data.", 1)
      .kernel(unary_kernel("exp", [](auto x) { return std::exp(x); }))
      .gradient([](const Expr& c, const Expr& grad) {
        // d/dx e^x = e^x: reuse the call itself rather than recomputing it.
        return std::vector<Expr>{call("multiply", {grad, c})};
      });
}

}  // namespace weft_tensor
