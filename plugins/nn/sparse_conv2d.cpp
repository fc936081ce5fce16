// nn.sparse_conv2d: a 1x1 or 3x3 convolution (stride 1, 3x3 padded by 1)
// whose weight is a BSR matrix of (out_channels, in_features) rows, as
// Relay's SparseConv2dRel types it and TOPI computes it: topi/nn/sparse.py for
// 1x1, topi/x86/sparse.py spconv2d_3x3_nhwc / _nchw for 3x3.
#include <weft/sdk/gradient.hpp>

#include "nn_ops.h"
#include "sparse.h"

namespace weft_nn::sparse {

namespace {

using namespace weft::sdk;

struct SparseConvPlan {
  bool nhwc = true;
  int64_t kernel = 1;
};

SparseConvPlan plan(const Attrs& attrs) {
  SparseConvPlan p;
  std::string layout = attrs.get_string("layout");
  if (layout != "NHWC" && layout != "NCHW") throw Error("layout must be NHWC or NCHW, got '" + layout + "'");
  p.nhwc = layout == "NHWC";
  std::vector<int64_t> ks = attrs.get_ints("kernel_size");
  if (ks != std::vector<int64_t>{1, 1} && ks != std::vector<int64_t>{3, 3}) {
    throw Error("kernel_size must be (1, 1) or (3, 3), got " + shape_str(ks));
  }
  p.kernel = ks[0];
  return p;
}

Type sparse_conv2d_relation(const std::vector<Type>& args, const Attrs& attrs) {
  if (args.size() != 4) throw Error("expected 4 arguments (dense_data, sparse_data, sparse_indices, sparse_indptr)");
  SparseConvPlan p = plan(attrs);
  Type data = tensor_arg(args, 0, "dense_data");
  std::vector<int64_t> ds = data.shape(), ws = args[1].shape();
  if (ds.size() != 4) {
    throw Error("dense_data of shape " + shape_str(ds) + " must have rank 4 (" + (p.nhwc ? "NHWC" : "NCHW") + ")");
  }
  // TOPI's 3x3 computes read (num_blocks, bs_r, bs_c) blocks; its NCHW one only 1-wide blocks.
  check_sparse_types(args, 1, p.kernel == 1 ? std::vector<size_t>{2, 3} : std::vector<size_t>{3}, "sparse");
  if (p.kernel == 3 && !p.nhwc && ws[2] != 1) {
    throw Error("a 3x3 NCHW sparse convolution takes blocks of one column, got sparse_data " + shape_str(ws));
  }
  if (args[1].dtype() != data.dtype()) {
    throw Error("sparse_data (" + dtype_name(args[1].dtype()) + ") and dense_data (" + dtype_name(data.dtype()) +
                ") must have one dtype");
  }
  int64_t rows = block_rows(args[3]);
  int64_t out_channels = rows == WEFT_DIM_ANY || ws[1] == WEFT_DIM_ANY ? WEFT_DIM_ANY : rows * ws[1];
  return Type::tensor(p.nhwc ? std::vector<int64_t>{ds[0], ds[1], ds[2], out_channels}
                             : std::vector<int64_t>{ds[0], out_channels, ds[2], ds[3]},
                      data.dtype());
}

/// Rows are pixels (b, y, x); columns the features the weight's columns index:
/// the channel (1x1), or the 3x3 window tap and channel, (kh * 3 + kw) * C + c
/// for NHWC and c * 9 + kh * 3 + kw for NCHW, zero outside the image.
template <typename T>
std::vector<T> feature_matrix(const std::vector<T>& x, const std::vector<int64_t>& shape, const SparseConvPlan& p) {
  const int64_t n = shape[0], c_n = p.nhwc ? shape[3] : shape[1], h = p.nhwc ? shape[1] : shape[2],
                w = p.nhwc ? shape[2] : shape[3];
  const int64_t taps = p.kernel * p.kernel, features = taps * c_n, half = p.kernel / 2;
  std::vector<T> d(static_cast<size_t>(n * h * w * features), T(0));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t xx = 0; xx < w; ++xx) {
        T* row = d.data() + ((b * h + y) * w + xx) * features;
        for (int64_t kh = 0; kh < p.kernel; ++kh) {
          int64_t iy = y + kh - half;
          if (iy < 0 || iy >= h) continue;
          for (int64_t kw = 0; kw < p.kernel; ++kw) {
            int64_t ix = xx + kw - half;
            if (ix < 0 || ix >= w) continue;
            for (int64_t c = 0; c < c_n; ++c) {
              int64_t col = p.nhwc ? (kh * p.kernel + kw) * c_n + c : c * taps + kh * p.kernel + kw;
              row[col] = p.nhwc ? x[((b * h + iy) * w + ix) * c_n + c] : x[((b * c_n + c) * h + iy) * w + ix];
            }
          }
        }
      }
    }
  }
  return d;
}

