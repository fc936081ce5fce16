// nn.sparse_dense, nn.sparse_transpose and nn.sparse_add: products, transposes
// and sums of CSR/BSR matrices given as (data, indices, indptr), as Relay's
// sparse.cc types them and TOPI's topi/nn/sparse.py computes them.
#include "sparse.h"

#include <cstring>
#include <weft/sdk/gradient.hpp>

#include "nn_ops.h"

namespace weft_nn::sparse {

using namespace weft::sdk;

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i ? ", " : "") + (shape[i] == WEFT_DIM_ANY ? std::string("?") : std::to_string(shape[i]));
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

namespace {
bool is_int(DLDataType t) { return (t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1; }
std::string ranks_str(const std::vector<size_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    out += (i ? (i + 1 == ranks.size() ? " or " : ", ") : "") + std::to_string(ranks[i]);
  }
  return out;
}
}  // namespace

void check_sparse_types(const std::vector<Type>& args, size_t first, const std::vector<size_t>& data_ranks,
                        const std::string& what) {
  Type data = tensor_arg(args, first, what + "_data");
  Type indices = tensor_arg(args, first + 1, what + "_indices");
  Type indptr = tensor_arg(args, first + 2, what + "_indptr");
  std::vector<int64_t> ds = data.shape();
  bool rank_ok = false;
  for (size_t r : data_ranks) rank_ok = rank_ok || ds.size() == r;
  if (!rank_ok) {
    throw Error(what + "_data of shape " + shape_str(ds) + " has rank " + std::to_string(ds.size()) + ", expected " +
                ranks_str(data_ranks) + " (1: CSR values; 2, 3: BSR blocks)");
  }
  for (const Type* t : {&indices, &indptr}) {
    const std::string name = what + (t == &indices ? "_indices" : "_indptr");
    if (t->shape().size() != 1 || !is_int(t->dtype())) {
      throw Error(name + " must be a vector of integers, got " + t->str());
    }
  }
  if (!dims_agree(indices.shape()[0], ds[0])) {
    throw Error(what + "_indices of shape " + shape_str(indices.shape()) + " must hold one column index per stored " +
                (ds.size() == 1 ? "value" : "block") + " of " + what + "_data " + shape_str(ds));
  }
  if (indptr.shape()[0] == 0) throw Error(what + "_indptr must hold at least one value, got shape (0,)");
}

int64_t block_rows(const Type& indptr) {
  int64_t n = indptr.shape()[0];
  return n == WEFT_DIM_ANY ? WEFT_DIM_ANY : n - 1;
}

namespace {

int64_t times(int64_t a, int64_t b) { return a == WEFT_DIM_ANY || b == WEFT_DIM_ANY ? WEFT_DIM_ANY : a * b; }

// ---- sparse_dense ---------------------------------------------------------------------

/// The sparse operand's rows (block rows times bs_r) from its types.
int64_t sparse_rows(const std::vector<Type>& args) {
  std::vector<int64_t> ds = args[1].shape();
  return times(block_rows(args[3]), ds.size() == 3 ? ds[1] : 1);
}

Type sparse_dense_relation(const std::vector<Type>& args, const Attrs& attrs) {
  if (args.size() != 4) throw Error("expected 4 arguments (dense_data, sparse_data, sparse_indices, sparse_indptr)");
  Type dense = tensor_arg(args, 0, "dense_data");
  check_sparse_types(args, 1, {1, 3}, "sparse");
  if (dense.shape().size() != 2) {
    throw Error("dense_data of shape " + shape_str(dense.shape()) + " must be a matrix (rank 2)");
  }
  if (args[1].dtype() != dense.dtype()) {
    throw Error("sparse_data (" + dtype_name(args[1].dtype()) + ") and dense_data (" + dtype_name(dense.dtype()) +
                ") must have one dtype");
  }
  int64_t rows = sparse_rows(args), m = dense.shape()[0];
  // sparse_lhs: S (rows x K) times dense^T; else dense (M x K) times S^T.
  return attrs.get_bool("sparse_lhs") ? Type::tensor({rows, m}, dense.dtype()) : Type::tensor({m, rows}, dense.dtype());
}

void sparse_dense_kernel(const KernelArgs& k) {
  const TensorView &dense = k.inputs.at(0), &out = k.outputs.at(0);
  const bool lhs = k.attrs.get_bool("sparse_lhs");
  with_float_type(dense, [&](auto tag) {
    using T = decltype(tag);
    const int64_t m = dense.shape()[0], cols = dense.shape()[1];
    SparseMatrix<T> s = read_sparse<T>(k, 1, cols);
    std::vector<T> product = dense_times_sparse_t(load_as<T>(dense), m, cols, s);  // m x rows
    if (lhs) {  // S D^T is the transpose of D S^T
      std::vector<T> t(product.size());
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t r = 0; r < s.rows(); ++r) t[r * m + i] = product[i * s.rows() + r];
      }
      product.swap(t);
    }
    store_from(product, out);
  });
}

