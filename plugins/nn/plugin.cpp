// The nn plugin: convolution, pooling, normalization, activations, dense and
// the other ops of Relay's nn namespace.
#include "nn_ops.h"

WEFT_PLUGIN(reg) {
  weft_nn::register_convolution_ops(reg);
  weft_nn::register_pooling_ops(reg);
  weft_nn::register_normalization_ops(reg);
  weft_nn::register_activation_ops(reg);
  weft_nn::register_dense_ops(reg);
  weft_nn::register_loss_ops(reg);
  weft_nn::register_transform_ops(reg);
  weft_nn::register_conv_gemm_ops(reg);
  weft_nn::register_sparse_ops(reg);
  weft_nn::register_bitserial_ops(reg);
  weft_nn::register_weight_inference(reg);
}
