// The nn plugin's op families; each registers its ops from its own file.
#pragma once

#include <weft/plugin.hpp>

namespace weft_nn {

void register_convolution_ops(weft::sdk::Registrar& reg);
void register_pooling_ops(weft::sdk::Registrar& reg);
void register_normalization_ops(weft::sdk::Registrar& reg);
void register_activation_ops(weft::sdk::Registrar& reg);
void register_dense_ops(weft::sdk::Registrar& reg);
void register_loss_ops(weft::sdk::Registrar& reg);
void register_transform_ops(weft::sdk::Registrar& reg);
void register_conv_gemm_ops(weft::sdk::Registrar& reg);
void register_sparse_ops(weft::sdk::Registrar& reg);
void register_bitserial_ops(weft::sdk::Registrar& reg);
/// After the others: types of untyped weights (weight_inference.cpp).
void register_weight_inference(weft::sdk::Registrar& reg);

}  // namespace weft_nn
