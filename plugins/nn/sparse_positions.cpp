// The one-hot positions of a sparse matrix's stored values, from which the
// sparse ops' gradients scatter values into a dense matrix and gather them
// back (see SparsePositions in sparse.h).
#include <weft/sdk/gradient.hpp>

#include "sparse.h"

namespace weft_nn::sparse {

using namespace weft::sdk;

namespace {

/// The constant (1, n) or (n, 1) row or column 0, 1, ..., n - 1 as int64.
Expr counting(int64_t n, bool as_column) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<double>(i);
  return grad::constant_of(as_column ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{1, n}, dtype::int64, values);
}

Expr as_int64(const Expr& e) { return call("cast", {e}, {{"dtype", dtype::int64}}); }
Expr reshaped(const Expr& e, const std::vector<int64_t>& shape) { return call("reshape", {e}, {{"newshape", shape}}); }

}  // namespace

SparsePositions sparse_positions(const Expr& c, size_t first, int64_t cols) {
  SparsePositions p;
  p.values_like = c.arg(first);
  std::vector<int64_t> ds = grad::static_shape(p.values_like, "the sparse data");
  p.blocks = ds[0];
  if (ds.size() >= 2) p.bs_r = ds[1];
  if (ds.size() == 3) p.bs_c = ds[2];
  p.block_rows = grad::static_shape(c.arg(first + 2), "the sparse indptr")[0] - 1;
  p.block_cols = cols / p.bs_c;
  Expr indptr = as_int64(c.arg(first + 2)), block = counting(p.blocks, true);
  auto bound = [&](int64_t begin) {
    return reshaped(call("strided_slice", {indptr}, {{"begin", std::vector<int64_t>{begin}},
                                                      {"end", std::vector<int64_t>{begin + p.block_rows}}}),
                    {1, p.block_rows});
  };
  // Block e is in block row r when indptr[r] <= e < indptr[r + 1].
  Expr in_row = call("logical_and", {call("greater_equal", {block, bound(0)}), call("less", {block, bound(1)})});
  p.rows = grad::cast_like(in_row, p.values_like);
  Expr column = reshaped(as_int64(c.arg(first + 1)), {p.blocks, 1});
  p.cols = grad::cast_like(call("equal", {column, counting(p.block_cols, false)}), p.values_like);
  return p;
}

Expr SparsePositions::scatter(const Expr& values) const {
  // blocks[e, j, bc, k] = values[e, j, k] where bc is block e's column; the rows' one-hot sums them into rows.
  Expr placed = grad::mul(reshaped(values, {blocks, bs_r, 1, bs_c}), reshaped(cols, {blocks, 1, block_cols, 1}));
  Expr dense = call("nn.matmul", {rows, reshaped(placed, {blocks, bs_r * block_cols * bs_c})},
                    {{"transpose_a", true}, {"transpose_b", false}});
  return reshaped(dense, {block_rows * bs_r, block_cols * bs_c});
}

Expr SparsePositions::gather(const Expr& dense) const {
  Expr by_block_row = reshaped(dense, {block_rows, bs_r * block_cols * bs_c});
  Expr in_row = call("nn.matmul", {rows, by_block_row}, {{"transpose_a", false}, {"transpose_b", false}});
  Expr at = grad::mul(reshaped(in_row, {blocks, bs_r, block_cols, bs_c}), reshaped(cols, {blocks, 1, block_cols, 1}));
  return call("reshape_like", {call("sum", {at}, {{"axis", std::vector<int64_t>{2}}}), values_like});
}

}  // namespace weft_nn::sparse
