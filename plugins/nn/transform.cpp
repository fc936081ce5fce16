// The nn data-movement family: padding, dilation, upsampling, the FIFO
// buffer and the depth/space and space/batch rearrangements. Each op lives in
// the sibling file transform.h names.
#include "nn_ops.h"
#include "transform.h"

namespace weft_nn {

void register_transform_ops(weft::sdk::Registrar& reg) {
  register_pad_ops(reg);
  register_dilate_op(reg);
  register_fifo_buffer_op(reg);
  register_upsampling_ops(reg);
  register_space_depth_ops(reg);
  register_space_batch_ops(reg);
}

}  // namespace weft_nn
