// The checks of a run config's values that need no registry, shared by the
// reader (a config is valid in itself once read) and check_run_config (a
// config may have been changed in code since).
#pragma once

#include <string>
#include <vector>

#include "weft/run_config.h"

namespace weft {

/// weft::Error at the offending value for an opt_level outside 0..3, threads
/// < 0, an empty or repeated target name, `ref` before another target, a pass
/// listed twice or both required and disabled, options for a target not in
/// the list.
void check_run_config_values(const RunConfig& config);

/// "a, b, c", for the lists of what is expected in messages.
std::string join_names(const std::vector<std::string>& names);

}  // namespace weft
