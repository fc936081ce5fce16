// Internal to the graph executor: what one run holds, a stream per target and
// the allocations of its run buffers, released however the run ends (after
// the streams have finished with them). Local to the run, so concurrent runs
// share nothing but the immutable schedule.
#pragma once

#include <vector>

#include "buffer_assignment.h"
#include "schedule.h"

namespace weft::executor {

class RunResources {
 public:
  RunResources(const Schedule& schedule, const BufferAssignment& buffers);
  ~RunResources();
  RunResources(const RunResources&) = delete;
  RunResources& operator=(const RunResources&) = delete;

  StreamHandle stream(int target) const { return streams_[target]; }
  BufferHandle allocation(size_t index) const { return allocations_[index]; }
  void synchronize(int target) const { schedule_.targets[target]->synchronize(streams_[target]); }
  void synchronize_all() const;

 private:
  void release() noexcept;

  const Schedule& schedule_;
  const BufferAssignment& buffers_;
  std::vector<StreamHandle> streams_;
  std::vector<BufferHandle> allocations_;
};

/// Host memory for a run buffer owned by kHost, aligned as Tensor storage.
BufferHandle alloc_host(size_t nbytes);
void free_host(BufferHandle buffer) noexcept;

}  // namespace weft::executor
