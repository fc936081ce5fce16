// How one weft op call maps onto oneDNN: the convolution or matrix product
// descriptor of an anchor call (nn.conv2d, nn.dense, nn.matmul,
// nn.batch_matmul), the eltwise algorithm of an activation, the binary
// algorithm of an arithmetic op. Each throws sdk::Unsupported saying why a
// call does not map; none creates a primitive.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

#include <optional>
#include <string>

#include "memory_view.h"

namespace onednn_target {

enum class AnchorKind { kConvolution, kMatmul };

/// A convolution or matrix product over float32 tensors of static shape.
struct AnchorSpec {
  AnchorKind kind = AnchorKind::kConvolution;
  dnnl::memory::desc src, dst;
  /// How the weight argument lies in memory; the primitive is asked for
  /// `any` instead when the weight is a constant (reordered once at compile).
  dnnl::memory::desc weights;
  AxisGroups dst_groups;     // the primitive's dst dims over the result's axes
  int channel_axis = 0;      // the result's axis a bias runs along
  dnnl::memory::dims strides, dilates, pad_l, pad_r;  // convolution only
};

/// The anchor of `call`, or nullopt when its op is no anchor.
std::optional<AnchorSpec> anchor_spec(const weft::sdk::Expr& call);

/// A 2-D max or average pooling (global ones included) over plain NCHW-like data.
struct PoolSpec {
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  dnnl::memory::desc src, dst;
  dnnl::memory::dims strides, kernel, dilation, pad_l, pad_r;
};

/// The pooling of `call`, or nullopt when its op is no pooling.
std::optional<PoolSpec> pool_spec(const weft::sdk::Expr& call);

/// A softmax or log_softmax over one axis of a plain tensor.
struct SoftmaxSpec {
  bool log = false;
  int axis = 0;
};

/// The softmax of `call`, or nullopt when its op is neither.
std::optional<SoftmaxSpec> softmax_spec(const weft::sdk::Expr& call);

/// An eltwise algorithm with its parameters (relu's alpha is leaky_relu's slope).
struct EltwiseSpec {
  dnnl::algorithm alg = dnnl::algorithm::eltwise_relu;
  float alpha = 0.f, beta = 0.f;
};

/// The eltwise form of a unary activation call, or nullopt for other ops.
std::optional<EltwiseSpec> eltwise_spec(const weft::sdk::Expr& call);

/// The binary algorithm of add, subtract, multiply, divide, maximum, minimum
/// and nn.bias_add (an add), or nullopt for other ops.
std::optional<dnnl::algorithm> binary_alg(const std::string& op);

/// Whether `op` gives the same result with its operands swapped.
bool commutative(dnnl::algorithm alg);

/// A float32 tensor type of static shape.
bool is_static_f32(const weft::sdk::Type& type);

/// The second operand of a binary call as it broadcasts: nn.bias_add's 1-D
/// bias placed on its axis of the data's rank; the argument's shape otherwise.
Shape binary_operand_shape(const weft::sdk::Expr& call, size_t index);

}  // namespace onednn_target
