// Storing a double into a floating-point element the way NumPy's astype and
// array assignment do: one correct rounding (to nearest, ties to even) straight
// from the double. Going through float first would round twice and differ
// from NumPy for float16 in rare ties, so the narrow formats are rounded here.
//
// Header-only and free of core types: initializer plugins and the core's test
// helpers fill tensors from NumPy-compatible draws with it.
#pragma once

#include <dlpack/dlpack.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace weft::sdk {

namespace detail {
/// `value` rounded once to a binary format with `mantissa_bits` stored bits and
/// an exponent of `exponent_bits` (IEEE layout: sign, biased exponent, mantissa).
inline uint16_t round_to_narrow_float(double value, int mantissa_bits, int exponent_bits) {
  const uint16_t sign = std::signbit(value) ? static_cast<uint16_t>(1U << (mantissa_bits + exponent_bits)) : 0;
  const uint16_t exp_all_ones = static_cast<uint16_t>(((1U << exponent_bits) - 1U) << mantissa_bits);
  const double a = std::fabs(value);
  if (std::isnan(a)) return static_cast<uint16_t>(sign | exp_all_ones | (1U << (mantissa_bits - 1)));
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int min_exponent = 1 - bias;
  if (a < std::ldexp(1.0, min_exponent)) {
    // Subnormal (or zero): a multiple of the smallest step; a carry to the
    // first normal lands on its bit pattern.
    const double steps = std::nearbyint(std::ldexp(a, mantissa_bits - min_exponent));
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(steps));
  }
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e with f in [0.5, 1)
  int exponent = e - 1;
  auto significand = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, mantissa_bits - exponent)));
  if (significand == (2U << mantissa_bits)) {  // rounded up to the next power of two
    significand >>= 1;
    ++exponent;
  }
  if (exponent > bias) return static_cast<uint16_t>(sign | exp_all_ones);  // overflow: infinity
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent + bias) << mantissa_bits) |
                               (significand - (1U << mantissa_bits)));
}
}  // namespace detail

/// float16 bits of `value`, rounded as NumPy's double -> half cast.
inline uint16_t double_to_float16(double value) { return detail::round_to_narrow_float(value, 10, 5); }
/// bfloat16 bits of `value`, rounded once to nearest even.
inline uint16_t double_to_bfloat16(double value) { return detail::round_to_narrow_float(value, 7, 8); }

/// True for the floating-point dtypes store_float handles.
inline bool is_storable_float(DLDataType dtype) {
  if (dtype.lanes != 1) return false;
  if (dtype.code == kDLFloat) return dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64;
  return dtype.code == kDLBfloat && dtype.bits == 16;
}

/// Writes `value` as element `index` of float data `base` of type `dtype`
/// (one of is_storable_float's).
inline void store_float(void* base, DLDataType dtype, int64_t index, double value) {
  char* p = static_cast<char*>(base) + index * (dtype.bits / 8);
  if (dtype.code == kDLBfloat) {
    const uint16_t bits = double_to_bfloat16(value);
    std::memcpy(p, &bits, sizeof bits);
  } else if (dtype.bits == 16) {
    const uint16_t bits = double_to_float16(value);
    std::memcpy(p, &bits, sizeof bits);
  } else if (dtype.bits == 32) {
    const auto f = static_cast<float>(value);
    std::memcpy(p, &f, sizeof f);
  } else {
    std::memcpy(p, &value, sizeof value);
  }
}

}  // namespace weft::sdk
