// Dense and its relatives: dense, contrib_dense_pack, matmul, batch_matmul,
// plus bias_add and batch_flatten, as Relay's nn namespace defines them
// (TVM v0.19: MatmulRel/BatchMatmulRel in src/relay/op/nn/nn.h, the other
// relations in nn.cc, computes in TOPI).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "bias_axis.h"
#include "nn_ops.h"
#include "te_util.h"
#include "tensor_access.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;

std::optional<int64_t> optional_int(const Attrs& attrs, const char* name) {
  Value v = attrs.get_value(name);
  if (v.is_none()) return std::nullopt;
  return v.as_int();
}

/// out_dtype when given, else the first operand's dtype (Relay's "" default).
DLDataType out_dtype_or(const Attrs& attrs, DLDataType fallback) {
  Value v = attrs.get_value("out_dtype");
  return v.is_none() ? fallback : v.as_dtype();
}

std::string dims_str(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    out += (i ? ", " : "") + (s[i] == WEFT_DIM_ANY ? std::string("?") : std::to_string(s[i]));
  }
  return out + ")";
}

// ---- The shared product ------------------------------------------------------------------------

/// One operand of a batched product, read as element (batch, row, col) of a
/// flat C-order buffer through strides; a batch stride of 0 repeats one matrix.
struct Operand {
  int64_t batch_stride, row_stride, col_stride;
  int64_t at(int64_t b, int64_t r, int64_t c) const { return b * batch_stride + r * row_stride + c * col_stride; }
};

/// out[b, i, j] = sum_k a(b, i, k) * b(b, k, j), with both operands converted
/// to the output's accumulator type first, as TOPI casts them to out_dtype.
void batched_product(const KernelArgs& k, int64_t batch, int64_t m, int64_t n, int64_t depth,
                     const Operand& a, const Operand& b) {
  const TensorView& out = k.outputs.at(0);
  with_accumulator(out, [&](auto tag) {
    using A = decltype(tag);
    std::vector<A> x = load_as<A>(k.inputs.at(0)), y = load_as<A>(k.inputs.at(1));
    std::vector<A> result(static_cast<size_t>(batch * m * n));
    for (int64_t bi = 0; bi < batch; ++bi) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          A acc = 0;
          for (int64_t r = 0; r < depth; ++r) acc += x[a.at(bi, i, r)] * y[b.at(bi, r, j)];
          result[(bi * m + i) * n + j] = acc;
        }
      }
    }
    store_from(result, out);
  });
}

// ---- dense and matmul --------------------------------------------------------------------------

/// Relay's MatmulRel: tensor_a (..., K) or, transposed, (..., K, M); tensor_b
/// (K, N) or, transposed, (N, K); out (..., N) or (..., M, N). A given `units`
/// fixes N and so tensor_b's whole shape.
Type matmul_type(const std::vector<Type>& args, const Attrs& attrs, bool transpose_a, bool transpose_b,
                 const std::string& a_name, const std::string& b_name) {
  Type a = tensor_arg(args, 0, a_name);
  Type b = tensor_arg(args, 1, b_name);
  std::vector<int64_t> ashape = a.shape(), bshape = b.shape();
  if (ashape.empty() || (transpose_a && ashape.size() < 2)) {
    throw Error(a_name + " must have rank " + (transpose_a ? ">= 2 when transpose_a" : ">= 1") + ", got " + a.str());
  }
  const size_t r = ashape.size();
  const int64_t reduce = transpose_a ? ashape[r - 2] : ashape[r - 1];
  std::vector<int64_t> oshape = ashape;
  if (transpose_a) oshape[r - 2] = ashape[r - 1];
  if (std::optional<int64_t> units = optional_int(attrs, "units")) {
    std::vector<int64_t> expected = transpose_b ? std::vector<int64_t>{*units, reduce} : std::vector<int64_t>{reduce, *units};
    bool ok = bshape.size() == 2 && dims_agree(bshape[0], expected[0]) && dims_agree(bshape[1], expected[1]);
    if (!ok) {
      throw Error("units=" + std::to_string(*units) + " needs " + b_name + " of shape " + dims_str(expected) + " for " +
                  a_name + " " + a.str() + ", got " + b.str());
    }
    oshape[r - 1] = *units;
  } else {
    if (bshape.size() != 2) throw Error(b_name + " must be 2-D, got " + b.str() + " with " + a_name + " " + a.str());
    const int64_t b_reduce = transpose_b ? bshape[1] : bshape[0];
    if (!dims_agree(reduce, b_reduce)) {
      throw Error("inner dimensions differ: " + a_name + " " + a.str() + " reduces over " + std::to_string(reduce) +
                  " elements but " + b_name + " " + b.str() + " has " + std::to_string(b_reduce));
    }
    oshape[r - 1] = transpose_b ? bshape[0] : bshape[1];
  }
  return Type::tensor(oshape, out_dtype_or(attrs, a.dtype()));
}

