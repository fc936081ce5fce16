// The threads that run the parallel loops of generated code, in the manner
// of TVM's TVMBackendParallelLaunch and Halide's halide_do_par_for: a loop
// body outlined into a function of its iteration range, split into one
// contiguous chunk per thread, the calling thread taking the first. Workers
// spin briefly for the next loop (kernels come in quick succession), then
// sleep, so they do not hold the cores that other targets' threads (oneDNN's
// OpenMP team) need between this target's kernels. They start with the first
// parallel loop: a pool whose kernels never run one (a model whose groups
// all went to other targets) adds no thread to the process.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace llvm_target {

/// A parallel loop's outlined body: runs iterations [begin, end) with the
/// values it captured in env; returns 0 or a kernel failure status.
using ParallelBody = int32_t (*)(void* env, int32_t begin, int32_t end);

class ThreadPool {
 public:
  /// `threads` in all (at least 1): the calling thread and threads - 1
  /// workers, started by the first parallel loop.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  /// Runs body over [begin, end) in up to threads() chunks and returns the
  /// first failure status (0 when none failed). A loop started while another
  /// one runs (a kernel on another thread) runs on its caller alone.
  int32_t parallel_for(ParallelBody body, void* env, int32_t begin, int32_t end);

 private:
  void work(int worker);
  void run_chunk(int chunk);
  /// The generation after `seen`, or after the pool stopped.
  uint64_t wait_for_work(uint64_t seen);

  const int threads_;
  std::once_flag started_;
  std::vector<std::thread> workers_;
  std::mutex loop_;  // one loop at a time

  // The loop being run, written before generation_ moves on.
  ParallelBody body_ = nullptr;
  void* env_ = nullptr;
  int32_t begin_ = 0, end_ = 0;
  int chunks_ = 0;
  std::atomic<int32_t> status_{0};
  std::atomic<int> pending_{0};  // workers still on the current loop

  std::atomic<uint64_t> generation_{0};
  std::mutex sleep_;
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};  // set under sleep_, read by workers without it
};

/// What generated code calls for a parallel loop (codegen.h's kParallelFor, defined in the JIT).
extern "C" int32_t weft_llvm_parallel_for(void* pool, ParallelBody body, void* env, int32_t begin, int32_t end);

}  // namespace llvm_target
