// Stack segments: threads with their own stacks, each run while its creator
// waits, so a deep recursion continues on a new stack when one fills up.
#include "weft/stack.h"

#include <pthread.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "weft/error.h"

namespace weft {

namespace {

// The room left when recursion moves to a new segment: it covers the frames
// between two checks (an evaluator step, a kernel), which sanitizer-instrumented
// builds make several times larger.
constexpr size_t kMargin = size_t{1} << 20;

/// The lowest usable address of this thread's stack (stacks grow down on the
/// platforms weft supports), found once per thread.
uintptr_t stack_low_end() {
  thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<uintptr_t>(addr);
  }();
  return low;
}

}  // namespace

bool stack_nearly_full() {
  const uintptr_t low = stack_low_end();
  if (low == 0) return false;  // bounds unknown: the thread's own stack is all there is
  // The frame address, not a local's: sanitizers may move locals to the heap.
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here < low + kMargin;
}

void run_with_stack(size_t stack_bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        try {
          (*j->fn)();
        } catch (...) {
          j->error = std::current_exception();
        }
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  if (rc != 0)
    throw Error("cannot allocate a stack of " + std::to_string(stack_bytes) + " bytes: " + std::strerror(rc));
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace weft