void matmul_compute(const KernelArgs& k, bool transpose_a, bool transpose_b) {
  std::vector<int64_t> ashape = k.inputs.at(0).shape(), bshape = k.inputs.at(1).shape();
  const size_t r = ashape.size();
  const int64_t n = transpose_b ? bshape[0] : bshape[1];
  const Operand b{0, transpose_b ? 1 : n, transpose_b ? bshape[1] : 1};
  if (!transpose_a) {
    // Every leading dim is a row: one (prod(leading), K) matrix.
    const int64_t depth = ashape[r - 1];
    batched_product(k, 1, dims_product(ashape, 0, r - 1), n, depth, Operand{0, depth, 1}, b);
    return;
  }
  // Transposed: each leading index holds a (K, M) matrix read column-wise.
  const int64_t depth = ashape[r - 2], m = ashape[r - 1];
  const int64_t batch = dims_product(ashape, 0, r - 2);
  batched_product(k, batch, m, n, depth, Operand{depth * m, 1, m}, b);
}

OpBuilder& matmul_attrs(OpBuilder& op) {
  return op
      .attr_optional("units", WEFT_ATTR_INT, "Number of output units; None reads it from the weight's shape.")
      .attr_optional("out_dtype", WEFT_ATTR_DTYPE,
                     "Output dtype for mixed precision (e.g. int32 for int8 inputs); None keeps the first input's dtype "
                     "(the reference's empty string).");
}

// ---- contrib_dense_pack ------------------------------------------------------------------------

/// data (M, K); weight packed as (N/n, K, n), or (N/n, K/c, n, c) for the
/// reference's int8 layout; out (M, N) with N = weight[0] * weight[2].
Type dense_pack_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Type weight = tensor_arg(args, 1, "weight");
  std::vector<int64_t> d = data.shape(), w = weight.shape();
  if (d.size() != 2) throw Error("only 2-D data is supported, got " + data.str());
  if (w.size() != 3 && w.size() != 4) throw Error("the packed weight must be 3-D or 4-D, got " + weight.str());
  const int64_t depth = w.size() == 3 ? w[1] : (w[1] == WEFT_DIM_ANY || w[3] == WEFT_DIM_ANY ? WEFT_DIM_ANY : w[1] * w[3]);
  if (!dims_agree(d[1], depth)) {
    throw Error("inner dimensions differ: data " + data.str() + " has " + std::to_string(d[1]) +
                " columns but the packed weight " + weight.str() + " holds " + std::to_string(depth));
  }
  const int64_t units = w[0] == WEFT_DIM_ANY || w[2] == WEFT_DIM_ANY ? WEFT_DIM_ANY : w[0] * w[2];
  if (std::optional<int64_t> given = optional_int(attrs, "units"); given && !dims_agree(*given, units)) {
    throw Error("units=" + std::to_string(*given) + " but the packed weight " + weight.str() + " holds " +
                std::to_string(units) + " units");
  }
  return Type::tensor({d[0], units}, out_dtype_or(attrs, data.dtype()));
}

