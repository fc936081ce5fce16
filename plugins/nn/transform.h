// The nn data-movement ops (pad, mirror_pad, dilate, upsampling, fifo_buffer,
// depth/space and space/batch rearrangements): each sibling file registers
// its ops; transform.cpp registers them all. Shared here: reading pair-list
// attrs, scalar fill values of any dtype, and a gather kernel that copies
// elements by byte size, so data movement works for every dtype.
#pragma once

#include <weft/plugin.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace weft_nn {

void register_pad_ops(weft::sdk::Registrar& reg);         // nn_pad.cpp
void register_dilate_op(weft::sdk::Registrar& reg);       // dilate.cpp
void register_fifo_buffer_op(weft::sdk::Registrar& reg);  // fifo_buffer.cpp
void register_upsampling_ops(weft::sdk::Registrar& reg);  // upsampling.cpp
void register_space_depth_ops(weft::sdk::Registrar& reg); // space_depth.cpp
void register_space_batch_ops(weft::sdk::Registrar& reg); // space_batch.cpp

namespace transform {

using IntPairs = std::vector<std::pair<int64_t, int64_t>>;

/// "(1, 2, 3)" for messages.
inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i ? ", " : "") + (shape[i] == WEFT_DIM_ANY ? std::string("?") : std::to_string(shape[i]));
  }
  return out + ")";
}

/// A list of [before, after] int pairs, e.g. pad_width [[0, 0], [1, 2]].
inline IntPairs int_pairs(const weft::sdk::Value& value, const std::string& attr) {
  IntPairs out;
  std::vector<weft::sdk::Value> items = value.as_list();
  for (size_t i = 0; i < items.size(); ++i) {
    std::vector<int64_t> pair;
    weft_attr_type_t t = items[i].type();
    if (t == WEFT_ATTR_INT_LIST) {
      pair = items[i].as_ints();
    } else if (t == WEFT_ATTR_LIST) {
      for (const weft::sdk::Value& e : items[i].as_list()) {
        if (e.type() != WEFT_ATTR_INT) throw weft::sdk::Error(attr + "[" + std::to_string(i) + "] holds a non-integer");
        pair.push_back(e.as_int());
      }
    } else {
      throw weft::sdk::Error(attr + "[" + std::to_string(i) + "] is not a list; expected [before, after] pairs");
    }
    if (pair.size() != 2) {
      throw weft::sdk::Error(attr + "[" + std::to_string(i) + "] has " + std::to_string(pair.size()) +
                             " elements; expected a [before, after] pair");
    }
    out.emplace_back(pair[0], pair[1]);
  }
  return out;
}

/// Accepts only the `allowed` values of a string attr.
inline weft::sdk::Normalizer one_of(std::string attr, std::vector<std::string> allowed) {
  return [attr, allowed](const weft::sdk::Value& v) {
    std::string s = v.as_string();
    std::string list;
    for (const std::string& a : allowed) {
      if (s == a) return v;
      list += (list.empty() ? "" : ", ") + a;
    }
    throw weft::sdk::Error(attr + " is '" + s + "'; expected one of " + list);
  };
}

/// Normal form of a pair-list attr: a list of 2-element int lists.
inline weft::sdk::Normalizer int_pairs_normalizer(std::string attr) {
  return [attr](const weft::sdk::Value& v) {
    std::vector<weft::sdk::Value> items;
    for (const auto& [a, b] : int_pairs(v, attr)) items.emplace_back(std::vector<int64_t>{a, b});
    return weft::sdk::Value(items);
  };
}

inline IntPairs get_pairs(const weft::sdk::Attrs& attrs, const std::string& attr) {
  return int_pairs(attrs.get_value(attr), attr);
}

/// The tensor argument `i`; Error naming `what` otherwise.
inline const weft::sdk::Type& tensor_arg(const std::vector<weft::sdk::Type>& args, size_t i, const char* what) {
  if (i >= args.size()) throw weft::sdk::Error(std::string("missing argument '") + what + "'");
  if (!args[i].is_tensor()) throw weft::sdk::Error(std::string(what) + " must be a tensor, got " + args[i].str());
  return args[i];
}

inline size_t element_bytes(DLDataType t) { return (static_cast<size_t>(t.bits) * t.lanes + 7) / 8; }

/// `value` stored as one element of dtype `t` (a fill value for padding).
inline std::vector<unsigned char> scalar_bytes(DLDataType t, double value) {
  std::vector<unsigned char> out(element_bytes(t));
  auto put = [&](auto v) { std::memcpy(out.data(), &v, sizeof(v)); };
  using namespace weft::sdk;
  if (t == dtype::float32) put(static_cast<float>(value));
  else if (t == dtype::float64) put(value);
  else if (t == dtype::int8) put(static_cast<int8_t>(value));
  else if (t == dtype::int16) put(static_cast<int16_t>(value));
  else if (t == dtype::int32) put(static_cast<int32_t>(value));
  else if (t == dtype::int64) put(static_cast<int64_t>(value));
  else if (t == dtype::uint8 || t == dtype::boolean) put(static_cast<uint8_t>(value));
  else if (t == DLDataType{kDLUInt, 16, 1}) put(static_cast<uint16_t>(value));
  else if (t == DLDataType{kDLUInt, 32, 1}) put(static_cast<uint32_t>(value));
  else if (t == DLDataType{kDLUInt, 64, 1}) put(static_cast<uint64_t>(value));
  else throw Error("a fill value of dtype " + dtype_name(t) + " is not supported");
  return out;
}

/// The single element of a scalar tensor, as a double.
inline double scalar_value(const weft::sdk::TensorView& t) {
  using namespace weft::sdk;
  if (t.numel() != 1) throw Error("expected a scalar tensor, got shape " + shape_text(t.shape()));
  const char* p = static_cast<const char*>(t.dl().data) + t.dl().byte_offset;
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  DLDataType d = t.dtype();
  if (d == dtype::float32) return get(float{});
  if (d == dtype::float64) return get(double{});
  if (d == dtype::int8) return get(int8_t{});
  if (d == dtype::int16) return get(int16_t{});
  if (d == dtype::int32) return get(int32_t{});
  if (d == dtype::int64) return get(int64_t{});
  if (d == dtype::uint8 || d == dtype::boolean) return get(uint8_t{});
  throw Error("a scalar of dtype " + dtype_name(d) + " is not supported");
}

/// Row-major element strides of `shape`.
inline std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

/// out[idx] = in[source_of(idx)] for every output multi-index, or `fill`
/// where source_of returns -1. Elements move as bytes, so any dtype works.
template <typename SourceOf>
void gather(const weft::sdk::TensorView& in, const weft::sdk::TensorView& out,
            const std::vector<unsigned char>& fill, SourceOf source_of) {
  const size_t es = element_bytes(out.dtype());
  const char* src = static_cast<const char*>(in.dl().data) + in.dl().byte_offset;
  char* dst = static_cast<char*>(out.dl().data) + out.dl().byte_offset;
  std::vector<int64_t> shape = out.shape();
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t n = 0, total = out.numel(); n < total; ++n) {
    int64_t s = source_of(idx);
    std::memcpy(dst + n * es, s >= 0 ? src + s * es : reinterpret_cast<const char*>(fill.data()), es);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace transform
}  // namespace weft_nn
