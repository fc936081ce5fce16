// What a fused group (a Primitive function) lets the graph executor's memory
// plan do with its result: overwrite one of its inputs in place.
#pragma once

#include <cstddef>
#include <optional>

#include "weft/expr.h"

namespace weft {

/// The parameter whose buffer the group's result may overwrite: every call in
/// the group is elementwise or broadcast and the parameter has the result's
/// shape and dtype, so each element of the result depends on that
/// parameter's element at the same place only (the first such parameter).
/// nullopt for any other group, or one returning a tuple.
std::optional<size_t> inplace_parameter(const Function& primitive);

}  // namespace weft