void dense_pack_kernel(const KernelArgs& k) {
  std::vector<int64_t> w = k.inputs.at(1).shape();
  const int64_t tile = w[2];
  const int64_t depth = k.inputs.at(0).shape()[1];
  const TensorView& out = k.outputs.at(0);
  const int64_t m = out.shape()[0], n = out.shape()[1];
  // Element (row k, unit x) of the unpacked (K, N) weight.
  auto weight_index = [&](int64_t r, int64_t x) {
    if (w.size() == 3) return ((x / tile) * w[1] + r) * tile + x % tile;
    const int64_t inner = w[3];
    return (((x / tile) * w[1] + r / inner) * tile + x % tile) * inner + r % inner;
  };
  with_accumulator(out, [&](auto tag) {
    using A = decltype(tag);
    std::vector<A> x = load_as<A>(k.inputs[0]);
    std::vector<A> y = load_as<A>(k.inputs[1]);
    std::vector<A> result(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        A acc = 0;
        for (int64_t r = 0; r < depth; ++r) acc += x[i * depth + r] * y[weight_index(r, j)];
        result[i * n + j] = acc;
      }
    }
    store_from(result, out);
  });
}

// ---- batch_matmul ------------------------------------------------------------------------------

/// Relay's BatchMatmulRel: (b, M, K) x (b, K, N) -> (b, M, N), each operand
/// possibly transposed in its last two dims; a batch of 1 broadcasts.
Type batch_matmul_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type x = tensor_arg(args, 0, "tensor_a");
  Type y = tensor_arg(args, 1, "tensor_b");
  std::vector<int64_t> xs = x.shape(), ys = y.shape();
  if (xs.size() != 3 || ys.size() != 3) throw Error("both operands must be 3-D, got " + x.str() + " and " + y.str());
  const bool ta = attrs.get_bool("transpose_a"), tb = attrs.get_bool("transpose_b");
  const int64_t xi = xs[ta ? 2 : 1], xk = xs[ta ? 1 : 2], yk = ys[tb ? 2 : 1], yj = ys[tb ? 1 : 2];
  if (!(dims_agree(xs[0], ys[0]) || xs[0] == 1 || ys[0] == 1)) {
    throw Error("batch dimensions differ and neither is 1: " + x.str() + " and " + y.str());
  }
  if (!dims_agree(xk, yk)) {
    throw Error("inner dimensions differ: " + x.str() + " reduces over " + std::to_string(xk) + " elements but " +
                y.str() + " over " + std::to_string(yk) + " (transpose_a=" + (ta ? "True" : "False") +
                ", transpose_b=" + (tb ? "True" : "False") + ")");
  }
  const int64_t batch = xs[0] == WEFT_DIM_ANY || ys[0] == WEFT_DIM_ANY ? WEFT_DIM_ANY : std::max(xs[0], ys[0]);
  return Type::tensor({batch, xi, yj}, out_dtype_or(attrs, x.dtype()));
}

void batch_matmul_kernel(const KernelArgs& k) {
  std::vector<int64_t> xs = k.inputs.at(0).shape(), ys = k.inputs.at(1).shape();
  const bool ta = k.attrs.get_bool("transpose_a"), tb = k.attrs.get_bool("transpose_b");
  const int64_t m = xs[ta ? 2 : 1], depth = xs[ta ? 1 : 2], n = ys[tb ? 1 : 2];
  const Operand a{xs[0] == 1 ? 0 : xs[1] * xs[2], ta ? 1 : depth, ta ? m : 1};
  const Operand b{ys[0] == 1 ? 0 : ys[1] * ys[2], tb ? 1 : n, tb ? depth : 1};
  batched_product(k, std::max(xs[0], ys[0]), m, n, depth, a, b);
}

// ---- bias_add and batch_flatten ----------------------------------------------------------------

Type bias_add_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Type bias = tensor_arg(args, 1, "bias");
  std::vector<int64_t> shape = data.shape();
  const int64_t axis = attrs.get_int("axis");
  const int64_t n = static_cast<int64_t>(shape.size());
  if (axis < -n || axis >= n) {
    throw Error("the axis in bias_add must be in range for the shape; attempted to access index " +
                std::to_string(axis) + " of data " + data.str());
  }
  const int64_t channels = shape[axis < 0 ? axis + n : axis];
  std::vector<int64_t> b = bias.shape();
  if (b.size() != 1 || !dims_agree(b[0], channels) || bias.dtype() != data.dtype()) {
    throw Error("bias must be " + Type::tensor({channels}, data.dtype()).str() + " to match axis " +
                std::to_string(axis) + " of data " + data.str() + ", got " + bias.str());
  }
  return data;
}

