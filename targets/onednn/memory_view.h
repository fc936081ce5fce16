// How weft's row-major tensors look to oneDNN: a primitive's logical dims
// (N, C, H, W for a convolution whatever the data layout; M, N for a matrix
// product) as groups of the tensor's axes, and the strides and inner blocks
// that place them (a tensor in NCHW16c is oneDNN's nChw16c, same bytes).
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onednn_target {

using Shape = std::vector<int64_t>;

/// A primitive's dims as groups of a weft tensor's axes, outer first: a
/// convolution's NHWC output reads {{0}, {3}, {1}, {2}}; a dense over
/// (b, s, K) data reads {{0, 1}, {2}} (its rows are b * s); an NCHW16c one
/// {{0}, {1, 4}, {2}, {3}}. The axes of a group are consecutive, but for
/// inner blocks: axes after a group's first run that are the tensor's
/// trailing axes (the 16c), each a oneDNN inner block of its dim.
using AxisGroups = std::vector<std::vector<int>>;

/// One group per axis, in order.
AxisGroups identity_groups(size_t ndim);

/// The groups that read a tensor in weft layout `layout` ("NCHW16c",
/// "OIHW16i16o", "NHWC") as the dims `letters` ("NCHW", "OIHW"): per letter
/// its primal axis, then its subordinate one. nullopt where `layout` holds
/// other primal axes or a subordinate axis is not among the trailing ones.
std::optional<AxisGroups> layout_groups(const std::string& layout, const std::string& letters);

/// Whether `desc` has inner blocks (nChw16c, OIhw16i16o, ...).
bool is_blocked(const dnnl::memory::desc& desc);

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
