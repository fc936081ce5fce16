// add, subtract, multiply, divide: NumPy broadcasting, as Relay's.
#include <vector>

#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// Element strides of `in` as seen from an output of rank `out_rank`:
/// missing leading dims and dims of extent 1 repeat (stride 0).
std::vector<int64_t> broadcast_strides(const TensorView& in, size_t out_rank) {
  std::vector<int64_t> shape = in.shape();
  std::vector<int64_t> strides(out_rank, 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    size_t o = out_rank - shape.size() + i;
    strides[o] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

template <typename T, typename F>
void broadcast_apply(const KernelArgs& k, F f) {
  const TensorView& out = k.outputs.at(0);
  std::vector<int64_t> shape = out.shape();
  std::vector<int64_t> sa = broadcast_strides(k.inputs.at(0), shape.size());
  std::vector<int64_t> sb = broadcast_strides(k.inputs.at(1), shape.size());
  const T* a = k.inputs[0].data<T>();
  const T* b = k.inputs[1].data<T>();
  T* o = out.data<T>();
  std::vector<int64_t> index(shape.size(), 0);
  int64_t ia = 0, ib = 0;
  for (int64_t n = 0, total = out.numel(); n < total; ++n) {
    o[n] = f(a[ia], b[ib]);
    // Advance the multi-index like an odometer, keeping the input offsets in step.
    for (size_t d = shape.size(); d-- > 0;) {
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < shape[d]) break;
      ia -= sa[d] * shape[d];
      ib -= sb[d] * shape[d];
      index[d] = 0;
    }
  }
}

template <typename F>
Kernel binary_kernel(const char* op, F f) {
  return [op, f](const KernelArgs& k) {
    if (float_kernel_dtype(k, op)) {
      broadcast_apply<double>(k, f);
    } else {
      broadcast_apply<float>(k, f);
    }
  };
}

OpBuilder& binary_op(Registrar& reg, const char* name, const char* doc) {
  return reg.op(name)
      .describe(doc)
      .input("lhs", "Tensor", "The left operand.")
      .input("rhs", "Tensor", "The right operand; broadcast against lhs as in NumPy.")
      .support_level(1)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(broadcast_relation);
}

}  // namespace

void register_binary_ops(Registrar& reg) {
  binary_op(reg, "add", "Elementwise lhs + rhs, with broadcasting.")
      .kernel(binary_kernel("add", [](auto a, auto b) { return a + b; }));
  binary_op(reg, "subtract", "Elementwise lhs - rhs, with broadcasting.")
      .kernel(binary_kernel("subtract", [](auto a, auto b) { return a - b; }));
  binary_op(reg, "multiply", "Elementwise lhs * rhs, with broadcasting.")
      .kernel(binary_kernel("multiply", [](auto a, auto b) { return a * b; }));
  binary_op(reg, "divide", "Elementwise lhs / rhs, with broadcasting (IEEE division for floats).")
      .kernel(binary_kernel("divide", [](auto a, auto b) { return a / b; }));
}

}  // namespace weft_tensor
