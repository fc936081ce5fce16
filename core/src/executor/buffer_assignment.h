// Internal to the graph executor: where each run buffer of a schedule lives,
// as allocations made at the start of every run and an offset in one of them.
// The one place that decides storage: the static memory plan (memory_plan.h).
#pragma once

#include <cstddef>
#include <vector>

#include "schedule.h"

namespace weft::executor {

struct BufferAssignment {
  struct Allocation {
    int target = kHost;  // whose alloc makes it
    size_t nbytes = 0;
  };
  struct Place {
    size_t allocation = 0;
    size_t offset = 0;
  };
  std::vector<Allocation> allocations;
  std::vector<Place> places;  // one per run buffer

  /// The bytes allocated for a run, all owners together.
  size_t total_bytes() const;
};

/// One arena per memory owner and the stream that writes into it, run
/// buffers at offsets plan_memory gives from their lifetimes in the steps, in
/// place where a launch's inplace_arg dies there. A buffer read on another
/// stream than the one that wrote it lives until the reading stream's next
/// synchronize step (to the end of the run when none comes): only the host's
/// wait for the reader orders that read before a later write on the writer's
/// stream.
BufferAssignment assign_buffers(const Schedule& schedule);

}  // namespace weft::executor
