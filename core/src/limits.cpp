// Resource limits, each read from its environment variable on first use.
#include "weft/limits.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "weft/error.h"

namespace weft {

namespace {

/// One limit: 0 until first read, then the environment's value or the default.
class Limit {
 public:
  Limit(const char* env, int64_t fallback) : env_(env), fallback_(fallback) {}

  int64_t get() {
    int64_t v = value_.load(std::memory_order_relaxed);
    if (v > 0) return v;
    v = from_environment();
    value_.store(v, std::memory_order_relaxed);
    return v;
  }

  void set(int64_t v) {
    if (v <= 0) throw Error(std::string(env_) + " must be positive, got " + std::to_string(v));
    value_.store(v, std::memory_order_relaxed);
  }

 private:
  int64_t from_environment() const {
    const char* text = std::getenv(env_);
    if (!text || !*text) return fallback_;
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v <= 0)
      throw Error(std::string("environment variable ") + env_ + "='" + text + "' is not a positive integer");
    return v;
  }

  const char* env_;
  int64_t fallback_;
  std::atomic<int64_t> value_{0};
};

Limit& call_depth_limit() {
  static Limit limit("WEFT_MAX_CALL_DEPTH", 10000);
  return limit;
}

}  // namespace

int64_t max_call_depth() { return call_depth_limit().get(); }
void set_max_call_depth(int64_t depth) { call_depth_limit().set(depth); }

}  // namespace weft
