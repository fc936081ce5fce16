// Reference-kernel plumbing shared by the pooling and normalization
// families: float dtype dispatch and row-major index loops.
#pragma once

#include <cstdint>
#include <vector>
#include <weft/plugin.hpp>

namespace weft_nn {

/// Calls f(T{}) with T = float or double when every input and output is
/// float32 (or every one float64); any other dtype is an error (the host
/// adds the op and the call to it).
template <typename F>
void dispatch_float(const weft::sdk::KernelArgs& k, F&& f) {
  namespace dt = weft::sdk::dtype;
  using weft::sdk::operator==;
  DLDataType t = k.inputs.at(0).dtype();
  bool same = true;
  for (const weft::sdk::TensorView& v : k.inputs) same = same && v.dtype() == t;
  for (const weft::sdk::TensorView& v : k.outputs) same = same && v.dtype() == t;
  if (same && t == dt::float64) {
    f(double{});
  } else if (same && t == dt::float32) {
    f(float{});
  } else {
    throw weft::sdk::Error(
        "the reference kernel takes float32 or float64 tensors of one dtype, got " + weft::sdk::dtype_name(t),
        WEFT_STATUS_UNSUPPORTED);
  }
}

/// Row-major element strides of `shape`.
inline std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Calls f(index) for each multi-index of `shape` in row-major order (the
/// order of a compact tensor's elements).
template <typename F>
void for_each_index(const std::vector<int64_t>& shape, F&& f) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    f(index);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace weft_nn
