// What a fused group (a Primitive function) lets the graph executor's memory
// plan do with its result: overwrite one of its inputs in place, or take an
// input's bytes as they are, with no kernel (Relay's relay.reshape_only).
#pragma once

#include <cstddef>
#include <optional>

#include "weft/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// The parameter whose buffer the group's result may overwrite: every call in
/// the group is elementwise or broadcast and the parameter has the result's
/// shape and dtype, so each element of the result depends on that
/// parameter's element at the same place only (the first such parameter).
/// nullopt for any other group, or one returning a tuple.
std::optional<size_t> inplace_parameter(const Function& primitive);

/// The parameter whose bytes are the group's result: the body is a chain of
/// calls of ops with is_reshape (Relay's TReshapeOp) ending at a parameter of
/// the result's size. nullopt for any other group.
std::optional<size_t> reshaped_parameter(const Function& primitive);

}  // namespace weft

#pragma GCC visibility pop