/// out = D S^T (or S D^T with sparse_lhs), S the sparse matrix's dense form:
/// D's gradient is G S (G^T S), S's is G^T D (G D), and the stored values'
/// are S's gradient at their positions.
std::vector<Expr> sparse_dense_gradient(const Expr& c, const Expr& g) {
  const Expr dense = c.arg(0);
  const bool lhs = c.attrs().get_bool("sparse_lhs");
  SparsePositions at = sparse_positions(c, 1, grad::static_shape(dense, "nn.sparse_dense's dense_data")[1]);
  auto matmul = [](const Expr& a, const Expr& b, bool transpose_a) {
    return call("nn.matmul", {a, b}, {{"transpose_a", transpose_a}, {"transpose_b", false}});
  };
  Expr d_dense = matmul(g, at.scatter(c.arg(1)), lhs);
  Expr d_sparse = matmul(g, dense, !lhs);
  return {d_dense, at.gather(d_sparse), grad::zeros_like(c.arg(2)), grad::zeros_like(c.arg(3))};
}

// ---- sparse_transpose -----------------------------------------------------------------

Type sparse_transpose_relation(const std::vector<Type>& args, const Attrs&) {
  if (args.size() != 3) throw Error("expected 3 arguments (sparse_data, sparse_indices, sparse_indptr)");
  check_sparse_types(args, 0, {1}, "sparse");
  return Type::tuple({args[0], args[1], args[2]});
}

/// TOPI's _csr_transpose_ir: count each column's values, prefix-sum the counts
/// into the new indptr, then visit the rows in order and append each value to
/// its column, so every new row lists its columns (the old rows) ascending.
void sparse_transpose_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &out_data = k.outputs.at(0);
  std::vector<int64_t> indices = load_as<int64_t>(k.inputs.at(1)), indptr = load_as<int64_t>(k.inputs.at(2));
  const int64_t n = static_cast<int64_t>(indptr.size()) - 1, nnz = data.shape()[0];
  if (indptr[0] != 0 || indptr[n] != nnz) {
    throw Error("sparse_indptr must run from 0 to the " + std::to_string(nnz) + " stored values, got " +
                std::to_string(indptr[0]) + " to " + std::to_string(indptr[n]));
  }
  std::vector<int64_t> new_ptr(static_cast<size_t>(n + 1), 0);
  for (int64_t r = 0; r < n; ++r) {
    if (indptr[r + 1] < indptr[r]) throw Error("sparse_indptr must not decrease (at row " + std::to_string(r) + ")");
  }
  for (int64_t e = 0; e < nnz; ++e) {
    if (indices[e] < 0 || indices[e] >= n) {
      throw Error("sparse_indices[" + std::to_string(e) + "] = " + std::to_string(indices[e]) +
                  " is out of range for a square " + std::to_string(n) + " x " + std::to_string(n) + " matrix");
    }
    ++new_ptr[indices[e] + 1];
  }
  for (int64_t c = 0; c < n; ++c) new_ptr[c + 1] += new_ptr[c];
  std::vector<int64_t> next(new_ptr.begin(), new_ptr.end() - 1), new_indices(static_cast<size_t>(nnz));
  const size_t bytes = (data.dtype().bits + 7) / 8;
  const char* src = static_cast<const char*>(data.dl().data) + data.dl().byte_offset;
  char* dst = static_cast<char*>(out_data.dl().data) + out_data.dl().byte_offset;
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t e = indptr[r]; e < indptr[r + 1]; ++e) {
      int64_t dest = next[indices[e]]++;
      new_indices[dest] = r;
      std::memcpy(dst + dest * bytes, src + e * bytes, bytes);
    }
  }
  store_from(new_indices, k.outputs.at(1));
  store_from(new_ptr, k.outputs.at(2));
}

/// The kernel's result is a permutation of the values: the value stored e-th
/// lands at dest(e) = (how many values have a smaller column) + (how many
/// earlier ones share its column), so its gradient is the result's there.
std::vector<Expr> sparse_transpose_gradient(const Expr& c, const Expr& g) {
  const int64_t nnz = grad::static_shape(c.arg(0), "nn.sparse_transpose's sparse_data")[0];
  std::vector<double> order(static_cast<size_t>(nnz));
  for (int64_t e = 0; e < nnz; ++e) order[static_cast<size_t>(e)] = static_cast<double>(e);
  Expr column = call("cast", {c.arg(1)}, {{"dtype", dtype::int64}});
  auto as = [](const Expr& e, std::vector<int64_t> shape) { return call("reshape", {e}, {{"newshape", shape}}); };
  Expr mine = as(column, {nnz, 1}), other = as(column, {1, nnz});
  Expr earlier = call("less", {grad::constant_of({1, nnz}, dtype::int64, order),
                               grad::constant_of({nnz, 1}, dtype::int64, order)});
  Expr before = call("logical_or", {call("less", {other, mine}),
                                    call("logical_and", {call("equal", {other, mine}), earlier})});
  Expr dest = call("sum", {call("cast", {before}, {{"dtype", dtype::int64}})}, {{"axis", std::vector<int64_t>{1}}});
  Expr d_values = call("take", {get_item(g, 0), dest}, {{"axis", int64_t{0}}});
  return {d_values, grad::zeros_like(c.arg(1)), grad::zeros_like(c.arg(2))};
}

