// Runs a test body on a thread with a small stack, so that code which recursed
// once per node of a long chain would crash instead of passing by luck.
#pragma once

#include <cstddef>

#include "weft/stack.h"

namespace weft::testing {

using weft::run_with_stack;

/// Small enough that 100,000 nested frames cannot fit, large enough for
/// sanitizer-instrumented shallow code.
inline constexpr size_t kSmallStack = 1 << 21;

}  // namespace weft::testing
