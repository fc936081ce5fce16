// The tensor plugin: Relay's tensor ops, one source file per op family.
#include "tensor_ops.h"

WEFT_PLUGIN(reg) {
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
