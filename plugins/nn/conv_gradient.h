// Gradients of the convolutions, in IR form, in every layout and grouping the
// forward ops take: the call is moved to its canonical layout (NC<spatial>
// data, (O|I)(I|O)<spatial> weight) with layout_transform, differentiated
// there, and the gradients moved back. As Relay computes conv2d's, the data's
// gradient is the transposed convolution (for a transposed convolution, the
// convolution) of the output gradient with the same weight; the weight's is
// itself a convolution of the data with the output gradient (see
// conv_gradient.cpp).
#pragma once

#include <vector>
#include <weft/plugin.hpp>

namespace weft_nn::conv {

/// nn.conv1d/2d/3d and the blocked nn.contrib_conv2d_NCHWc and
/// nn.contrib_depthwise_conv2d_NCHWc: any layout, groups, depthwise weights.
std::vector<weft::sdk::Expr> conv_gradient(const weft::sdk::Expr& call, const weft::sdk::Expr& grad);
/// nn.conv1d/2d/3d_transpose: any layout and groups.
std::vector<weft::sdk::Expr> conv_transpose_gradient(const weft::sdk::Expr& call, const weft::sdk::Expr& grad);
/// nn.conv2d_backward_weight (a double backward): with respect to the output
/// gradient and the data it takes, in any of its layouts.
std::vector<weft::sdk::Expr> conv2d_backward_weight_gradient(const weft::sdk::Expr& call,
                                                             const weft::sdk::Expr& grad);

}  // namespace weft_nn::conv