void bias_add_kernel(const KernelArgs& k) {
  const TensorView& data = k.inputs.at(0);
  std::vector<int64_t> shape = data.shape();
  const int64_t axis = normalize_axis(k.attrs.get_int("axis"), shape.size(), "data");
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t channels = shape[axis];
  with_float_type(data, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data.data<T>();
    const T* bias = k.inputs.at(1).data<T>();
    T* out = k.outputs.at(0).data<T>();
    for (int64_t i = 0, total = data.numel(); i < total; ++i) out[i] = x[i] + bias[(i / inner) % channels];
  });
}

Type batch_flatten_relation(const std::vector<Type>& args, const Attrs&) {
  Type data = tensor_arg(args, 0, "data");
  std::vector<int64_t> shape = data.shape();
  if (shape.empty()) throw Error("data must have rank >= 1, got " + data.str());
  return Type::tensor({shape[0], dims_product(shape, 1, shape.size())}, data.dtype());
}

// C order makes flattening a copy of the bytes.
void batch_flatten_kernel(const KernelArgs& k) {
  const DLTensor& in = k.inputs.at(0).dl();
  const DLTensor& out = k.outputs.at(0).dl();
  const size_t bytes = static_cast<size_t>(k.inputs[0].numel()) * ((in.dtype.bits * in.dtype.lanes + 7) / 8);
  std::memcpy(static_cast<char*>(out.data) + out.byte_offset, static_cast<const char*>(in.data) + in.byte_offset, bytes);
}

// ---- TE computes -------------------------------------------------------------------------------

/// The dtype the kernel accumulates a product of `in` into `out` in, and
/// each operand's conversion to it: the output's dtype, except that float
/// operands of an integer output go through int64 (the kernel's load_as).
/// Integer sums wrap alike in any width, so the residue is the kernel's.
struct ProductDtypes {
  DLDataType acc;
  bool through_int64;
};

ProductDtypes product_dtypes(const std::vector<te::Tensor>& in, DLDataType out, const char* op) {
  for (const te::Tensor& t : in) {
    if (!te_util::is_plain(t.dtype())) throw Unsupported(std::string(op) + ": no TE for dtype " + dtype_name(t.dtype()));
  }
  if (!te_util::is_plain(out)) throw Unsupported(std::string(op) + ": no TE for out_dtype " + dtype_name(out));
  bool int_out = out.code != kDLFloat, float_in = false;
  for (const te::Tensor& t : in) float_in = float_in || t.dtype().code == kDLFloat;
  if (int_out && float_in) return {dtype::int64, true};
  return {out, false};
}

te::Expr convert(const te::Expr& e, DLDataType from, DLDataType to) {
  if (from == to) return e;
  return te::cast(to, e);
}

/// A product out[..] = sum_k a(.., k) * b(.., k) in the kernel's dtype,
/// cast to out's dtype where that differs (a stage of its own).
template <typename Body>
te::Tensor product_te(const std::vector<te::Tensor>& in, const Type& out, int64_t depth, const char* name,
                      Body body) {
  ProductDtypes p = product_dtypes(in, out.dtype(), name);
  auto load = [&](const te::Tensor& t, const te::Idx& i) { return convert(t(i), t.dtype(), p.acc); };
  te::Tensor acc = te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        te::Axis k = te::reduce_axis(depth, "k");
        auto [ia, ib] = body(i, k.var());
        return te::sum(load(in[0], ia) * load(in[1], ib), {k});
      },
      name);
  if (p.acc == out.dtype()) return acc;
  return te::compute(out.shape(), [&](const te::Idx& i) { return te::cast(out.dtype(), acc(i)); }, "cast");
}

