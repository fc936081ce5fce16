// Resource limits: how much weft accepts before it reports an error instead
// of exhausting memory or the stack. Each starts from an environment variable
// (read once, at first use) and can be set from code; docs/cli.md lists them.
#pragma once

#include <cstdint>
#include <span>

#include "weft/dtype.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// The largest tensor, in bytes, that types, type relations, readers and
/// allocation accept (WEFT_MAX_TENSOR_BYTES; default 16 GiB).
int64_t max_tensor_bytes();
void set_max_tensor_bytes(int64_t bytes);

/// The bytes a tensor of `shape` x `dtype` takes, checked: weft::Error naming
/// the shape and dtype when its element or byte count does not fit in int64
/// or the bytes pass max_tensor_bytes(). Unknown extents (kAnyDim) are left
/// out of the count; extents of 0 too, as NumPy does: an empty tensor's other
/// extents must still have a byte count that fits in int64, so no product of
/// a tensor's extents overflows. A rank past sdk::kMaxTensorRank (64) is an
/// error too.
int64_t checked_tensor_bytes(std::span<const int64_t> shape, DataType dtype);

/// The deepest nesting of function calls the interpreter runs
/// (WEFT_MAX_CALL_DEPTH; default 10,000). Deeper means runaway recursion.
/// weft::Error if the environment variable is not a positive integer.
int64_t max_call_depth();
void set_max_call_depth(int64_t depth);

}  // namespace weft

#pragma GCC visibility pop
