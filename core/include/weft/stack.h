// Stacks for deep recursion: code that recurses (the interpreter's calls)
// goes through on_stack_with_room, which runs it in place while the current
// stack has room and otherwise on a fresh segment, a heap-allocated stack of
// its own, so the depth is bounded by memory and weft's limits, not by the
// native stack.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// True when the calling thread's stack has less than a safety margin left.
bool stack_nearly_full();

/// Runs fn on a new heap-allocated stack of `stack_bytes` (a thread that the
/// caller waits for) and rethrows its exception; weft::Error if the stack
/// cannot be allocated.
void run_with_stack(size_t stack_bytes, const std::function<void()>& fn);

/// The size of the segments on_stack_with_room starts.
inline constexpr size_t kStackSegmentBytes = size_t{64} << 20;

/// fn(), on a new segment when this one is nearly full.
template <typename F>
auto on_stack_with_room(F&& fn) -> decltype(fn()) {
  if (!stack_nearly_full()) return fn();
  std::optional<decltype(fn())> result;
  run_with_stack(kStackSegmentBytes, [&] { result.emplace(fn()); });
  return std::move(*result);
}

}  // namespace weft

#pragma GCC visibility pop
