// Resource limits: how much weft accepts before it reports an error instead
// of exhausting memory or the stack. Each starts from an environment variable
// (read once, at first use) and can be set from code; docs/cli.md lists them.
#pragma once

#include <cstdint>

namespace weft {

/// The deepest nesting of function calls the interpreter runs
/// (WEFT_MAX_CALL_DEPTH; default 10,000). Deeper means runaway recursion.
/// weft::Error if the environment variable is not a positive integer.
int64_t max_call_depth();
void set_max_call_depth(int64_t depth);

}  // namespace weft
