// `loops`, the tensor-expression debug target built into the core (see
// loops_target.cpp).
#pragma once

#include "weft/target.h"

namespace weft::targets {

/// The definition of `loops`: every op call with a TE compute, lowered under
/// the default schedules and run by the loop-IR evaluator. TargetRegistry::global()
/// registers it.
TargetDef loops_target_def();

}  // namespace weft::targets
