// Resource limits, each read from its environment variable on first use.
#include "weft/limits.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <string>

#include <weft/sdk/integer_math.hpp>
#include <weft/sdk/tensor_rank.hpp>

#include "weft/error.h"
#include "weft/type.h"

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

Limit& tensor_bytes_limit() {
  static Limit limit("WEFT_MAX_TENSOR_BYTES", int64_t{16} << 30);
  return limit;
}

Limit& call_depth_limit() {
  static Limit limit("WEFT_MAX_CALL_DEPTH", 10000);
  return limit;
}

}  // namespace

int64_t max_tensor_bytes() { return tensor_bytes_limit().get(); }
void set_max_tensor_bytes(int64_t bytes) { tensor_bytes_limit().set(bytes); }

int64_t checked_tensor_bytes(std::span<const int64_t> shape, DataType dtype) {
  if (static_cast<int64_t>(shape.size()) > sdk::kMaxTensorRank)
    throw Error("a " + dtype.str() + " tensor of rank " + std::to_string(shape.size()) + " has more axes than the " +
                std::to_string(sdk::kMaxTensorRank) + " a tensor may have");
  auto describe = [&] {
    std::string text = "Tensor[(";
    for (size_t i = 0; i < shape.size(); ++i)
      text += (i ? ", " : "") + (shape[i] == kAnyDim ? std::string("?") : std::to_string(shape[i]));
    return text + "), " + dtype.str() + "]";
  };
  // As NumPy (PyArray_NewFromDescr): the bytes of the non-zero extents must
  // fit even when an extent of 0 makes the tensor empty, so that any product
  // of a tensor's extents (a kernel's outer x inner count) fits in int64.
  // Counted in units of at least one byte so the element count fits too.
  int64_t bytes = std::max<int64_t>(static_cast<int64_t>(dtype.bytes()), 1);
  bool overflow = false, empty = false;
  for (int64_t d : shape) {
    if (d == kAnyDim) continue;
    if (d < 0)
      throw Error("negative dimension " + std::to_string(d) + " in " + describe())
          .expected("a non-negative extent or ? (kAnyDim)");
    if (d == 0) {
      empty = true;
      continue;
    }
    auto product = sdk::checked_mul(bytes, d);
    overflow = overflow || !product;
    bytes = product.value_or(0);
  }
  if (overflow) throw Error(describe() + " has more bytes than int64 can count");
  if (empty || dtype.bytes() == 0) return 0;
  if (bytes > max_tensor_bytes())
    throw Error(describe() + " takes " + std::to_string(bytes) + " bytes, more than the limit of " +
                std::to_string(max_tensor_bytes()))
        .note("WEFT_MAX_TENSOR_BYTES (or weft::set_max_tensor_bytes) raises the limit");
  return bytes;
}

int64_t max_call_depth() { return call_depth_limit().get(); }
void set_max_call_depth(int64_t depth) { call_depth_limit().set(depth); }

}  // namespace weft