void sparse_conv2d_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &out = k.outputs.at(0);
  SparseConvPlan p = plan(k.attrs);
  with_float_type(data, [&](auto tag) {
    using T = decltype(tag);
    std::vector<int64_t> s = data.shape();
    const int64_t pixels = s[0] * s[2] * (p.nhwc ? s[1] : s[3]);
    const int64_t features = p.kernel * p.kernel * (p.nhwc ? s[3] : s[1]);
    SparseMatrix<T> w = read_sparse<T>(k, 1, features);
    std::vector<T> y = dense_times_sparse_t(feature_matrix(load_as<T>(data), s, p), pixels, features, w);
    if (!p.nhwc) {  // (b, hw, co) -> (b, co, hw)
      const int64_t hw = s[2] * s[3], co = w.rows();
      std::vector<T> t(y.size());
      for (int64_t b = 0; b < s[0]; ++b) {
        for (int64_t i = 0; i < hw; ++i) {
          for (int64_t o = 0; o < co; ++o) t[(b * co + o) * hw + i] = y[(b * hw + i) * co + o];
        }
      }
      y.swap(t);
    }
    store_from(y, out);
  });
}

/// The convolution is conv2d (stride 1, padding kernel / 2) by the dense
/// weight the sparse matrix holds, its columns read as the feature order
/// above: data's gradient is conv2d's (the transposed convolution of the
/// output gradient), and the stored values' are conv2d's weight gradient at
/// their positions. Both are taken in NCHW / OIHW.
std::vector<Expr> sparse_conv2d_gradient(const Expr& c, const Expr& g) {
  const SparseConvPlan p = plan(c.attrs());
  const std::string layout = c.attrs().get_string("layout");
  const std::vector<int64_t> ds = grad::static_shape(c.arg(0), "nn.sparse_conv2d's dense_data");
  const int64_t channels = p.nhwc ? ds[3] : ds[1], k = p.kernel, half = k / 2;
  SparsePositions at = sparse_positions(c, 1, k * k * channels);
  const int64_t out_channels = at.block_rows * at.bs_r;
  auto relayout = [](const Expr& e, const std::string& from, const std::string& to) {
    return from == to ? e : call("layout_transform", {e}, {{"src_layout", from}, {"dst_layout", to}});
  };
  auto reshaped = [](const Expr& e, const std::vector<int64_t>& shape) {
    return call("reshape", {e}, {{"newshape", shape}});
  };
  // The NHWC 3x3 columns are (kh, kw, c): an OHWI weight.
  const bool ohwi = p.nhwc && k == 3;
  const std::vector<int64_t> oihw = {out_channels, channels, k, k}, ohwi_shape = {out_channels, k, k, channels};
  Expr dense_weight = at.scatter(c.arg(1));
  Expr weight = ohwi ? call("transpose", {reshaped(dense_weight, ohwi_shape)},
                            {{"axes", std::vector<int64_t>{0, 3, 1, 2}}})
                     : reshaped(dense_weight, oihw);
  Expr x = relayout(c.arg(0), layout, "NCHW"), dy = relayout(g, layout, "NCHW");
  const std::vector<int64_t> padding(4, half);
  Expr dx = call("nn.conv2d_transpose", {dy, weight}, {{"padding", padding}});
  Expr dw = call("nn.conv2d_backward_weight", {dy, x},
                 {{"kernel_size", std::vector<int64_t>{k, k}}, {"padding", padding}, {"data_layout", "NCHW"},
                  {"kernel_layout", "NCHW"}, {"out_layout", "OIHW"}});
  Expr d_dense_weight = ohwi ? call("transpose", {dw}, {{"axes", std::vector<int64_t>{0, 2, 3, 1}}}) : dw;
  return {relayout(dx, "NCHW", layout), at.gather(d_dense_weight), grad::zeros_like(c.arg(2)),
          grad::zeros_like(c.arg(3))};
}

}  // namespace

void register_sparse_conv2d_op(Registrar& reg) {
  reg.op("nn.sparse_conv2d")
      .describe("Convolution by a sparse weight in BSR form whose rows are output channels: kernel_size 1 (a "
                "per-pixel sparse product; columns are input channels; blocks (num_blocks, bs_r) or (num_blocks, "
                "bs_r, bs_c)) or 3 (stride 1, padding 1; columns are (kh * 3 + kw) * C + c for NHWC and "
                "c * 9 + kh * 3 + kw for NCHW; NCHW takes blocks with bs_c = 1). Out channels = block rows * bs_r. "
                "float32 or float64.")
      .input("dense_data", "Tensor", "The input, NHWC or NCHW.")
      .input("sparse_data", "Tensor", "The weight's stored blocks.")
      .input("sparse_indices", "Tensor", "The block column of each stored block.")
      .input("sparse_indptr", "Tensor", "Block row r's blocks are sparse_data[indptr[r]:indptr[r + 1]].")
      .attr("layout", std::string("NHWC"), "The layout of dense_data and the output.", "NHWC or NCHW")
      .attr("kernel_size", WEFT_ATTR_ANY, Value(std::vector<int64_t>{1, 1}), "The convolution window.",
            "1, 3, (1, 1) or (3, 3)")
      .normalize([](const Value& v) {
        if (v.type() == WEFT_ATTR_INT) return Value(std::vector<int64_t>(2, v.as_int()));
        if (v.type() == WEFT_ATTR_INT_LIST && v.as_ints().size() == 2) return v;
        if (v.type() == WEFT_ATTR_LIST && v.as_list().size() == 2) {
          return Value(std::vector<int64_t>{v.as_list()[0].as_int(), v.as_list()[1].as_int()});
        }
        throw Error("expected an int or a list of 2 ints");
      })
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(sparse_conv2d_relation)
      .kernel(sparse_conv2d_kernel)
      .gradient(sparse_conv2d_gradient);
}

}  // namespace weft_nn::sparse
