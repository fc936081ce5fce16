// Internal to the graph executor: what one run holds, a stream per target and
// the allocations of its run buffers, released however the run ends (after
// the streams have finished with them). Local to the run, so concurrent runs
// share nothing but the immutable schedule.
#pragma once

#include <memory>
#include <mutex>
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

/// The resources of finished runs, kept for the next: a run's buffers are
/// allocated once, not per run (a large buffer the C allocator maps fresh
/// would fault in its pages on every run's first writes, inside the kernels'
/// time). Concurrent runs each take a set of their own; a run that fails
/// frees its set.
class RunResourcePool {
 public:
  RunResourcePool(const Schedule& schedule, const BufferAssignment& buffers) : schedule_(schedule), buffers_(buffers) {}

  /// An idle set, or a new one.
  std::unique_ptr<RunResources> take();
  /// A set whose run finished (its streams synchronized), for the next run.
  void give_back(std::unique_ptr<RunResources> resources);

 private:
  const Schedule& schedule_;
  const BufferAssignment& buffers_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<RunResources>> idle_;
};

/// Host memory for a run buffer owned by kHost, aligned as Tensor storage.
BufferHandle alloc_host(size_t nbytes);
void free_host(BufferHandle buffer) noexcept;

}  // namespace weft::executor
