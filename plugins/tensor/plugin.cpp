// The tensor plugin: Relay's tensor ops, one source file per op family.
#include "tensor_ops.h"

namespace weft_tensor {

bool float_kernel_dtype(const weft::sdk::KernelArgs& k, const char* op) {
  using namespace weft::sdk;
  DLDataType dt = k.outputs.at(0).dtype();
  auto ok = [&](const TensorView& t) { return t.dtype() == dt; };
  bool same = std::all_of(k.inputs.begin(), k.inputs.end(), ok) && std::all_of(k.outputs.begin(), k.outputs.end(), ok);
  if (!same || (dt != dtype::float32 && dt != dtype::float64)) {
    throw Error(std::string(op) + ": the reference kernel supports float32 and float64 tensors of one dtype, got " +
                    dtype_name(k.inputs.at(0).dtype()),
                WEFT_STATUS_UNSUPPORTED);
  }
  return dt == dtype::float64;
}

}  // namespace weft_tensor

WEFT_PLUGIN(reg) {
  weft_tensor::register_binary_ops(reg);
  weft_tensor::register_unary_ops(reg);
  weft_tensor::register_elementwise_math_ops(reg);
  weft_tensor::register_compare_logical_ops(reg);
  weft_tensor::register_init_cast_ops(reg);
  weft_tensor::register_shape_ops(reg);
  weft_tensor::register_join_split_ops(reg);
  weft_tensor::register_indexing_ops(reg);
  weft_tensor::register_broadcast_ops(reg);
  weft_tensor::register_layout_transform_op(reg);
  weft_tensor::register_reduce_ops(reg);
}
