// The sparse family's shared pieces: a CSR/BSR matrix read from its three
// tensors (data, indices, indptr) with its structure checked, and the product
// every sparse op reduces to. CSR is BSR with 1 x 1 blocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor_access.h"

namespace weft_nn::sparse {

/// "(2, 3)", "?" for unknown dims.
std::string shape_str(const std::vector<int64_t>& shape);

/// Relation-time checks of the three sparse tensors: data of rank in
/// `data_ranks` (1: CSR, 2: BSR with 1-wide blocks, 3: BSR), indices and
/// indptr integer vectors, one index per block. Names `what` (e.g. "sparse").
void check_sparse_types(const std::vector<weft::sdk::Type>& args, size_t first, const std::vector<size_t>& data_ranks,
                        const std::string& what);

/// The block rows of a sparse matrix (indptr extent - 1), or WEFT_DIM_ANY.
int64_t block_rows(const weft::sdk::Type& indptr);

/// A sparse matrix of block rows with its values as T.
template <typename T>
struct SparseMatrix {
  int64_t block_rows = 0, bs_r = 1, bs_c = 1;
  std::vector<T> values;  // num_blocks x bs_r x bs_c
  std::vector<int64_t> indices, indptr;

  int64_t rows() const { return block_rows * bs_r; }

  /// Calls f(row, col, value) for each stored value, row-major by block row.
  template <typename F>
  void for_each(F&& f) const {
    for (int64_t br = 0; br < block_rows; ++br) {
      for (int64_t e = indptr[br]; e < indptr[br + 1]; ++e) {
        for (int64_t j = 0; j < bs_r; ++j) {
          for (int64_t c = 0; c < bs_c; ++c) f(br * bs_r + j, indices[e] * bs_c + c, values[(e * bs_r + j) * bs_c + c]);
        }
      }
    }
  }
};

/// Reads inputs first..first+2 as a sparse matrix and checks its structure:
/// indptr non-decreasing from >= 0 to <= the number of blocks, and every
/// column (index * bs_c + c) below `cols`. Errors name the tensor and value.
template <typename T>
SparseMatrix<T> read_sparse(const weft::sdk::KernelArgs& k, size_t first, int64_t cols);

/// out[i, r] = sum over stored (r, col, v) of v * dense[i * cols + col]: the
/// product dense (m x cols) times the sparse matrix's transpose, m x rows.
template <typename T>
std::vector<T> dense_times_sparse_t(const std::vector<T>& dense, int64_t m, int64_t cols, const SparseMatrix<T>& s) {
  std::vector<T> out(static_cast<size_t>(m * s.rows()), T(0));
  s.for_each([&](int64_t r, int64_t col, T v) {
    for (int64_t i = 0; i < m; ++i) out[i * s.rows() + r] += v * dense[i * cols + col];
  });
  return out;
}

/// Where each stored value of a sparse matrix sits in its dense form, as IR
/// for the gradients (sparse_positions.cpp): one-hot matrices of each stored
/// block's block row (from indptr) and block column (from indices), in the
/// values' dtype. Blocks outside indptr's range get no row, as the kernels
/// skip them. torch.sparse differentiates the values; indices and indptr get
/// no gradient.
struct SparsePositions {
  weft::sdk::Expr values_like;  // sparse_data: the values' shape and dtype
  weft::sdk::Expr rows, cols;   // (blocks, block rows) and (blocks, block columns)
  int64_t blocks = 0, block_rows = 0, block_cols = 0, bs_r = 1, bs_c = 1;

  /// The dense (block_rows * bs_r, block_cols * bs_c) matrix with `values`
  /// (shaped as sparse_data) at their positions, values stored twice summed.
  weft::sdk::Expr scatter(const weft::sdk::Expr& values) const;
  /// The entries of the dense matrix `dense` at each stored value's position,
  /// shaped as sparse_data: scatter's adjoint.
  weft::sdk::Expr gather(const weft::sdk::Expr& dense) const;
};

/// The positions of the sparse matrix given by the call's arguments
/// first..first+2 (data, indices, indptr) whose dense form has `cols` columns.
SparsePositions sparse_positions(const weft::sdk::Expr& call, size_t first, int64_t cols);

/// Registers nn.sparse_conv2d (sparse_conv2d.cpp).
void register_sparse_conv2d_op(weft::sdk::Registrar& reg);

// ---- Template definitions ----------------------------------------------------------

template <typename T>
SparseMatrix<T> read_sparse(const weft::sdk::KernelArgs& k, size_t first, int64_t cols) {
  using weft::sdk::Error;
  const weft::sdk::TensorView &data = k.inputs.at(first), &ind = k.inputs.at(first + 1), &ptr = k.inputs.at(first + 2);
  SparseMatrix<T> s;
  std::vector<int64_t> ds = data.shape();
  if (ds.size() >= 2) s.bs_r = ds[1];
  if (ds.size() == 3) s.bs_c = ds[2];
  s.values = load_as<T>(data);
  s.indices = load_as<int64_t>(ind);
  s.indptr = load_as<int64_t>(ptr);
  s.block_rows = static_cast<int64_t>(s.indptr.size()) - 1;
  const int64_t blocks = ds.at(0);
  if (s.block_rows < 0) throw Error("sparse_indptr must hold at least one value");
  if (s.indptr[0] < 0) throw Error("sparse_indptr[0] is " + std::to_string(s.indptr[0]) + ", expected >= 0");
  for (int64_t r = 0; r < s.block_rows; ++r) {
    if (s.indptr[r + 1] < s.indptr[r]) {
      throw Error("sparse_indptr must not decrease, but sparse_indptr[" + std::to_string(r + 1) + "] = " +
                  std::to_string(s.indptr[r + 1]) + " < sparse_indptr[" + std::to_string(r) + "] = " +
                  std::to_string(s.indptr[r]));
    }
  }
  if (s.indptr.back() > blocks) {
    throw Error("sparse_indptr ends at " + std::to_string(s.indptr.back()) + ", past the " + std::to_string(blocks) +
                " stored blocks of sparse_data");
  }
  if (static_cast<int64_t>(s.indices.size()) < s.indptr.back()) {
    throw Error("sparse_indices holds " + std::to_string(s.indices.size()) + " values, but sparse_indptr ends at " +
                std::to_string(s.indptr.back()));
  }
  for (int64_t e = s.indptr[0]; e < s.indptr.back(); ++e) {
    int64_t col = s.indices[e];
    if (col < 0 || (col + 1) * s.bs_c > cols) {
      throw Error("sparse_indices[" + std::to_string(e) + "] = " + std::to_string(col) + " is out of range: the " +
                  "dense operand has " + std::to_string(cols) + " columns (blocks of " + std::to_string(s.bs_c) + ")");
    }
  }
  return s;
}

}  // namespace weft_nn::sparse
