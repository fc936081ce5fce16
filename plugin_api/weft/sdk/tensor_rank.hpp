// The most axes a tensor type may have, shared by the core (every tensor type
// it makes, parsed or returned by a relation) and the plugins: a relation
// whose output rank comes from an attr (expand_dims' num_newaxis) checks it
// before allocating the shape, so an absurd value is an error naming the attr
// instead of an exhausted memory (header-only, no weft types).
#pragma once

#include <cstdint>

namespace weft::sdk {

/// NumPy's limit (NPY_MAXDIMS, 64 since NumPy 2.0); TVM sets none, and no
/// model comes near it.
inline constexpr int64_t kMaxTensorRank = 64;

}  // namespace weft::sdk