/// nn.dense / nn.matmul: tensor_a (..., K) or (..., K, M); tensor_b (K, N) or (N, K).
TeCompute matmul_te(bool fixed, bool fixed_ta, bool fixed_tb) {
  return [=](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
    const bool ta = fixed ? fixed_ta : attrs.get_bool("transpose_a");
    const bool tb = fixed ? fixed_tb : attrs.get_bool("transpose_b");
    std::vector<int64_t> ashape = in.at(0).shape();
    const size_t r = ashape.size();
    const int64_t depth = ta ? ashape[r - 2] : ashape[r - 1];
    return std::vector<te::Tensor>{product_te(in, out, depth, fixed ? "dense" : "matmul", [&](const te::Idx& i, const te::Expr& k) {
      te::Idx ia = i, ib;
      const te::Expr col = i[r - 1];
      if (ta) {
        // out (..., M, N): a[..., k, m]
        ia[r - 2] = k;
        ia[r - 1] = i[r - 2];
      } else {
        ia[r - 1] = k;
      }
      ib = tb ? te::Idx{col, k} : te::Idx{k, col};
      return std::pair<te::Idx, te::Idx>{ia, ib};
    })};
  };
}

std::vector<te::Tensor> batch_matmul_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const bool ta = attrs.get_bool("transpose_a"), tb = attrs.get_bool("transpose_b");
  std::vector<int64_t> xs = in.at(0).shape(), ys = in.at(1).shape();
  const int64_t depth = xs[ta ? 1 : 2];
  return {product_te(in, out, depth, "batch_matmul", [&](const te::Idx& i, const te::Expr& k) {
    te::Expr ba = xs[0] == 1 ? te::Expr(0) : i[0], bb = ys[0] == 1 ? te::Expr(0) : i[0];
    te::Idx ia = ta ? te::Idx{ba, k, i[1]} : te::Idx{ba, i[1], k};
    te::Idx ib = tb ? te::Idx{bb, i[2], k} : te::Idx{bb, k, i[2]};
    return std::pair<te::Idx, te::Idx>{ia, ib};
  })};
}

std::vector<te::Tensor> dense_pack_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  std::vector<int64_t> w = in.at(1).shape();
  const int64_t tile = w[2], depth = in.at(0).shape()[1];
  return {product_te(in, out, depth, "dense_pack", [&](const te::Idx& i, const te::Expr& k) {
    te::Expr unit = i[1], t(tile);
    te::Idx ib;
    if (w.size() == 3) {
      ib = {te::floordiv(unit, t), k, te::floormod(unit, t)};
    } else {
      te::Expr inner(w[3]);
      ib = {te::floordiv(unit, t), te::floordiv(k, inner), te::floormod(unit, t), te::floormod(k, inner)};
    }
    return std::pair<te::Idx, te::Idx>{te::Idx{i[0], k}, ib};
  })};
}

std::vector<te::Tensor> bias_add_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor &x = in.at(0), &bias = in.at(1);
  te_util::require_float(x.dtype(), "nn.bias_add");
  const size_t axis = static_cast<size_t>(normalize_axis(attrs.get_int("axis"), x.ndim(), "data"));
  return {te::compute(x.shape(), [&](const te::Idx& i) { return x(i) + bias(i.at(axis)); }, "bias_add")};
}

std::vector<te::Tensor> batch_flatten_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  const te::Tensor& x = in.at(0);
  std::vector<int64_t> shape = x.shape();
  std::vector<int64_t> rest(shape.begin() + 1, shape.end());
  return {te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        te::Idx j = te_util::unravel(i[1], rest);
        j.insert(j.begin(), i[0]);
        return x(j);
      },
      "batch_flatten")};
}

/// Gradients of out = op(A) op(B), op a transpose when the call's flag says
/// so, with `op_name` (nn.matmul or nn.batch_matmul) computing each product:
/// d op(A) = g op(B)^T and d op(B) = op(A)^T g, transposed back where needed.
std::vector<Expr> product_gradient(const std::string& op_name, const Expr& c, const Expr& g) {
  const Expr a = c.arg(0), b = c.arg(1);
  const bool ta = c.attrs().get_bool("transpose_a"), tb = c.attrs().get_bool("transpose_b");
  auto product = [&](const Expr& x, const Expr& y, bool tx, bool ty) {
    return call(op_name, {x, y}, {{"transpose_a", tx}, {"transpose_b", ty}});
  };
  Expr da = ta ? product(b, g, tb, true) : product(g, b, false, !tb);
  Expr db = tb ? product(g, a, true, ta) : product(a, g, !ta, false);
  return {da, db};
}

