// Internal to the graph executor: where each run buffer of a schedule lives,
// as allocations made at the start of every run and an offset in one of them.
// The one place that decides storage, so a memory plan can replace it.
#pragma once

#include <cstddef>
#include <span>
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

/// Every run buffer in an allocation of its own.
BufferAssignment assign_buffers(std::span<const RunBuffer> buffers);

}  // namespace weft::executor
