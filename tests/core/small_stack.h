// Runs a test body on a thread with a small stack, so that code which recursed
// once per node of a long chain would crash instead of passing by luck.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>

namespace weft::testing {

/// Runs fn on a fresh thread whose stack is `stack_bytes`; rethrows its exception.
inline void run_with_stack(size_t stack_bytes, const std::function<void()>& fn) {
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  int rc = pthread_create(
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
  if (rc != 0) throw std::runtime_error("pthread_create failed");
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

/// Small enough that 100,000 nested frames cannot fit, large enough for
/// sanitizer-instrumented shallow code.
inline constexpr size_t kSmallStack = 1 << 21;

}  // namespace weft::testing
