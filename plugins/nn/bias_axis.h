// A per-channel vector made to broadcast along one axis of a tensor, as the
// reference's ExpandBiasToMatchAxis (pattern_utils.h) does for the rewrites
// of SimplifyInference (batch_norm, the affine norms) and CanonicalizeOps
// (bias_add).
#pragma once

#include <cstdint>
#include <weft/plugin.hpp>

namespace weft_nn {

/// `bias` (1-D) with ndim - axis - 1 trailing unit axes, so it broadcasts
/// along `axis` (in [0, ndim)) of an ndim-D tensor: expand_dims(bias, axis=1,
/// num_newaxis=ndim - axis - 1), or bias itself when axis is the last.
inline weft::sdk::Expr expand_bias_to_axis(const weft::sdk::Expr& bias, int64_t ndim, int64_t axis) {
  int64_t trailing = ndim - axis - 1;
  if (trailing <= 0) return bias;
  return weft::sdk::call("expand_dims", {bias}, {{"axis", int64_t{1}}, {"num_newaxis", trailing}});
}

}  // namespace weft_nn
