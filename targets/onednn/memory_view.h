// How weft's row-major tensors look to oneDNN: a primitive's logical dims
// (N, C, H, W for a convolution whatever the data layout; M, N for a matrix
// product) as groups of the tensor's axes, and the strides that place them.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

#include <optional>
#include <vector>

namespace onednn_target {

using Shape = std::vector<int64_t>;

/// A primitive's dims as groups of consecutive axes of a weft tensor: a
/// convolution's NHWC output reads {{0}, {3}, {1}, {2}}; a dense over
/// (b, s, K) data reads {{0, 1}, {2}} (its rows are b * s).
using AxisGroups = std::vector<std::vector<int>>;

/// One group per axis, in order.
AxisGroups identity_groups(size_t ndim);

/// The desc of a float32 tensor of `shape` (row-major) read in `groups` order.
dnnl::memory::desc plain_view(const Shape& shape, const AxisGroups& groups);

/// The desc of a float32 tensor of `shape` broadcast (NumPy rules) to `dst`
/// and read in `groups` order, as a binary operand: a group is either all of
/// dst's extent or all 1. nullopt where a group mixes the two, or `shape`
/// does not broadcast to `dst`.
std::optional<dnnl::memory::desc> broadcast_view(const Shape& shape, const Shape& dst, const AxisGroups& groups);

/// Row-major strides of `shape`, in elements.
Shape row_major_strides(const Shape& shape);

int64_t numel_of(const Shape& shape);

}  // namespace onednn_target
