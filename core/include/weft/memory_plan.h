// The graph executor's static memory plan: where each intermediate tensor of a
// flat schedule lives, as a byte offset in one arena per device, chosen from
// the tensors' lifetimes so that tensors never alive together share bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// One intermediate tensor of a schedule (a flat list of steps, each a kernel
/// launch), as the planner sees it. Parameters and program inputs are not
/// intermediates: they live in their own buffers.
struct PlannedValue {
  /// The last_use of a program output: it lives to the end of the run.
  static constexpr int64_t kLiveToEnd = std::numeric_limits<int64_t>::max();

  size_t nbytes = 0;
  int device = 0;  // an index into the run's devices (0, 1, ...)
  /// The step whose kernel writes it.
  int64_t defined_at = 0;
  /// The last step that reads it (defined_at for a value nobody reads).
  int64_t last_use = 0;
  /// The index of an input of the step at defined_at that the kernel there may
  /// overwrite with this value (an elementwise kernel reads each element before
  /// it writes the same one). Taken when that input's storage dies at this
  /// step, is on the same device and holds at least nbytes.
  std::optional<size_t> inplace_candidate;
  /// The index of a value whose bytes hold this one, from byte alias_offset
  /// on: a view (a reshape, squeeze or expand_dims: the same bytes, at most as
  /// many), or a part its own step writes in place before the whole is
  /// complete (an input of a concatenation the executor leaves out, written
  /// straight into its slice of the result). No storage of its own: the
  /// storage is taken from the first definition among the value and its views
  /// and parts to the last read of any of them.
  std::optional<size_t> alias_of;
  size_t alias_offset = 0;  // a multiple of MemoryPlan::kAlignment
};

/// Where the values of a schedule live.
struct MemoryPlan {
  static constexpr size_t kAlignment = 64;

  struct Placement {
    int device = 0;
    size_t offset = 0;  // from the start of the device's arena; a multiple of kAlignment
    friend bool operator==(const Placement&, const Placement&) = default;
  };
  /// One per value, in the order of the plan's input.
  std::vector<Placement> placements;
  /// Per device index (0 .. the largest device a value names): the arena size,
  /// a multiple of kAlignment.
  std::vector<size_t> arena_bytes;
  /// The bytes of every value with storage of its own (views left out): what a
  /// schedule that gives each tensor its own allocation would hold in all.
  size_t intermediate_bytes = 0;

  /// The arenas of all devices together.
  size_t total_arena_bytes() const;
  friend bool operator==(const MemoryPlan&, const MemoryPlan&) = default;
};

/// The plan for `values`. Views take the offset of the value they view plus
/// their alias_offset; a value whose in-place candidate qualifies takes that
/// candidate's offset; the rest are placed greedily by size (see
/// memory_plan.cpp). Deterministic: the same values give the same plan. A
/// malformed value (an index out of range or not defined before, a last use
/// before its definition, a view on another device, unaligned or reaching past
/// the viewed value's bytes) is a weft::Error naming it.
MemoryPlan plan_memory(std::span<const PlannedValue> values);

}  // namespace weft

#pragma GCC visibility pop
