// The null target's kernels (loops.h): obviously correct, not fast.
#include "loops.h"

#include <algorithm>

namespace null_target {

namespace {

/// Strides of `shape` right-aligned to a result of rank `rank`, 0 along the
/// dims it is broadcast over.
Shape broadcast_strides(const Shape& shape, size_t rank) {
  Shape strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t dim = shape.size() - 1 - i;
    if (shape[dim] != 1) strides[rank - 1 - i] = stride;
    stride *= shape[dim];
  }
  return strides;
}

}  // namespace

void add(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, float* out,
         const Shape& out_shape) {
  size_t rank = out_shape.size();
  Shape sa = broadcast_strides(a_shape, rank), sb = broadcast_strides(b_shape, rank);
  int64_t n = 1;
  for (int64_t d : out_shape) n *= d;
  Shape index(rank, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = a[ia] + b[ib];
    // Step the multi-index like an odometer, moving both input offsets along.
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      ia += sa[d];
      ib += sb[d];
      if (index[d] < out_shape[d]) break;
      ia -= sa[d] * out_shape[d];
      ib -= sb[d] * out_shape[d];
      index[d] = 0;
    }
  }
}

void relu(const float* x, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::max(x[i], 0.0f);
}

void dense(const float* data, int64_t rows, int64_t k, const float* weight, int64_t units, float* out) {
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t j = 0; j < units; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < k; ++p) sum += data[m * k + p] * weight[j * k + p];
      out[m * units + j] = sum;
    }
  }
}

}  // namespace null_target
