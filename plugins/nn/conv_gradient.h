// Gradients of the convolutions, in IR form, as Relay computes conv2d's: the
// data's by the transposed convolution (or, for a transposed convolution, the
// convolution) of the output gradient with the same weight, the weight's by
// nn.conv2d_backward_weight. 1-D ones are computed as 2-D ones of height 1.
#pragma once

#include <vector>
#include <weft/plugin.hpp>

namespace weft_nn::conv {

/// nn.conv1d / nn.conv2d with NCW/NCHW data and OIW/OIHW kernels.
std::vector<weft::sdk::Expr> conv_gradient(const weft::sdk::Expr& call, const weft::sdk::Expr& grad);
/// nn.conv3d with NCDHW data, an OIDHW kernel and groups=1.
std::vector<weft::sdk::Expr> conv3d_gradient(const weft::sdk::Expr& call, const weft::sdk::Expr& grad);
/// nn.conv3d_transpose with NCDHW data, an IODHW kernel and groups=1.
std::vector<weft::sdk::Expr> conv3d_transpose_gradient(const weft::sdk::Expr& call, const weft::sdk::Expr& grad);
/// nn.conv1d_transpose / nn.conv2d_transpose with NCW/NCHW data and IOW/IOHW kernels.
std::vector<weft::sdk::Expr> conv_transpose_gradient(const weft::sdk::Expr& call, const weft::sdk::Expr& grad);

}  // namespace weft_nn::conv
