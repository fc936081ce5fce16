// Recovering boxed integers from a call's annotated result type (see boxed_ints.h).
#include "boxed_ints.h"

namespace weft::text {

namespace {

const AttrValue* find_attr(const std::vector<std::pair<std::string, AttrValue>>& attrs, std::string_view name) {
  for (const auto& [key, value] : attrs)
    if (key == name) return &value;
  return nullptr;
}

// The extent along split's axis of each part of `result`, or nullopt when
// `result` is not a tuple of tensors of one rank holding that axis.
std::optional<std::vector<Dim>> part_extents(const std::vector<std::pair<std::string, AttrValue>>& attrs,
                                             const Type& result) {
  if (!result.defined() || result->kind != TypeKind::kTuple) return std::nullopt;
  const auto& parts = static_cast<const TupleTypeNode&>(*result).fields;
  if (parts.empty()) return std::nullopt;
  const AttrValue* axis_attr = find_attr(attrs, "axis");
  if (axis_attr && axis_attr->type() != AttrType::kInt) return std::nullopt;
  int64_t axis = axis_attr ? axis_attr->as_int() : 0;  // SplitAttrs' default
  std::vector<Dim> extents;
  int ndim = -1;
  for (const Type& part : parts) {
    if (!part.defined() || part->kind != TypeKind::kTensor) return std::nullopt;
    const auto& tensor = static_cast<const TensorTypeNode&>(*part);
    if (ndim >= 0 && tensor.ndim() != ndim) return std::nullopt;
    ndim = tensor.ndim();
    int64_t a = axis < 0 ? axis + ndim : axis;
    if (a < 0 || a >= ndim) return std::nullopt;
    extents.push_back(tensor.shape[static_cast<size_t>(a)]);
  }
  return extents;
}

// N equal parts come from N sections (extents TVM printed as `?` match any).
std::optional<int64_t> split_sections(const std::vector<Dim>& extents) {
  std::optional<Dim> known;
  for (Dim d : extents) {
    if (d == kAnyDim) continue;
    if (known && *known != d) return std::nullopt;
    known = d;
  }
  return static_cast<int64_t>(extents.size());
}

std::optional<int64_t> split_index(const std::vector<Dim>& extents, size_t element, size_t list_size) {
  if (list_size + 1 != extents.size() || element >= list_size) return std::nullopt;
  int64_t end = 0;
  for (size_t i = 0; i <= element; ++i) {
    if (extents[i] == kAnyDim || __builtin_add_overflow(end, extents[i], &end)) return std::nullopt;
  }
  return end;
}

}  // namespace

std::optional<int64_t> recover_boxed_int(std::string_view op, const BoxedIntSite& site,
                                         const std::vector<std::pair<std::string, AttrValue>>& attrs,
                                         const Type& result) {
  if (op != "split" || site.attr != "indices_or_sections") return std::nullopt;
  std::optional<std::vector<Dim>> extents = part_extents(attrs, result);
  if (!extents) return std::nullopt;
  if (!site.element) return split_sections(*extents);
  const AttrValue* list = find_attr(attrs, site.attr);
  if (!list || list->type() != AttrType::kList) return std::nullopt;
  return split_index(*extents, *site.element, list->as_list().size());
}

}  // namespace weft::text
