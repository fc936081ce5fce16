// A random generator bit-compatible with NumPy's legacy RandomState.
//
// np.random.seed(s) followed by random_sample / uniform / normal / standard_normal
// gives the same doubles here, in the same order: MT19937 seeded with
// init_genrand, 53-bit doubles from two 32-bit draws, and the legacy polar
// Box-Muller Gaussian that caches its second value. This is what makes
// weft's initializers reproduce tvm.relay.testing's weights for a given seed.
//
// Header-only and free of core types, so plugins (initializers) and the core
// (random inputs, test helpers) share one implementation.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace weft::sdk {

class NumpyRandomState {
 public:
  explicit NumpyRandomState(uint32_t seed = 0) { seed_with(seed); }

  /// np.random.seed(seed) for an integer seed in [0, 2**32).
  void seed_with(uint32_t seed) {
    for (int i = 0; i < kStateSize; ++i) {
      key_[i] = seed;
      seed = 1812433253U * (seed ^ (seed >> 30)) + static_cast<uint32_t>(i) + 1U;
    }
    pos_ = kStateSize;
    has_gauss_ = false;
    gauss_ = 0.0;
  }

  /// The next raw 32-bit output of MT19937.
  uint32_t next_uint32() {
    if (pos_ >= kStateSize) regenerate();
    uint32_t y = key_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }

  /// np.random.random_sample(): a double in [0, 1) with 53 random bits.
  double random_sample() {
    const uint32_t a = next_uint32() >> 5;
    const uint32_t b = next_uint32() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

  /// np.random.uniform(low, high): low + (high - low) * random_sample().
  double uniform(double low, double high) { return low + (high - low) * random_sample(); }

  /// np.random.standard_normal(), the legacy polar method.
  double standard_normal() {
    if (has_gauss_) {
      has_gauss_ = false;
      return gauss_;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * random_sample() - 1.0;
      x2 = 2.0 * random_sample() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;  // NumPy keeps this one for the next call
    has_gauss_ = true;
    return f * x2;
  }

  /// np.random.normal(loc, scale): loc + scale * standard_normal().
  double normal(double loc, double scale) { return loc + scale * standard_normal(); }

 private:
  static constexpr int kStateSize = 624;
  static constexpr int kShift = 397;

  void regenerate() {
    constexpr uint32_t kUpper = 0x80000000U, kLower = 0x7fffffffU, kMatrix = 0x9908b0dfU;
    for (int i = 0; i < kStateSize; ++i) {
      const uint32_t y = (key_[i] & kUpper) | (key_[(i + 1) % kStateSize] & kLower);
      key_[i] = key_[(i + kShift) % kStateSize] ^ (y >> 1) ^ ((y & 1U) ? kMatrix : 0U);
    }
    pos_ = 0;
  }

  std::array<uint32_t, kStateSize> key_{};
  int pos_ = kStateSize;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace weft::sdk
