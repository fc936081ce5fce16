// Shared pieces of the normalization family: argument checks and the
// grouped mean/variance loop of the reference kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>
#include <weft/plugin.hpp>

#include "kernel_loops.h"

namespace weft_nn::norm {

using weft::sdk::Attrs;
using weft::sdk::Error;
using weft::sdk::KernelArgs;
using weft::sdk::OpBuilder;
using weft::sdk::Registrar;
using weft::sdk::TensorView;
using weft::sdk::Type;

/// nn.lrn and nn.l2_normalize (normalization_local.cpp).
void register_local_normalization_ops(Registrar& reg);

/// The arguments, checked to be `count` tensors (`names` name them in messages).
std::vector<Type> tensor_args(const std::vector<Type>& args, const std::vector<std::string>& names);

/// An axis in [-ndim, ndim) as an index in [0, ndim); an Error naming
/// `attr` and the data type otherwise.
size_t axis_index(int64_t axis, const Type& data, const std::string& attr = "axis");

/// Checks that `param` (named `name`) is a vector of data's dtype with the
/// extent of data's axis `axis`.
void check_channel_param(const Type& param, const std::string& name, const Type& data, size_t axis);

/// For each element of a compact tensor of `shape`, in order, the group it
/// falls in when the axes marked in `reduced` are reduced over (the index
/// over the other axes); `groups` receives their number.
inline std::vector<int64_t> group_ids(const std::vector<int64_t>& shape, const std::vector<bool>& reduced,
                                      int64_t& groups) {
  std::vector<int64_t> kept_strides(shape.size(), 0);
  groups = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (reduced[d]) continue;
    kept_strides[d] = groups;
    groups *= shape[d];
  }
  std::vector<int64_t> ids;
  for_each_index(shape, [&](const std::vector<int64_t>& index) {
    int64_t g = 0;
    for (size_t d = 0; d < index.size(); ++d) g += index[d] * kept_strides[d];
    ids.push_back(g);
  });
  return ids;
}

/// Writes (x - mean) / sqrt(var + epsilon) into y, where mean and the biased
/// variance are taken over the axes of `shape` marked in `reduced` (the
/// others select a group). Accumulates in double.
template <typename T>
void normalize_over(const T* x, T* y, const std::vector<int64_t>& shape, const std::vector<bool>& reduced,
                    double epsilon) {
  int64_t groups = 0;
  std::vector<int64_t> group_of = group_ids(shape, reduced, groups);
  std::vector<double> sum(groups, 0.0), sq(groups, 0.0), count(groups, 0.0);
  const size_t n = group_of.size();
  for (size_t e = 0; e < n; ++e) {
    sum[group_of[e]] += x[e];
    count[group_of[e]] += 1;
  }
  for (int64_t g = 0; g < groups; ++g) sum[g] /= count[g];  // now the mean
  for (size_t e = 0; e < n; ++e) {
    double c = x[e] - sum[group_of[e]];
    sq[group_of[e]] += c * c;
  }
  for (size_t e = 0; e < n; ++e) {
    int64_t g = group_of[e];
    y[e] = static_cast<T>((x[e] - sum[g]) / std::sqrt(sq[g] / count[g] + epsilon));
  }
}

/// y = y * gamma[c] + beta[c] along `axis` of `shape` (either may be null).
template <typename T>
void scale_shift(T* y, const std::vector<int64_t>& shape, size_t axis, const T* gamma, const T* beta) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  for (int64_t e = 0; e < total; ++e) {
    int64_t c = (e / inner) % shape[axis];
    if (gamma) y[e] *= gamma[c];
    if (beta) y[e] += beta[c];
  }
}

}  // namespace weft_nn::norm
