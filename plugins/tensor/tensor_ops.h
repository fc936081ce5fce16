// The tensor plugin's op families; plugin.cpp registers them all.
#pragma once

#include <weft/plugin.hpp>

namespace weft_tensor {

/// add, subtract, multiply, divide: NumPy broadcasting of two tensors.
void register_binary_ops(weft::sdk::Registrar& reg);
/// negative, exp: elementwise over one tensor.
void register_unary_ops(weft::sdk::Registrar& reg);

/// Throws unless every tensor is float32 or float64 and all share one dtype;
/// returns whether it is float64.
bool float_kernel_dtype(const weft::sdk::KernelArgs& k, const char* op);

}  // namespace weft_tensor
