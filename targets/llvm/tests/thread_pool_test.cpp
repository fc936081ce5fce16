// The thread pool of the llvm target's parallel loops, driven as generated
// code drives it: every iteration runs exactly once, failures come back, a
// loop started from inside a loop or from a second thread runs on its caller.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <iterator>
#include <thread>
#include <vector>

#include "thread_pool.h"

namespace llvm_target {
namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  std::atomic<int> chunks{0};
  explicit Counts(size_t n) : runs(n) {}
};

int32_t count_iterations(void* env, int32_t begin, int32_t end) {
  auto& c = *static_cast<Counts*>(env);
  c.chunks.fetch_add(1);
  for (int32_t i = begin; i < end; ++i) c.runs[static_cast<size_t>(i)].fetch_add(1);
  return 0;
}

/// The threads of this process, from /proc.
size_t process_threads() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                           std::filesystem::directory_iterator()));
}

TEST(ThreadPool, WorkersStartWithTheFirstParallelLoop) {
  const size_t before = process_threads();
  ThreadPool pool(3);
  EXPECT_EQ(process_threads(), before) << "a pool that runs no loop adds no thread";
  Counts c(30);
  ASSERT_EQ(weft_llvm_parallel_for(&pool, count_iterations, &c, 0, 30), 0);
  EXPECT_EQ(process_threads(), before + 2);
  EXPECT_EQ(c.chunks.load(), 3);
  for (const std::atomic<int>& r : c.runs) EXPECT_EQ(r.load(), 1);
}

TEST(ThreadPool, RunsEveryIterationOnceInOneChunkPerThread) {
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(threads);
    ThreadPool pool(threads);
    for (int32_t n : {1, 2, 7, 1000}) {
      Counts c(static_cast<size_t>(n) + 5);
      ASSERT_EQ(weft_llvm_parallel_for(&pool, count_iterations, &c, 5, 5 + n), 0);
      for (int32_t i = 0; i < 5; ++i) EXPECT_EQ(c.runs[static_cast<size_t>(i)].load(), 0);
      for (int32_t i = 5; i < 5 + n; ++i) EXPECT_EQ(c.runs[static_cast<size_t>(i)].load(), 1) << i;
      EXPECT_EQ(c.chunks.load(), std::min(threads, n));
    }
  }
}

int32_t fail_at_seven(void*, int32_t begin, int32_t end) { return begin <= 7 && 7 < end ? 3 : 0; }

TEST(ThreadPool, ReturnsTheStatusOfAFailingChunk) {
  ThreadPool pool(2);
  EXPECT_EQ(pool.parallel_for(fail_at_seven, nullptr, 0, 10), 3);
  EXPECT_EQ(pool.parallel_for(fail_at_seven, nullptr, 0, 5), 0);
  EXPECT_EQ(pool.parallel_for(fail_at_seven, nullptr, 4, 4), 0);  // an empty loop runs nothing
}

struct Nested {
  ThreadPool* pool;
  Counts* counts;
};

int32_t run_inner_loop(void* env, int32_t begin, int32_t end) {
  auto& n = *static_cast<Nested*>(env);
  for (int32_t i = begin; i < end; ++i)
    if (int32_t s = n.pool->parallel_for(count_iterations, n.counts, i * 10, i * 10 + 10)) return s;
  return 0;
}

TEST(ThreadPool, ALoopInsideALoopOrFromAnotherThreadRunsOnItsCaller) {
  ThreadPool pool(2);
  Counts counts(40);
  Nested nested{&pool, &counts};
  ASSERT_EQ(pool.parallel_for(run_inner_loop, &nested, 0, 4), 0);
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(counts.runs[i].load(), 1) << i;

  Counts a(2000), b(2000);
  std::thread other([&] {
    for (int r = 0; r < 50; ++r) ASSERT_EQ(pool.parallel_for(count_iterations, &b, r * 40, r * 40 + 40), 0);
  });
  for (int r = 0; r < 50; ++r) ASSERT_EQ(pool.parallel_for(count_iterations, &a, r * 40, r * 40 + 40), 0);
  other.join();
  for (size_t i = 0; i < 2000; ++i) {
    EXPECT_EQ(a.runs[i].load(), 1) << i;
    EXPECT_EQ(b.runs[i].load(), 1) << i;
  }
}

}  // namespace
}  // namespace llvm_target
