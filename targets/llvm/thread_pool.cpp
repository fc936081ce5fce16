#include "thread_pool.h"

#include <algorithm>
#include <chrono>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WEFT_CPU_RELAX() _mm_pause()
#else
#define WEFT_CPU_RELAX() std::this_thread::yield()
#endif

namespace llvm_target {
namespace {

/// How long a worker waits for the next loop before it sleeps: long enough
/// to cover the gap between two kernels of one model, short enough not to
/// starve another library's threads.
constexpr auto kSpin = std::chrono::microseconds(100);

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(std::max(threads, 1)) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(sleep_);
    stop_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int32_t ThreadPool::parallel_for(ParallelBody body, void* env, int32_t begin, int32_t end) {
  if (end <= begin) return 0;
  std::unique_lock<std::mutex> mine(loop_, std::try_to_lock);
  if (!mine.owns_lock() || threads_ == 1 || end - begin == 1) return body(env, begin, end);
  // Under loop_: the destructor, which joins them, runs when no loop can.
  std::call_once(started_, [this] {
    try {
      for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { work(w); });
    } catch (const std::system_error&) {
      // The system has no more threads to give: the loops share out among
      // those that started (generated code cannot take an exception).
    }
  });
  if (workers_.empty()) return body(env, begin, end);
  body_ = body;
  env_ = env;
  begin_ = begin;
  end_ = end;
  const int workers = static_cast<int>(workers_.size());
  chunks_ = static_cast<int>(std::min<int64_t>(workers + 1, int64_t{end} - begin));
  status_.store(0, std::memory_order_relaxed);
  pending_.store(workers, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(sleep_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  run_chunk(0);
  while (pending_.load(std::memory_order_acquire) != 0) WEFT_CPU_RELAX();
  return status_.load(std::memory_order_relaxed);
}

void ThreadPool::run_chunk(int chunk) {
  if (chunk >= chunks_) return;
  const int64_t n = int64_t{end_} - begin_;
  const auto lo = static_cast<int32_t>(begin_ + n * chunk / chunks_);
  const auto hi = static_cast<int32_t>(begin_ + n * (chunk + 1) / chunks_);
  if (int32_t s = body_(env_, lo, hi); s != 0) {
    int32_t none = 0;
    status_.compare_exchange_strong(none, s);
  }
}

uint64_t ThreadPool::wait_for_work(uint64_t seen) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (uint64_t g = generation_.load(std::memory_order_acquire); g != seen) return g;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) break;
    WEFT_CPU_RELAX();
  }
  std::unique_lock<std::mutex> lock(sleep_);
  wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
  return generation_.load(std::memory_order_acquire);
}

void ThreadPool::work(int worker) {
  uint64_t seen = 0;
  for (;;) {
    seen = wait_for_work(seen);
    if (stop_.load(std::memory_order_relaxed)) return;  // ordered by the generation's release and acquire
    run_chunk(worker);
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

extern "C" int32_t weft_llvm_parallel_for(void* pool, ParallelBody body, void* env, int32_t begin, int32_t end) {
  return static_cast<ThreadPool*>(pool)->parallel_for(body, env, begin, end);
}

}  // namespace llvm_target
