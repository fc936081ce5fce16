// What the tensor plugin's relations and kernels share beyond the SDK: shapes
// and strides, axis arguments, dtype dispatch for kernels, and NumPy
// broadcasting of shapes and element offsets.
#pragma once

#include <weft/plugin.hpp>
#include <weft/sdk/integer_math.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace weft_tensor {

using Shape = std::vector<int64_t>;

/// "(2, 3)" for messages.
inline std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + ")";
}

/// Number of elements of a tensor of shape `s`; Error when it overflows int64
/// (an attr such as reshape's newshape can ask for that).
inline int64_t product(const Shape& s) {
  auto n = weft::sdk::checked_product(s.data(), s.size());
  if (!n) throw weft::sdk::Error("shape " + shape_str(s) + " has more elements than int64 can count");
  return *n;
}

/// Row-major element strides of `shape`.
inline Shape row_major_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

/// `shape` from an attr, checked to have no negative extent.
inline Shape checked_shape(const Shape& shape, const std::string& what = "shape") {
  for (int64_t d : shape) {
    if (d < 0) throw weft::sdk::Error(what + " " + shape_str(shape) + " has a negative extent");
  }
  return shape;
}

/// `axis` in [-ndim, ndim), made non-negative; Error naming `what` otherwise.
inline int64_t normalize_axis(int64_t axis, int64_t ndim, const std::string& what = "axis") {
  if (axis < -ndim || axis >= ndim) {
    throw weft::sdk::Error(what + " " + std::to_string(axis) + " is out of range for a tensor of rank " +
                           std::to_string(ndim) + " (expected [" + std::to_string(-ndim) + ", " +
                           std::to_string(ndim) + "))");
  }
  return axis < 0 ? axis + ndim : axis;
}

/// The tensor type of argument `i`; Error if it is not a tensor.
inline weft::sdk::Type tensor_arg(const std::vector<weft::sdk::Type>& args, size_t i, const char* name) {
  if (i >= args.size() || !args[i].is_tensor()) {
    throw weft::sdk::Error(std::string("expected a tensor for '") + name + "'" +
                           (i < args.size() ? ", got " + args[i].str() : std::string()));
  }
  return args[i];
}

/// Normal form of an attr given as an int or a list of ints: a list of ints.
inline weft::sdk::Value int_list_normal(const weft::sdk::Value& v) {
  using weft::sdk::Value;
  if (v.type() == WEFT_ATTR_INT) return Value(std::vector<int64_t>{v.as_int()});
  if (v.type() == WEFT_ATTR_INT_LIST) return v;
  if (v.type() == WEFT_ATTR_LIST) {
    std::vector<int64_t> out;
    for (const Value& item : v.as_list()) {
      if (item.type() != WEFT_ATTR_INT) throw weft::sdk::Error("expected integers");
      out.push_back(item.as_int());
    }
    return Value(out);
  }
  throw weft::sdk::Error("expected an int or a list of ints");
}

/// A normalizer accepting only the given strings (an attr like mode="clip").
inline weft::sdk::Normalizer one_of(std::vector<std::string> choices) {
  return [choices](const weft::sdk::Value& v) {
    if (std::find(choices.begin(), choices.end(), v.as_string()) == choices.end()) {
      throw weft::sdk::Error("unexpected value " + v.as_string());
    }
    return v;
  };
}

/// The int list in attr `key`, or nothing when it is None.
inline bool optional_ints(const weft::sdk::Attrs& attrs, const std::string& key, Shape& out) {
  weft::sdk::Value v = attrs.get_value(key);
  if (v.is_none()) return false;
  out = v.as_ints();
  return true;
}

/// NumPy broadcasting of two shapes (dims matched from the right, each pair
/// equal or containing a 1); Error naming both shapes otherwise.
inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else if (da == WEFT_DIM_ANY || db == WEFT_DIM_ANY) out[i] = WEFT_DIM_ANY;
    else throw weft::sdk::Error("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
  }
  return out;
}

