// Per-run streams and allocations (see run_resources.h).
#include "run_resources.h"

#include <algorithm>
#include <new>

namespace weft::executor {

BufferHandle alloc_host(size_t nbytes) {
  return ::operator new(std::max<size_t>(nbytes, 1), std::align_val_t{Tensor::kAlignment});
}

void free_host(BufferHandle buffer) noexcept { ::operator delete(buffer, std::align_val_t{Tensor::kAlignment}); }

RunResources::RunResources(const Schedule& schedule, const BufferAssignment& buffers)
    : schedule_(schedule), buffers_(buffers) {
  try {
    for (Target* t : schedule.targets) streams_.push_back(t->create_stream(0));
    for (const BufferAssignment::Allocation& a : buffers.allocations) {
      // A zero-byte tensor still gets a distinct, valid handle.
      const size_t nbytes = std::max<size_t>(a.nbytes, 1);
      allocations_.push_back(a.target == kHost ? alloc_host(nbytes)
                                               : schedule.targets[a.target]->alloc(0, nbytes, Tensor::kAlignment));
    }
  } catch (...) {
    release();
    throw;
  }
}

RunResources::~RunResources() { release(); }

std::unique_ptr<RunResources> RunResourcePool::take() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<RunResources> resources = std::move(idle_.back());
      idle_.pop_back();
      return resources;
    }
  }
  return std::make_unique<RunResources>(schedule_, buffers_);
}

void RunResourcePool::give_back(std::unique_ptr<RunResources> resources) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(resources));
}

void RunResources::synchronize_all() const {
  for (size_t t = 0; t < streams_.size(); ++t) synchronize(static_cast<int>(t));
}

void RunResources::release() noexcept {
  // The run already failed, or succeeded, with what matters: a failure to clean up is not reported over it.
  auto quietly = [](auto&& fn) {
    try {
      fn();
    } catch (...) {
    }
  };
  // After a failed step other streams may still be using the buffers: let them finish first.
  for (size_t t = 0; t < streams_.size(); ++t) quietly([&] { schedule_.targets[t]->synchronize(streams_[t]); });
  for (size_t i = 0; i < allocations_.size(); ++i) {
    const int owner = buffers_.allocations[i].target;
    if (owner == kHost)
      free_host(allocations_[i]);
    else
      quietly([&] { schedule_.targets[owner]->free(0, allocations_[i]); });
  }
  for (size_t t = 0; t < streams_.size(); ++t) quietly([&] { schedule_.targets[t]->destroy_stream(streams_[t]); });
}

}  // namespace weft::executor