/// Relay's DenseInferCorrectLayout (dense and matmul): both operands and the
/// result in NC, whatever layout they arrive in. Only 2-D operands have it.
InferredLayouts matrix_layouts(const Attrs&, const std::vector<Layout>&, const std::vector<Layout>&,
                               const std::vector<Type>& types) {
  for (const Type& t : types) {
    if (!t.is_tensor() || t.ndim() != 2) return layouts::cannot_follow(2);
  }
  return {{Layout("NC"), Layout("NC")}, {Layout("NC")}, Attrs()};
}

/// dense_pack: data and output as dense's, the weight in its weight_layout
/// (NC{n}n: (N/n, K, n)), so AlterOpLayout packs a dense layer's (N, K)
/// weight by a layout_transform from NC when a target asks for dense_pack.
InferredLayouts dense_pack_layouts(const Attrs& attrs, const std::vector<Layout>&, const std::vector<Layout>&,
                                   const std::vector<Type>& types) {
  if (types.size() != 2 || !types[0].is_tensor() || types[0].ndim() != 2 || !types[1].is_tensor()) {
    return layouts::cannot_follow(2);
  }
  const Layout weight(attrs.get_string("weight_layout"));
  // A packed weight's rank is its layout's; an unpacked one's is NC's.
  if (types[1].ndim() != weight.ndim() && types[1].ndim() != 2) return layouts::cannot_follow(2);
  return {{Layout("NC"), weight}, {Layout("NC")}, Attrs()};
}

}  // namespace