// ---- sparse_add -----------------------------------------------------------------------

Type sparse_add_relation(const std::vector<Type>& args, const Attrs&) {
  if (args.size() != 4) throw Error("expected 4 arguments (dense_data, sparse_data, sparse_indices, sparse_indptr)");
  Type dense = tensor_arg(args, 0, "dense_data");
  check_sparse_types(args, 1, {1}, "sparse");
  if (dense.shape().size() != 2) {
    throw Error("dense_data of shape " + shape_str(dense.shape()) + " must be a matrix (rank 2)");
  }
  if (args[1].dtype() != dense.dtype()) {
    throw Error("sparse tensor and dense tensor datatype should match: sparse_data is " +
                dtype_name(args[1].dtype()) + ", dense_data " + dtype_name(dense.dtype()));
  }
  if (!dims_agree(block_rows(args[3]), dense.shape()[0])) {
    throw Error("sparse_indptr of shape " + shape_str(args[3].shape()) + " describes " +
                std::to_string(block_rows(args[3])) + " rows, but dense_data " + shape_str(dense.shape()) + " has " +
                std::to_string(dense.shape()[0]));
  }
  return dense;
}

void sparse_add_kernel(const KernelArgs& k) {
  const TensorView &dense = k.inputs.at(0), &out = k.outputs.at(0);
  with_accumulator(out, [&](auto tag) {
    using T = decltype(tag);
    const int64_t cols = dense.shape()[1];
    SparseMatrix<T> s = read_sparse<T>(k, 1, cols);
    std::vector<T> sum = load_as<T>(dense);
    s.for_each([&](int64_t r, int64_t c, T v) { sum[r * cols + c] += v; });
    store_from(sum, out);
  });
}

/// out = D + S: D's gradient is G, the stored values' G at their positions.
std::vector<Expr> sparse_add_gradient(const Expr& c, const Expr& g) {
  SparsePositions at = sparse_positions(c, 1, grad::static_shape(c.arg(0), "nn.sparse_add's dense_data")[1]);
  return {g, at.gather(g), grad::zeros_like(c.arg(2)), grad::zeros_like(c.arg(3))};
}

}  // namespace
}  // namespace weft_nn::sparse

namespace weft_nn {

void register_sparse_ops(weft::sdk::Registrar& reg) {
  using namespace sparse;
  reg.op("nn.sparse_dense")
      .describe("Product of a dense matrix and a sparse one given as CSR (sparse_data of rank 1) or BSR (rank 3: "
                "blocks (num_blocks, bs_r, bs_c)). sparse_lhs false: dense_data (M, K) times the transpose of the "
                "sparse (N, K) matrix, out (M, N). sparse_lhs true: the sparse (M, K) matrix times the transpose of "
                "dense_data (N, K), out (M, N). float32 or float64.")
      .input("dense_data", "Tensor", "The dense matrix, rank 2.")
      .input("sparse_data", "Tensor", "The stored values: (nnz,) for CSR, (num_blocks, bs_r, bs_c) for BSR.")
      .input("sparse_indices", "Tensor", "The column (block column) of each stored value (block).")
      .input("sparse_indptr", "Tensor", "Row (block row) r's values are sparse_data[indptr[r]:indptr[r + 1]].")
      .attr("sparse_lhs", false, "Whether the sparse matrix is the left operand (S D^T) instead of the right (D S^T).")
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(sparse_dense_relation)
      .kernel(sparse_dense_kernel)
      .gradient(sparse_dense_gradient);

  reg.op("nn.sparse_transpose")
      .describe("Transpose of a square CSR matrix: a Tuple (data, indices, indptr) of the same shapes and dtypes, "
                "each new row listing its values by ascending column.")
      .input("sparse_data", "Tensor", "The stored values (nnz,).")
      .input("sparse_indices", "Tensor", "The column of each stored value.")
      .input("sparse_indptr", "Tensor", "Row offsets (N + 1,).")
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(sparse_transpose_relation)
      .kernel(sparse_transpose_kernel)
      .gradient(sparse_transpose_gradient);

  reg.op("nn.sparse_add")
      .describe("dense_data (M, N) plus a CSR matrix of the same shape and dtype; values stored twice at one "
                "position both add.")
      .input("dense_data", "Tensor", "The dense matrix (M, N).")
      .input("sparse_data", "Tensor", "The stored values (nnz,).")
      .input("sparse_indices", "Tensor", "The column of each stored value.")
      .input("sparse_indptr", "Tensor", "Row offsets (M + 1,).")
      .support_level(1)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(sparse_add_relation)
      .kernel(sparse_add_kernel)
      .gradient(sparse_add_gradient);

  register_sparse_conv2d_op(reg);
}

}  // namespace weft_nn
