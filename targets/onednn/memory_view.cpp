// Views of weft tensors as oneDNN memory descs (memory_view.h).
#include "memory_view.h"

#include <weft/sdk/layout.hpp>

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

/// dims, strides and inner blocks of `shape` read in `groups` order. A
/// group's stride is its first run's innermost axis's; an empty group (extent
/// 1) strides as a oneDNN format tag places a unit dim, by the dims after it
/// (its kernels compare even those strides); a group's later axes of extent
/// over 1 are inner blocks, in the tensor's axis order.
dnnl::memory::desc grouped_desc(const Shape& shape, const AxisGroups& groups) {
  const Shape strides = row_major_strides(shape);
  const size_t ndims = groups.size();
  dnnl::memory::dims dims(ndims), steps(ndims), outer(ndims, 1);
  std::vector<std::pair<int, int>> inner;  // (axis, dim)
  for (size_t d = 0; d < ndims; ++d) {
    const std::vector<int>& group = groups[d];
    int64_t extent = 1;
    size_t run = 0;
    for (size_t k = 0; k < group.size(); ++k) {
      extent *= shape[group[k]];
      if (k == run && (k == 0 || group[k] == group[k - 1] + 1)) {
        ++run;
        outer[d] *= shape[group[k]];
      } else if (shape[group[k]] != 1) {
        inner.emplace_back(group[k], static_cast<int>(d));
      }
    }
    dims[d] = extent;
    if (run) steps[d] = strides[group[run - 1]];
  }
  std::sort(inner.begin(), inner.end());
  int64_t block = 1;
  for (const auto& [axis, dim] : inner) block *= shape[axis];
  for (size_t d = ndims; d-- > 0;) {
    if (groups[d].empty()) steps[d] = d + 1 < ndims ? steps[d + 1] * outer[d + 1] : block;
  }
  if (inner.empty()) return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, steps);
  // Built field by field: oneDNN's strides constructor rejects the outer
  // strides of a blocked dim, which count blocks.
  dnnl_memory_desc_t md{};
  md.ndims = static_cast<int>(ndims);
  md.data_type = dnnl_f32;
  md.format_kind = dnnl_blocked;
  for (size_t d = 0; d < ndims; ++d) {
    md.dims[d] = md.padded_dims[d] = dims[d];
    md.format_desc.blocking.strides[d] = steps[d];
  }
  md.format_desc.blocking.inner_nblks = static_cast<int>(inner.size());
  for (size_t i = 0; i < inner.size(); ++i) {
    md.format_desc.blocking.inner_blks[i] = shape[inner[i].first];
    md.format_desc.blocking.inner_idxs[i] = inner[i].second;
  }
  return dnnl::memory::desc(md);
}

}  // namespace

std::optional<AxisGroups> layout_groups(const std::string& layout, const std::string& letters) {
  weft::sdk::Layout parsed;
  try {
    parsed = weft::sdk::Layout(layout);
  } catch (const weft::sdk::LayoutError&) {
    return std::nullopt;
  }
  const size_t primal = parsed.ndim_primal();
  if (!parsed.defined() || primal != letters.size()) return std::nullopt;
  for (size_t i = 0; i < parsed.ndim(); ++i) {
    if (parsed[i].primal() != (i < primal)) return std::nullopt;  // a block amid the primal axes
  }
  AxisGroups groups;
  for (char letter : letters) {
    const int at = parsed.index_of(letter);
    if (at < 0) return std::nullopt;
    groups.push_back({at});
    const int sub = parsed.index_of(weft::sdk::LayoutAxis{letter}.sub_name());
    if (sub >= 0) groups.back().push_back(sub);
  }
  return groups;
}

bool is_blocked(const dnnl::memory::desc& desc) {
  return desc.data.format_kind == dnnl_blocked && desc.data.format_desc.blocking.inner_nblks > 0;
}

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
