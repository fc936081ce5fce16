// Winograd F(m, r) pieces shared by the 2D and 3D Winograd convolutions:
// TOPI's transform matrices and the per-axis transforms that apply them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "conv_common.h"
#include "te_util.h"

namespace weft_nn::conv {

using Matrix = std::vector<std::vector<double>>;

/// TOPI's winograd_transform_matrices(m, r): A (alpha x m), B (alpha x alpha)
/// and G (alpha x r), alpha = m + r - 1.
struct WinogradMatrices {
  Matrix A, B, G;
};
WinogradMatrices winograd_matrices(int64_t m, int64_t r);

/// Throws unless TOPI computes F(tile, kernel): tile in [2, 8], kernel in [3, 7].
void check_winograd_tile(int64_t tile, int64_t kernel);

/// Applies `mat` (rows x cols) along one axis of a row-major block: with the
/// block viewed as (outer, rows, inner), out[o][j][i] = sum_a mat[a][j] * in[o][a][i].
template <typename T>
std::vector<T> along_axis(const std::vector<T>& in, const Matrix& mat, int64_t outer, int64_t inner) {
  const int64_t rows = static_cast<int64_t>(mat.size()), cols = static_cast<int64_t>(mat[0].size());
  std::vector<T> out(static_cast<size_t>(outer * cols * inner), T(0));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t a = 0; a < rows; ++a) {
      for (int64_t j = 0; j < cols; ++j) {
        const T f = static_cast<T>(mat[a][j]);
        if (f == T(0)) continue;
        for (int64_t i = 0; i < inner; ++i) out[(o * cols + j) * inner + i] += f * in[(o * rows + a) * inner + i];
      }
    }
  }
  return out;
}

// ---- The same in TE ------------------------------------------------------------------

/// `v` as the kernels convert a matrix entry to their accumulator
/// (static_cast<T>): rounded to float for float32, truncated for int32.
double as_accumulator(DLDataType acc, double v);

/// mat[row][col] in acc's dtype (as_accumulator) at index expressions: a
/// select over the rows of selects over the columns.
te::Expr matrix_entry(const Matrix& mat, DLDataType acc, const te::Expr& row, const te::Expr& col);

/// along_axis's sum for output column `j` (an index expression) in TE: a
/// reduction over a fresh axis `a` of mat[a][j] * in(a), from zero in a's
/// order, skipping the zero coefficients as along_axis does (so an infinite
/// input there adds nothing, not NaN). The whole body of a compute.
te::Expr along_axis_te(const Matrix& mat, DLDataType acc, const te::Expr& j, const std::string& axis_name,
                       const std::function<te::Expr(const te::Expr&)>& in);

}  // namespace weft_nn::conv
