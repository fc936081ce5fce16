// `weft opt --emit te|loops`: each fused group of a built program as the TE
// its ops' computes chain into, or as the loop nest that TE lowers to under
// the default schedules.
#pragma once

#include <string>

#include "weft/build.h"

namespace weft::cli {

/// One section per group, in execution order: a header naming the group,
/// its target and ops, then its TE ("te") or loop IR ("loops"), or why it
/// has none. The schedules take the traits of the config's loops options
/// (its defaults where the config gives none).
std::string emit_groups(const CompiledModule& compiled, const std::string& what);

}  // namespace weft::cli