/// For each element of a row-major tensor of shape `out`, the offset of the
/// element of a tensor of shape `in` that broadcasting maps to it.
inline std::vector<int64_t> broadcast_offsets(const Shape& in, const Shape& out) {
  size_t lead = out.size() - in.size();
  Shape in_strides = row_major_strides(in);
  std::vector<int64_t> offsets(static_cast<size_t>(product(out)));
  Shape index(out.size(), 0);
  for (int64_t& off : offsets) {
    off = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] != 1) off += index[lead + d] * in_strides[d];
    }
    for (size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

/// Error for a dtype a reference kernel does not handle.
inline weft::sdk::Error unsupported_dtype(const std::string& op, DLDataType dt, const char* supported) {
  return weft::sdk::Error(op + ": the reference kernel supports " + supported + ", got " +
                              weft::sdk::dtype_name(dt),
                          WEFT_STATUS_UNSUPPORTED);
}

/// Calls f(T()) with T the C++ type of a float32 or float64 tensor.
template <typename F>
void visit_float(DLDataType dt, const std::string& op, F&& f) {
  using namespace weft::sdk;
  if (dt == dtype::float32) f(float());
  else if (dt == dtype::float64) f(double());
  else throw unsupported_dtype(op, dt, "float32 and float64");
}

/// Calls f(T()) for float32, float64, int32 and int64 tensors.
template <typename F>
void visit_number(DLDataType dt, const std::string& op, F&& f) {
  using namespace weft::sdk;
  if (dt == dtype::float32) f(float());
  else if (dt == dtype::float64) f(double());
  else if (dt == dtype::int32) f(int32_t());
  else if (dt == dtype::int64) f(int64_t());
  else throw unsupported_dtype(op, dt, "float32, float64, int32 and int64");
}

/// Like visit_number, also accepting bool (stored one byte per element).
template <typename F>
void visit_number_or_bool(DLDataType dt, const std::string& op, F&& f) {
  using namespace weft::sdk;
  if (dt == dtype::boolean) f(uint8_t());
  else visit_number(dt, op, f);
}

/// Element i of an integer tensor (indices), as int64.
inline int64_t index_at(const weft::sdk::TensorView& t, int64_t i) {
  using namespace weft::sdk;
  DLDataType dt = t.dtype();
  if (dt == dtype::int32) return t.data<int32_t>()[i];
  if (dt == dtype::int64) return t.data<int64_t>()[i];
  if (dt == dtype::int8) return t.data<int8_t>()[i];
  if (dt == dtype::uint8) return t.data<uint8_t>()[i];
  if (dt == dtype::int16) return t.data<int16_t>()[i];
  throw Error("indices must be int8, int16, int32, int64 or uint8, got " + dtype_name(dt), WEFT_STATUS_UNSUPPORTED);
}

/// Whether a relation may take `dt` as indices.
inline bool is_integer(DLDataType dt) { return dt.code == kDLInt || (dt.code == kDLUInt && dt.bits > 1); }

/// Raw bytes of a tensor, for kernels that only move elements.
inline const char* bytes_of(const weft::sdk::TensorView& t) {
  return static_cast<const char*>(t.dl().data) + t.dl().byte_offset;
}
inline char* mutable_bytes_of(const weft::sdk::TensorView& t) {
  return static_cast<char*>(t.dl().data) + t.dl().byte_offset;
}

/// Fills `out` with the input elements at offset sum(index[d] * strides[d])
/// for each output multi-index (a permutation of axes, a layout change that
/// splits nothing): an add per element where gather_elements calls a
/// function.
inline void copy_strided(const weft::sdk::TensorView& in, const weft::sdk::TensorView& out, const Shape& strides) {
  const Shape shape = out.shape();
  if (out.numel() == 0) return;
  auto copy = [&](auto element) {
    using T = decltype(element);
    const T* src = reinterpret_cast<const T*>(bytes_of(in));
    T* dst = reinterpret_cast<T*>(mutable_bytes_of(out));
    const size_t inner = shape.empty() ? 0 : shape.size() - 1;
    const int64_t run = shape.empty() ? 1 : shape[inner], step = shape.empty() ? 0 : strides[inner];
    Shape index(shape.size(), 0);
    int64_t base = 0;  // the input offset of index, its innermost axis at 0
    for (int64_t n = 0, total = out.numel(); n < total; n += run) {
      for (int64_t i = 0; i < run; ++i) dst[n + i] = src[base + i * step];
      for (size_t d = inner; d-- > 0;) {
        base += strides[d];
        if (++index[d] < shape[d]) break;
        base -= index[d] * strides[d];
        index[d] = 0;
      }
    }
  };
  switch (out.element_bytes()) {
    case 1: return copy(uint8_t{});
    case 2: return copy(uint16_t{});
    case 4: return copy(uint32_t{});
    case 8: return copy(uint64_t{});
    default: {
      const size_t bytes = out.element_bytes();
      const char* src = bytes_of(in);
      char* dst = mutable_bytes_of(out);
      Shape index(shape.size(), 0);
      for (int64_t n = 0, total = out.numel(); n < total; ++n) {
        int64_t off = 0;
        for (size_t d = 0; d < shape.size(); ++d) off += index[d] * strides[d];
        std::memcpy(dst + n * bytes, src + off * bytes, bytes);
        for (size_t d = shape.size(); d-- > 0;) {
          if (++index[d] < shape[d]) break;
          index[d] = 0;
        }
      }
    }
  }
}

/// Fills `out` element by element: for each output multi-index, copies the
/// input element at offset `offset_of(index)`, or writes zero bytes where it
/// returns a negative offset (a padded position).
template <typename F>
void gather_elements(const weft::sdk::TensorView& in, const weft::sdk::TensorView& out, F&& offset_of) {
  Shape shape = out.shape(), index(shape.size(), 0);
  size_t bytes = out.element_bytes();
  const char* src = bytes_of(in);
  char* dst = mutable_bytes_of(out);
  for (int64_t n = 0, total = out.numel(); n < total; ++n) {
    int64_t off = offset_of(static_cast<const Shape&>(index));
    if (off < 0) std::memset(dst + n * bytes, 0, bytes);
    else std::memcpy(dst + n * bytes, src + off * bytes, bytes);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace weft_tensor
