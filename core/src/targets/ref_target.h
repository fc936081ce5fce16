// `ref`, the reference target built into the core (see ref_target.cpp).
#pragma once

#include "weft/target.h"

namespace weft::targets {

/// The definition of `ref`: every op with a reference kernel (OpDef::kernel),
/// on 64-byte aligned host memory, synchronously. TargetRegistry::global()
/// registers it, so it is always present.
TargetDef reference_target_def();

}  // namespace weft::targets
