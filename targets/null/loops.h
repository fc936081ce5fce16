// The null target's kernels: plain loops over float32, one per op it runs.
#pragma once

#include <cstdint>
#include <vector>

namespace null_target {

using Shape = std::vector<int64_t>;

/// out = a + b with NumPy broadcasting (Relay's add); out_shape is the result's.
void add(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, float* out,
         const Shape& out_shape);

/// out = max(x, 0) over n elements.
void relu(const float* x, int64_t n, float* out);

/// Relay's nn.dense: out[m, j] = sum_k data[m, k] * weight[j, k], with data
/// (rows, k) (its leading dims flattened), weight (units, k), out (rows, units).
void dense(const float* data, int64_t rows, int64_t k, const float* weight, int64_t units, float* out);

}  // namespace null_target
