// The layouts the llvm target asks AlterOpLayout for, so that the default
// schedules' vector lanes run along contiguous memory: a convolution's
// channels in blocks of the vector width (data NCHW{b}c, weight
// OIHW{b}i{b}o, as TVM's x86 conv2d_NCHWc), a dense layer's weight packed
// into panels of the vector width (TVM's dense_pack, weight NC{b}n). A
// constant weight's layout_transform is folded at build, so the weights are
// packed once.
#pragma once

#include <weft/plugin.hpp>

namespace llvm_target {

/// `call` rebuilt in the layouts above for blocks of `lanes` elements, or an
/// empty Expr (kept as it is) when it is no float32 nn.conv2d or nn.dense of
/// static shapes whose channels or units divide into such blocks.
weft::sdk::Expr vector_friendly_layout(const weft::sdk::Expr& call, int lanes);

}  // namespace llvm_target
