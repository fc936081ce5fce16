// The layouts the onednn target asks AlterOpLayout for: convolutions on data
// in oneDNN's blocked layout (NCHW16c, NCHW8c or NCHW4c, the largest whose
// convolution oneDNN runs on a jit kernel; channels last for channels that
// fill no 16-block on AVX-512) and weights to match, so the ops
// between them follow the blocks and the data stays blocked from the first
// convolution to the last.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

namespace onednn_target {

/// `call`, an nn.conv1d/2d/3d or their _transpose, rebuilt in the layouts
/// of the largest channel block b of 16, 8 and 4 that divides its channels
/// and for which `engine` has a jit (not reference) kernel: data NC..{b}c
/// (NCW16c, NCHW16c, NCDHW16c), a conv2d's weight OIHW{b}i{b}o and a
/// depthwise conv2d's OIHW1i{b}o (oneDNN's Goihw{b}g), other weights as they
/// are; one whose input channels divide into no such block (the first, on
/// RGB) reading its data plain and writing the blocks, which oneDNN's
/// first-layer kernel does directly. TVM's x86 conv2d alter_op_layout likewise
/// picks a block that divides the channels. Output channels that fill no
/// 16-block go channels last (NHWC) instead where oneDNN runs that on an
/// AVX-512 kernel. An empty Expr (kept as it is) for other calls.
weft::sdk::Expr blocked_convolution(const weft::sdk::Expr& call, const dnnl::engine& engine);

}  // namespace onednn_target
