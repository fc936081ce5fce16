// Helpers the activation, dense and loss families share: picking a kernel's
// element type from a dtype, reading and writing tensors of any integer or
// float dtype, and reading an axis attribute the way Relay does.
#pragma once

#include <weft/plugin.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace weft_nn {

// DLDataType comparisons live in the SDK's namespace.
using weft::sdk::operator==;
using weft::sdk::operator!=;

/// Calls f(T{}) with T = float or double for a float32 or float64 tensor;
/// any other dtype is a user error (the host adds the op and the call).
template <typename F>
void with_float_type(const weft::sdk::TensorView& t, F&& f) {
  namespace dt = weft::sdk::dtype;
  if (t.dtype() == dt::float64) {
    f(double{});
  } else if (t.dtype() == dt::float32) {
    f(float{});
  } else {
    throw weft::sdk::Error("the reference kernel takes float32 or float64 tensors, got " +
                           weft::sdk::dtype_name(t.dtype()));
  }
}

/// Whether the dtype is one of the scalar integer or float types the
/// kernels read and write (int8..int64, uint8..uint64, float32, float64).
inline bool is_plain_dtype(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLInt || t.code == kDLUInt) return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  return t.code == kDLFloat && (t.bits == 32 || t.bits == 64);
}

namespace detail {
template <typename To, typename From>
void convert(const void* src, To* dst, int64_t n) {
  const From* s = static_cast<const From*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<To>(s[i]);
}
template <typename From, typename To>
void convert_out(const To* src, void* dst, int64_t n) {
  From* d = static_cast<From*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<From>(src[i]);
}
/// Calls f(E{}) with E the C++ type of a plain dtype.
template <typename F>
void with_element_type(DLDataType t, F&& f) {
  if (t.lanes == 1 && t.code == kDLFloat && t.bits == 32) return f(float{});
  if (t.lanes == 1 && t.code == kDLFloat && t.bits == 64) return f(double{});
  if (t.lanes == 1 && t.code == kDLInt) {
    switch (t.bits) {
      case 8: return f(int8_t{});
      case 16: return f(int16_t{});
      case 32: return f(int32_t{});
      case 64: return f(int64_t{});
      default: break;
    }
  }
  if (t.lanes == 1 && t.code == kDLUInt) {
    switch (t.bits) {
      case 8: return f(uint8_t{});
      case 16: return f(uint16_t{});
      case 32: return f(uint32_t{});
      case 64: return f(uint64_t{});
      default: break;
    }
  }
  throw weft::sdk::Error("the reference kernel does not handle dtype " + weft::sdk::dtype_name(t));
}
}  // namespace detail

/// The tensor's elements converted to T (as a C cast would), in C order.
template <typename T>
std::vector<T> load_as(const weft::sdk::TensorView& t) {
  std::vector<T> out(static_cast<size_t>(t.numel()));
  const void* src = static_cast<const char*>(t.dl().data) + t.dl().byte_offset;
  detail::with_element_type(t.dtype(), [&](auto e) { detail::convert<T, decltype(e)>(src, out.data(), t.numel()); });
  return out;
}

/// Writes values into `out`, converting each to out's dtype.
template <typename T>
void store_from(const std::vector<T>& values, const weft::sdk::TensorView& out) {
  void* dst = static_cast<char*>(out.dl().data) + out.dl().byte_offset;
  detail::with_element_type(out.dtype(), [&](auto e) { detail::convert_out<decltype(e), T>(values.data(), dst, out.numel()); });
}

/// Calls f(A{}) with the type a reduction producing `out` accumulates in:
/// float for float32, double for float64, int64_t for integers (stored back
/// with two's-complement wrap, as the reference's int32 arithmetic).
template <typename F>
void with_accumulator(const weft::sdk::TensorView& out, F&& f) {
  DLDataType t = out.dtype();
  if (!is_plain_dtype(t)) {
    throw weft::sdk::Error("the reference kernel does not handle output dtype " + weft::sdk::dtype_name(t));
  }
  if (t.code == kDLFloat) {
    if (t.bits == 64) f(double{});
    else f(float{});
  } else {
    f(int64_t{});
  }
}

/// Relay's reading of an axis: in [-ndim, ndim), negative counting from the end.
/// Returns it in [0, ndim) or throws naming `what`.
inline int64_t normalize_axis(int64_t axis, size_t ndim, const std::string& what) {
  const int64_t n = static_cast<int64_t>(ndim);
  if (axis < -n || axis >= n) {
    throw weft::sdk::Error(what + ": axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
                           std::to_string(n) + " (expected an axis in [" + std::to_string(-n) + ", " +
                           std::to_string(n) + "))");
  }
  return axis < 0 ? axis + n : axis;
}

/// Two extents agree when equal or when either is unknown (`?`).
inline bool dims_agree(int64_t a, int64_t b) { return a == b || a == WEFT_DIM_ANY || b == WEFT_DIM_ANY; }

/// Product of dims [begin, end), or WEFT_DIM_ANY if any of them is unknown.
inline int64_t dims_product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) {
    if (shape[i] == WEFT_DIM_ANY) return WEFT_DIM_ANY;
    p *= shape[i];
  }
  return p;
}

/// The i-th argument as a tensor type; a user error naming op and role otherwise.
inline weft::sdk::Type tensor_arg(const std::vector<weft::sdk::Type>& args, size_t i, const std::string& role) {
  if (i >= args.size()) throw weft::sdk::Error("missing argument '" + role + "'");
  if (!args[i].is_tensor()) throw weft::sdk::Error("expected '" + role + "' to be a tensor, got " + args[i].str());
  return args[i];
}

}  // namespace weft_nn
