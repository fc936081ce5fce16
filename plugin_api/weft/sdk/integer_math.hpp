// Integer arithmetic without undefined behaviour, shared by the core and the
// plugins (header-only, no weft types):
//   - checked_add/sub/mul and checked_product for extents, element and byte
//     counts: nothing (std::nullopt) where the exact result does not fit int64;
//   - CheckedInt, the same checks as an int64 whose operators throw
//     std::overflow_error, for the attr arithmetic of type relations (padding,
//     output sizes, slice bounds), and checked_field to name the attr or
//     extent being computed in that error;
//   - wrapping_* for integer kernels: two's complement results as NumPy gives
//     them (INT_MIN / -1 is INT_MIN, INT_MIN % -1 is 0) where C++ leaves them
//     undefined;
//   - saturate_cast, a float-to-integer conversion that clamps to the
//     integer's range instead of being undefined outside it.
#pragma once

#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace weft::sdk {

// ---- Checked: extents and counts -----------------------------------------------------------

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// The product of `n` extents (each >= 0), or nothing when it overflows int64.
inline std::optional<int64_t> checked_product(const int64_t* extents, size_t n) {
  int64_t p = 1;
  for (size_t i = 0; i < n; ++i) {
    auto next = checked_mul(p, extents[i]);
    if (!next) return std::nullopt;
    p = *next;
  }
  return p;
}

/// An int64 for relation arithmetic: every +, -, * and / is checked, and one
/// that overflows throws std::overflow_error (which the SDK reports as an
/// invalid argument of the op), as does a division by zero. It converts from
/// int64 implicitly and back only through value(), so an unchecked operation
/// cannot slip in:
///   CheckedInt dilated = CheckedInt(kernel - 1) * dilation + 1;
///   out.push_back(((CheckedInt(in) + pad - dilated) / stride + 1).value());
class CheckedInt {
 public:
  constexpr CheckedInt(int64_t v = 0) : v_(v) {}  // NOLINT: converts from int64 freely
  constexpr int64_t value() const { return v_; }

  friend CheckedInt operator+(CheckedInt a, CheckedInt b) { return fits(checked_add(a.v_, b.v_), a, "+", b); }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) { return fits(checked_sub(a.v_, b.v_), a, "-", b); }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) { return fits(checked_mul(a.v_, b.v_), a, "*", b); }
  /// Truncating division, as C++'s.
  friend CheckedInt operator/(CheckedInt a, CheckedInt b) {
    if (b.v_ == 0) throw std::overflow_error("division by zero: " + std::to_string(a.v_) + " / 0");
    if (b.v_ == -1) return CheckedInt(0) - a;
    return CheckedInt(a.v_ / b.v_);
  }
  CheckedInt& operator+=(CheckedInt b) { return *this = *this + b; }
  CheckedInt& operator-=(CheckedInt b) { return *this = *this - b; }
  CheckedInt& operator*=(CheckedInt b) { return *this = *this * b; }
  friend constexpr bool operator==(CheckedInt a, CheckedInt b) { return a.v_ == b.v_; }
  friend constexpr auto operator<=>(CheckedInt a, CheckedInt b) { return a.v_ <=> b.v_; }

 private:
  static CheckedInt fits(std::optional<int64_t> r, CheckedInt a, const char* op, CheckedInt b) {
    if (!r) {
      throw std::overflow_error("integer overflow: " + std::to_string(a.v_) + " " + op + " " + std::to_string(b.v_) +
                                " does not fit in int64");
    }
    return CheckedInt(*r);
  }

  int64_t v_;
};

/// compute() (CheckedInt arithmetic), its overflow_error naming `field`, the
/// attr or extent being computed, so the user learns which one is too large:
///   int64_t n = checked_field("pad_width", [&] { return (CheckedInt(d) + before + after).value(); });
/// reads "pad_width: integer overflow: 2 + 4611686018427387904 ...".
template <typename Compute>
auto checked_field(const std::string& field, Compute&& compute) -> decltype(compute()) {
  try {
    return compute();
  } catch (const std::overflow_error& e) {
    throw std::overflow_error(field + ": " + e.what());
  }
}

// ---- Wrapping: integer kernels -----------------------------------------------------------

namespace detail {
template <typename T>
using Unsigned = std::make_unsigned_t<T>;
}  // namespace detail

/// a + b, a - b, a * b and -a in two's complement (what NumPy's integer
/// arrays give on overflow); for non-integers, the plain operation.
template <typename T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(static_cast<detail::Unsigned<T>>(a) + static_cast<detail::Unsigned<T>>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(static_cast<detail::Unsigned<T>>(a) - static_cast<detail::Unsigned<T>>(b));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    // Unsigned types narrower than int promote to (signed) int: multiply as uint64.
    return static_cast<T>(static_cast<uint64_t>(static_cast<detail::Unsigned<T>>(a)) *
                          static_cast<uint64_t>(static_cast<detail::Unsigned<T>>(b)));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}
template <typename T>
T wrapping_neg(T a) {
  return wrapping_sub(T(0), a);
}

/// a / b truncated, for b != 0 (the caller reports division by zero): the
/// one overflowing case, the type's minimum over -1, wraps to the minimum.
template <typename T>
T wrapping_div(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if (b == -1) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}
/// a % b (sign of a), for b != 0; the minimum % -1 is 0.
template <typename T>
T wrapping_rem(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T(0);
  }
  return static_cast<T>(a % b);
}

// ---- Float to integer ---------------------------------------------------------------------

/// `v` truncated toward zero and clamped to T's range; NaN gives 0. C++
/// leaves a conversion of an out-of-range float undefined.
template <typename T, typename F>
T saturate_cast(F v) {
  static_assert(std::is_integral_v<T> && std::is_floating_point_v<F>);
  if (std::isnan(v)) return T(0);
  // The bounds as F: lo is exact (a power of two or 0); hi + 1 is too.
  const F lo = static_cast<F>(std::numeric_limits<T>::min());
  const F hi_plus_one = static_cast<F>(std::numeric_limits<T>::max() / 2 + 1) * F(2);
  if (v <= lo) return std::numeric_limits<T>::min();
  if (v >= hi_plus_one) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

}  // namespace weft::sdk
