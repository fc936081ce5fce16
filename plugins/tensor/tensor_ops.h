// The tensor plugin's op families; plugin.cpp registers them all.
#pragma once

#include <weft/plugin.hpp>

namespace weft_tensor {

/// add, subtract, multiply, divide, power, maximum, minimum, mod, floor_divide,
/// floor_mod, negative, exp, abs, sign, log, sqrt, rsqrt, tanh, sigmoid, erf,
/// floor, ceil, round, clip.
void register_elementwise_math_ops(weft::sdk::Registrar& reg);
/// equal ... greater_equal, logical_and/or/xor/not, where.
void register_compare_logical_ops(weft::sdk::Registrar& reg);
/// zeros, ones, full, zeros_like, ones_like, full_like, copy, cast.
void register_init_cast_ops(weft::sdk::Registrar& reg);
/// reshape, reshape_like, squeeze, expand_dims, transpose.
void register_shape_ops(weft::sdk::Registrar& reg);
/// concatenate, stack, split.
void register_join_split_ops(weft::sdk::Registrar& reg);
/// take, strided_slice.
void register_indexing_ops(weft::sdk::Registrar& reg);
/// broadcast_to, broadcast_to_like, collapse_sum_like, collapse_sum_to, tile, repeat.
void register_broadcast_ops(weft::sdk::Registrar& reg);
/// layout_transform.
void register_layout_transform_op(weft::sdk::Registrar& reg);
/// sum, mean, max, min, prod, all, any, argmax, argmin, variance.
void register_reduce_ops(weft::sdk::Registrar& reg);

}  // namespace weft_tensor
