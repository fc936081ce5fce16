// nn.adaptive_avg_pool2d and nn.adaptive_max_pool2d as oneDNN pooling, where
// each output bin covers the same number of input elements.
#pragma once

#include <weft/plugin.hpp>

#include <optional>

#include "op_mapping.h"

namespace onednn_target {

/// The pooling of an adaptive 2-D pool whose output extents divide the
/// input's (kernel = stride = input / output); nullopt for other ops. TVM's
/// bins otherwise start at floor(i * in / out) and end at
/// ceil((i + 1) * in / out), overlapping and of varying size, which oneDNN's
/// pooling cannot express: such a call is refused.
std::optional<PoolSpec> adaptive_pool_spec(const weft::sdk::Expr& call);

}  // namespace onednn_target
