// How one weft op call maps onto oneDNN: the (de)convolution or matrix
// product descriptor of an anchor call (nn.conv1d/2d/3d and their
// transposes, nn.dense, nn.matmul, nn.batch_matmul), the eltwise algorithm of an activation, the binary
// algorithm of an arithmetic op. Each throws sdk::Unsupported saying why a
// call does not map; none creates a primitive.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

#include <optional>
#include <string>
#include <vector>

#include "memory_view.h"

namespace onednn_target {

enum class AnchorKind { kConvolution, kDeconvolution, kMatmul };

/// A convolution, deconvolution or matrix product over float32 tensors of static shape.
struct AnchorSpec {
  AnchorKind kind = AnchorKind::kConvolution;
  dnnl::memory::desc src, dst;
  /// How the weight argument lies in memory; the primitive is asked for
  /// `any` instead when the weight is a constant (reordered once at compile).
  dnnl::memory::desc weights;
  AxisGroups dst_groups;     // the primitive's dst dims over the result's axes
  std::vector<int> channel_axes;  // the result's axes a bias runs along (C, then a block's c)
  dnnl::memory::dims strides, dilates, pad_l, pad_r;  // (de)convolution only

  /// Whether the weights are read as they lie (nn.batch_matmul's operand),
  /// not reordered into the layout the primitive picks.
  bool weights_as_given() const { return kind == AnchorKind::kMatmul && src.dims().size() == 3; }
};

/// The anchor of `call`, or nullopt when its op is no anchor.
std::optional<AnchorSpec> anchor_spec(const weft::sdk::Expr& call);

/// Whether `op` is nn.conv1d/2d/3d or their _transpose (convolution_mapping.cpp).
bool is_convolution_op(const std::string& op);

/// The convolution (or, transposed, deconvolution) anchor of such a call.
AnchorSpec convolution_spec(const weft::sdk::Expr& call);

/// A 2-D max or average pooling (global ones included) over NCHW-like data,
/// plain or blocked (NCHW16c).
struct PoolSpec {
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  dnnl::memory::desc src, dst;
  dnnl::memory::dims strides, kernel, dilation, pad_l, pad_r;
};

/// The pooling of `call`, or nullopt when its op is no pooling.
std::optional<PoolSpec> pool_spec(const weft::sdk::Expr& call);

/// A layout_transform between two layouts oneDNN describes (NCHW, NHWC,
/// NCHW16c, OIHW16i16o, ...): a reorder from `src` to `dst`.
struct ReorderSpec {
  dnnl::memory::desc src, dst;
};

/// The reorder of `call`, or nullopt when its op is not layout_transform.
std::optional<ReorderSpec> reorder_spec(const weft::sdk::Expr& call);

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

/// Whether a primitive descriptor's implementation name ("ref:any",
/// "jit_1x1:avx512_core") is one of oneDNN's reference kernels: plain loops,
/// orders of magnitude slower than its jit ones.
bool is_reference_implementation(const std::string& impl_info);

/// The second operand of a binary call as it broadcasts: nn.bias_add's 1-D
/// bias placed on its axis of the data's rank; the argument's shape otherwise.
Shape binary_operand_shape(const weft::sdk::Expr& call, size_t index);

// Shared by the mapping files.

/// Throws sdk::Unsupported: "oneDNN does not run OP: why".
[[noreturn]] void refuse(const weft::sdk::Expr& call, const std::string& why);

/// Refuses a call whose result, arguments or out_dtype are not float32 of static shape.
void expect_f32_call(const weft::sdk::Expr& call);

/// The value of a float32 constant of one element; nullopt for anything else.
std::optional<double> scalar_constant(const weft::sdk::Expr& e);

/// The position of each letter of `letters` in `layout`, which must be a
/// permutation of them ("NHWC" over "NCHW" gives {0, 3, 1, 2}).
std::optional<std::vector<int>> letter_positions(const std::string& layout, const std::string& letters);

/// The groups reading `layout` as the dims `letters` (layout_groups), or a
/// refusal naming the `what` layout attr.
AxisGroups layout_axes(const weft::sdk::Expr& call, const std::string& layout, const std::string& letters,
                       const std::string& what);

}  // namespace onednn_target