void register_dense_ops(Registrar& reg) {
  matmul_attrs(reg.op("nn.dense")
                   .describe("Linear transformation out = data * weight^T: data (d1, ..., dn, K), weight (units, K), "
                             "out (d1, ..., dn, units). Inputs are cast to out_dtype before multiplying.")
                   .input("data", "nD Tensor", "Input data, (d1, ..., dn, K).")
                   .input("weight", "2D Tensor", "Weight matrix, (units, K)."))
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) { return matmul_type(args, attrs, false, true, "data", "weight"); })
      .infer_layout(matrix_layouts)
      .kernel([](const KernelArgs& k) { matmul_compute(k, false, true); })
      .te_compute(matmul_te(true, false, true))
      .gradient([](const Expr& c, const Expr& g) {
        // out = data W^T on data flattened to (rows, K): d data = g W, d W = g^T data.
        Expr data = c.arg(0), weight = c.arg(1);
        std::vector<int64_t> w = grad::static_shape(weight, "dense's weight");
        Expr rows = call("reshape", {data}, {{"newshape", std::vector<int64_t>{-1, w[1]}}});
        Expr g2 = call("reshape", {g}, {{"newshape", std::vector<int64_t>{-1, w[0]}}});
        Expr ddata = call("nn.dense", {g, call("transpose", {weight})});
        Expr dweight = call("nn.dense", {call("transpose", {g2}), call("transpose", {rows})});
        return std::vector<Expr>{ddata, dweight};
      });

  reg.op("nn.contrib_dense_pack")
      .describe("Dense with a packed weight: data (M, K), weight (N/n, K, n) so that weight[x / n, k, x % n] is "
                "unit x of row k (or (N/n, K/c, n, c), element [x / n, k / c, x % n, k % c]); out (M, N).")
      .input("data", "2D Tensor", "Input data, (M, K).")
      .input("weight", "3D Tensor", "Packed weight, (N/n, K, n) or (N/n, K/c, n, c).")
      .attr("weight_layout", "NC", "The weight's layout name, such as NC or NC8n (informational for the kernel).")
      .attr_optional("units", WEFT_ATTR_INT, "Number of output units; None reads it from the weight's shape.")
      .attr_optional("out_dtype", WEFT_ATTR_DTYPE, "Output dtype for mixed precision; None keeps data's dtype.")
      .support_level(10)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(dense_pack_relation)
      .infer_layout(dense_pack_layouts)
      .kernel(dense_pack_kernel)
      .te_compute(dense_pack_te);

  matmul_attrs(reg.op("nn.matmul")
                   .describe("Matrix product out = A * B with either operand transposed: tensor_a (..., K) or "
                             "(..., K, M) when transpose_a; tensor_b (K, N) or (N, K) when transpose_b.")
                   .input("tensor_a", "nD Tensor", "The first operand.")
                   .input("tensor_b", "2D Tensor", "The second operand."))
      .attr("transpose_a", false, "Whether tensor_a is given transposed.")
      .attr("transpose_b", false, "Whether tensor_b is given transposed.")
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        return matmul_type(args, attrs, attrs.get_bool("transpose_a"), attrs.get_bool("transpose_b"), "tensor_a",
                           "tensor_b");
      })
      .infer_layout(matrix_layouts)
      .kernel([](const KernelArgs& k) {
        matmul_compute(k, k.attrs.get_bool("transpose_a"), k.attrs.get_bool("transpose_b"));
      })
      .te_compute(matmul_te(false, false, false))
      .gradient([](const Expr& c, const Expr& g) {
        if (c.arg(0).type().ndim() != 2) throw Error("the gradient of nn.matmul covers a 2-D tensor_a");
        return product_gradient("nn.matmul", c, g);
      });

  reg.op("nn.batch_matmul")
      .describe("Batched matrix product: tensor_a (b, M, K), tensor_b (b, N, K) by default (transpose_b), "
                "out (b, M, N); a batch of 1 broadcasts against the other.")
      .input("tensor_a", "3D Tensor", "The first operand, (b, M, K) or (b, K, M) when transpose_a.")
      .input("tensor_b", "3D Tensor", "The second operand, (b, N, K) or (b, K, N) when not transpose_b.")
      .attr_optional("out_dtype", WEFT_ATTR_DTYPE, "Output dtype for mixed precision; None keeps tensor_a's dtype.")
      .attr("transpose_a", false, "Whether tensor_a is given transposed.")
      .attr("transpose_b", true, "Whether tensor_b is given transposed (the reference's NT default).")
      .text_default(false)  // BatchMatmulAttrs' default; only the Python wrapper defaults to True
      .support_level(10)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(batch_matmul_relation)
      .kernel(batch_matmul_kernel)
      .te_compute(batch_matmul_te)
      .gradient([](const Expr& c, const Expr& g) {
        // A batch of 1 broadcasts: sum its gradient over the batch.
        std::vector<Expr> grads = product_gradient("nn.batch_matmul", c, g);
        return std::vector<Expr>{grad::collapse_sum_like(grads[0], c.arg(0)),
                                 grad::collapse_sum_like(grads[1], c.arg(1))};
      });

  reg.op("nn.bias_add")
      .describe("Adds a 1-D bias along one axis of data.")
      .input("data", "nD Tensor", "Input data.")
      .input("bias", "1D Tensor", "The bias, one value per index of axis.")
      .attr("axis", int64_t{1}, "The axis the bias runs along; negative counts from the end.")
      .support_level(1)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(bias_add_relation)
      .infer_layout([](const Attrs& attrs, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                       const std::vector<Type>&) { return layouts::single_axis(attrs, new_in, old_in, "axis", 1); })
      .kernel(bias_add_kernel)
      .te_compute(bias_add_te)
      .gradient([](const Expr& c, const Expr& g) {
        int64_t axis = c.attrs().get_int("axis");
        return std::vector<Expr>{g, call("sum", {g}, {{"axis", std::vector<int64_t>{axis}}, {"exclude", true}})};
      })
      // add(data, bias made to broadcast along axis), as the reference's CanonicalizeOps.
      .rewrite("canonicalize", [](const Expr& c) {
        int64_t ndim = static_cast<int64_t>(c.arg(0).type().ndim()), axis = c.attrs().get_int("axis");
        return call("add", {c.arg(0), expand_bias_to_axis(c.arg(1), ndim, axis < 0 ? axis + ndim : axis)});
      });

  reg.op("nn.batch_flatten")
      .describe("Flattens all dims but the first: (d1, d2, ..., dk) -> (d1, d2 * ... * dk).")
      .input("data", "Tensor", "The input tensor.")
      .support_level(2)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .is_reshape()
      .type_relation(batch_flatten_relation)
      .kernel(batch_flatten_kernel)
      .te_compute(batch_flatten_te)
      .gradient([](const Expr& c, const Expr& g) { return std::vector<Expr>{call("reshape_like", {g, c.arg(0)})}; });
}

}  // namespace weft_nn
