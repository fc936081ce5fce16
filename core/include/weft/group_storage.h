// What a fused group (a Primitive function) lets the graph executor's memory
// plan do with its result: overwrite one of its inputs in place, take an
// input's bytes as they are, with no kernel (Relay's relay.reshape_only), or
// be its inputs' bytes back to back, with no kernel either.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "weft/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// The parameter whose buffer the group's result may overwrite: every call in
/// the group is elementwise or broadcast and the parameter has the result's
/// shape and dtype, so each element of the result depends on that
/// parameter's element at the same place only (the first such parameter).
/// nullopt for any other group, or one returning a tuple.
std::optional<size_t> inplace_parameter(const Function& primitive);

/// Whether parameter `param` exists and has the result's static shape and
/// dtype: the bytes a kernel working in place over it writes its result to.
bool has_result_type(const Function& primitive, size_t param);

/// The parameter whose bytes are the group's result: the body is a chain of
/// calls of ops with is_reshape (Relay's TReshapeOp) ending at a parameter of
/// the result's size. nullopt for any other group.
std::optional<size_t> reshaped_parameter(const Function& primitive);

/// The tensors among the group's parameters (numbered as its launch passes
/// them: tuples flattened depth-first) whose bytes back to back, in the
/// order given, are the group's result: the body is one concatenate of a
/// tuple of distinct parameters or of one tuple parameter, and every axis
/// before the concatenated one has extent 1 (NCHW or NCHW16c channels at
/// batch 1), so each input is one contiguous slice of the result. nullopt for
/// any other group.
std::optional<std::vector<size_t>> concatenated_parameters(const Function& primitive);

}  // namespace weft

#pragma GCC visibility pop
