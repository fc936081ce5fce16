// Each run buffer its own allocation (see buffer_assignment.h).
#include "buffer_assignment.h"

namespace weft::executor {

size_t BufferAssignment::total_bytes() const {
  size_t total = 0;
  for (const Allocation& a : allocations) total += a.nbytes;
  return total;
}

BufferAssignment assign_buffers(std::span<const RunBuffer> buffers) {
  BufferAssignment assignment;
  for (const RunBuffer& b : buffers) {
    assignment.places.push_back({assignment.allocations.size(), 0});
    assignment.allocations.push_back({b.target, b.nbytes});
  }
  return assignment;
}

}  // namespace weft::executor
