// Views of weft tensors as oneDNN memory descs (memory_view.h).
#include "memory_view.h"

#include <algorithm>

namespace onednn_target {

AxisGroups identity_groups(size_t ndim) {
  AxisGroups groups(ndim);
  for (size_t i = 0; i < ndim; ++i) groups[i] = {static_cast<int>(i)};
  return groups;
}

Shape row_major_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {

/// dims and strides of `shape` read in `groups` order; a group's stride is
/// its innermost axis's (the axes of a group are consecutive), an empty
/// group's (extent 1, outermost) the whole tensor's.
dnnl::memory::desc grouped_desc(const Shape& shape, const AxisGroups& groups) {
  Shape strides = row_major_strides(shape);
  dnnl::memory::dims dims, steps;
  for (const std::vector<int>& group : groups) {
    int64_t extent = 1;
    for (int axis : group) extent *= shape[axis];
    dims.push_back(extent);
    steps.push_back(group.empty() ? std::max<int64_t>(numel_of(shape), 1) : strides[group.back()]);
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, steps);
}

}  // namespace

dnnl::memory::desc plain_view(const Shape& shape, const AxisGroups& groups) { return grouped_desc(shape, groups); }

std::optional<dnnl::memory::desc> broadcast_view(const Shape& shape, const Shape& dst, const AxisGroups& groups) {
  if (shape.size() > dst.size()) return std::nullopt;
  Shape padded(dst.size() - shape.size(), 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  for (const std::vector<int>& group : groups) {
    bool any_full = false, any_broadcast = false;
    for (int axis : group) {
      if (padded[axis] == dst[axis] && dst[axis] != 1) any_full = true;
      else if (padded[axis] == 1) any_broadcast = any_broadcast || dst[axis] != 1;
      else return std::nullopt;
    }
    if (any_full && any_broadcast) return std::nullopt;
  }
  return grouped_desc(padded, groups);
}

}  // namespace onednn_target
