// The -O optimization pipeline: the passes relay.build runs before code
// generation, in its order, as one Sequential gated by the PassContext.
#pragma once

#include <string>
#include <vector>

#include "weft/pass.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// The names of the pipeline's passes in the order they run: the reference's
/// (TVM v0.19 GetPassPrefix, then FuseOps) for the passes weft has. A name
/// appears once per run (FoldConstant twice). See pipeline.cpp for where new
/// passes go and which of the reference's passes weft leaves out.
const std::vector<std::string>& optimization_pass_names();

/// "OptimizationPipeline" (opt_level 0): a sequential of the passes above,
/// created from `registry` (so passes from plugins are loaded on demand), each
/// run when the context enables it: its opt_level <= the context's opt_level
/// (-O N sets opt_level N), or required, and not disabled. A listed name that
/// nobody provides is a weft::Error naming it, never a pass silently skipped.
Pass optimization_pipeline(PassRegistry& registry = PassRegistry::global());

}  // namespace weft

#pragma GCC visibility pop
