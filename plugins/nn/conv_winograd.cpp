// nn.contrib_conv2d_winograd_weight_transform and
// nn.contrib_conv2d_winograd_without_weight_transform: Winograd F(m, r)
// convolution as TOPI computes it, with TOPI's Cook-Toom transform matrices
// (topi/nn/winograd_util.py: interpolation points of Barabasz et al.).
#include "conv_winograd.h"

#include <cmath>

namespace weft_nn::conv {

using namespace weft::sdk;

namespace {

/// TOPI's interpolation points for degree m + r - 2, as its lookup table lists them.
std::vector<double> interpolation_points(int degree) {
  static const std::vector<double> all = {0,      -1,    1,       1.0 / 2, -1.0 / 2, 2,       -2,      -1.0 / 4, 4,
                                          1.0 / 4, -3.0 / 4, 4.0 / 3, -4,     2.0 / 3,  -3.0 / 2, -2.0 / 3, 3.0 / 2};
  // Tables that are not a prefix of the one above (indexed by degree = number of points).
  switch (degree) {
    case 5: return {0, -1, 1, 1.0 / 2, -2};
    case 6: return {0, -1, 1, 1.0 / 2, -2, -1.0 / 2};
    case 10: return {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 3.0 / 4, -4.0 / 3};
    case 11: return {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 3.0 / 4, -4.0 / 3};
    case 12: return {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 3.0 / 4, -4.0 / 3, 1.0 / 4};
    case 14: return {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, 3.0 / 4, -4.0 / 3};
    case 15:
      return {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, -4, 3.0 / 4, -4.0 / 3};
    case 16:
      return {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, -4, 2.0 / 3, -3.0 / 2, 3.0 / 2};
    default: return std::vector<double>(all.begin(), all.begin() + degree);
  }
}

}  // namespace

/// TOPI's _cook_toom_convolution(points, m, r), written out: with N = m + r - 1
/// points a_0..a_{N-2} plus the point at infinity, and f_i = prod_{k != i} (a_i - a_k)
/// (f_0 made positive), A[i][j] = a_i^j, G[i][j] = a_i^j / f_i and B's column i the
/// coefficients of prod_{k != i} (x - a_k), scaled as TOPI scales them.
WinogradMatrices winograd_matrices(int64_t m, int64_t r) {
  const int64_t n = m + r - 1;
  std::vector<double> a = interpolation_points(static_cast<int>(m + r - 2));
  std::vector<double> f(n - 1, 1.0);
  std::vector<std::vector<double>> poly(n - 1);  // poly[i][d]: coefficient of x^d
  for (int64_t i = 0; i < n - 1; ++i) {
    poly[i] = {1.0};
    for (int64_t k = 0; k < n - 1; ++k) {
      if (k == i) continue;
      f[i] *= a[i] - a[k];
      std::vector<double> next(poly[i].size() + 1, 0.0);  // multiply by (x - a_k)
      for (size_t d = 0; d < poly[i].size(); ++d) {
        next[d + 1] += poly[i][d];
        next[d] -= a[k] * poly[i][d];
      }
      poly[i] = next;
    }
  }
  std::vector<double> fs = f;  // TOPI flips the first row's sign when negative
  if (fs[0] < 0) fs[0] = -fs[0];
  WinogradMatrices w{Matrix(n, std::vector<double>(m, 0.0)), Matrix(n, std::vector<double>(n, 0.0)),
                     Matrix(n, std::vector<double>(r, 0.0))};
  for (int64_t i = 0; i < n - 1; ++i) {
    for (int64_t j = 0; j < m; ++j) w.A[i][j] = std::pow(a[i], static_cast<double>(j));
    for (int64_t j = 0; j < r; ++j) w.G[i][j] = std::pow(a[i], static_cast<double>(j)) / fs[i];
  }
  w.A[n - 1][m - 1] = 1;
  w.G[n - 1][r - 1] = 1;
  for (int64_t row = 0; row < n - 1; ++row) {
    double last = 0;
    for (int64_t c = 0; c < n - 1; ++c) {
      double coef = poly[c][row] / f[c];
      w.B[row][c] = coef * fs[c];
      last -= coef * std::pow(a[c], static_cast<double>(n - 1));
    }
    w.B[row][n - 1] = last;
  }
  w.B[n - 1][n - 1] = 1;
  return w;
}

void check_winograd_tile(int64_t tile, int64_t kernel) {
  if (tile < 2 || tile > 8) throw Error("tile_size must be in [2, 8] (TOPI's range), got " + std::to_string(tile));
  if (kernel < 3 || kernel > 7) {
    throw Error("winograd needs a square kernel of size 3 to 7, got " + std::to_string(kernel));
  }
}

double as_accumulator(DLDataType acc, double v) {
  if (acc == dtype::float32) return static_cast<double>(static_cast<float>(v));
  if (acc == dtype::int32) return static_cast<double>(static_cast<int32_t>(v));
  return v;
}

te::Expr matrix_entry(const Matrix& mat, DLDataType acc, const te::Expr& row, const te::Expr& col) {
  auto pick = [](const te::Expr& index, size_t n, const std::function<te::Expr(size_t)>& value) {
    te::Expr e = value(n - 1);
    for (size_t k = n - 1; k-- > 0;) e = te::select(te::equal(index, te::Expr(static_cast<int64_t>(k))), value(k), e);
    return e;
  };
  return pick(row, mat.size(), [&](size_t r) {
    return pick(col, mat[r].size(), [&](size_t c) { return te::make_const(acc, as_accumulator(acc, mat[r][c])); });
  });
}

te::Expr along_axis_te(const Matrix& mat, DLDataType acc, const te::Expr& j, const std::string& axis_name,
                       const std::function<te::Expr(const te::Expr&)>& in) {
  te::Axis a = te::reduce_axis(static_cast<int64_t>(mat.size()), axis_name);
  te::Expr f = matrix_entry(mat, acc, a.var(), j);
  return te::sum(f * in(a.var()), {a}, te::not_equal(f, te::make_const(acc, 0)));
}

namespace {

// ---- Weight transform -----------------------------------------------------------------

Type weight_transform_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 1, "weight");
  std::vector<int64_t> w = args[0].shape();
  if (w.size() != 4) throw Error("expects an OIHW weight of rank 4, got " + args[0].str());
  int64_t tile = attrs.get_int("tile_size");
  if (w[2] != w[3]) throw Error("expects a square kernel, got weight shape " + shape_str(w));
  check_winograd_tile(tile, w[3]);
  return Type::tensor({tile + w[2] - 1, tile + w[3] - 1, w[0], w[1]}, args[0].dtype());
}

void weight_transform_kernel(const KernelArgs& k) {
  const TensorView &weight = k.inputs.at(0), &out = k.outputs.at(0);
  std::vector<int64_t> s = weight.shape();
  const int64_t co_n = s[0], ci_n = s[1], r = s[2];
  WinogradMatrices wm = winograd_matrices(k.attrs.get_int("tile_size"), r);
  const int64_t alpha = static_cast<int64_t>(wm.G.size());
  dispatch_accumulator("nn.contrib_conv2d_winograd_weight_transform", out, [&]<typename T>() {
    std::vector<T> g = read_as<T>(weight);
    T* u = out.data<T>();
    for (int64_t eps = 0; eps < alpha; ++eps) {
      for (int64_t nu = 0; nu < alpha; ++nu) {
        for (int64_t co = 0; co < co_n; ++co) {
          for (int64_t ci = 0; ci < ci_n; ++ci) {
            T acc = 0;
            const T* gk = g.data() + (co * ci_n + ci) * r * r;
            for (int64_t kh = 0; kh < r; ++kh) {
              for (int64_t kw = 0; kw < r; ++kw) {
                acc += gk[kh * r + kw] * static_cast<T>(wm.G[eps][kh]) * static_cast<T>(wm.G[nu][kw]);
              }
            }
            u[((eps * alpha + nu) * co_n + co) * ci_n + ci] = acc;
          }
        }
      }
    }
  });
}

/// The TE of weight_transform_kernel: per (eps, nu, co, ci), one reduction
/// over the taps (kh, then kw) of g * G[eps][kh] * G[nu][kw], every tap
/// (this kernel skips no zero entry), G's entries as the accumulator's.
std::vector<te::Tensor> weight_transform_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const std::string op = "nn.contrib_conv2d_winograd_weight_transform";
  const te::Tensor& weight = in.at(0);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(op, acc, weight.dtype(), weight.dtype());
  const std::vector<int64_t> s = weight.shape(), shape = out.shape();
  te_util::require_nonempty(op, {&s});
  const int64_t r = s[2];
  const Matrix g = winograd_matrices(attrs.get_int("tile_size"), r).G;
  return {te::compute(
      shape,
      [&](const te::Idx& i) {
        te::Axis kh = te::reduce_axis(r, "rkh"), kw = te::reduce_axis(r, "rkw");
        te::Expr tap = te_util::load_as(acc, weight, {i[2], i[3], kh.var(), kw.var()});
        return te::sum(tap * matrix_entry(g, acc, i[0], kh.var()) * matrix_entry(g, acc, i[1], kw.var()), {kh, kw});
      },
      "winograd_weight_transform")};
}

// ---- Convolution with a transformed weight ------------------------------------------

struct WinogradPlan {
  ConvAttrs a;
  std::vector<int64_t> data, out;  // canonical NCHW shapes
  int64_t tile = 2, kernel = 3;
};

constexpr ConvKind kWinograd{"nn.contrib_conv2d_winograd_without_weight_transform", 2, "NCHW", "OIHW"};

WinogradPlan plan_winograd(const std::vector<int64_t>& data_shape, const Attrs& attrs) {
  WinogradPlan p;
  p.a = ConvAttrs::read(kWinograd, attrs);
  const ConvAttrs& a = p.a;
  expect_rank(data_shape, a.data_layout, "data");
  a.require_channels_and_kernel_size("the weight is pre-transformed");
  p.tile = attrs.get_int("tile_size");
  p.data = a.data_layout.to_canonical(data_shape);
  p.out = {p.data[0], *a.channels};
  std::vector<int64_t> out =
      a.out_extents(spatial(p.data), *a.kernel_size, " (data shape " + shape_str(data_shape) + ")");
  p.out.insert(p.out.end(), out.begin(), out.end());
  // TOPI's Winograd computes only this case.
  if (a.strides != std::vector<int64_t>{1, 1} || a.dilation != std::vector<int64_t>{1, 1} || a.groups != 1) {
    throw Error("winograd convolution computes strides (1, 1), dilation (1, 1) and groups 1 only, got strides " +
                shape_str(a.strides) + ", dilation " + shape_str(a.dilation) + ", groups " + std::to_string(a.groups));
  }
  if ((*a.kernel_size)[0] != (*a.kernel_size)[1]) {
    throw Error("winograd needs a square kernel_size, got " + shape_str(*a.kernel_size));
  }
  p.kernel = (*a.kernel_size)[0];
  check_winograd_tile(p.tile, p.kernel);
  return p;
}

Type winograd_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "data, weight");
  WinogradPlan p = plan_winograd(args[0].shape(), attrs);
  return p.a.output_type(p.out, args[0]);
}

void winograd_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
  WinogradPlan p = plan_winograd(data.shape(), k.attrs);
  WinogradMatrices wm = winograd_matrices(p.tile, p.kernel);
  const int64_t m = p.tile, alpha = m + p.kernel - 1;
  const int64_t batch = p.data[0], ci_n = p.data[1], h = p.data[2], w = p.data[3];
  const int64_t co_n = p.out[1], oh = p.out[2], ow = p.out[3];
  // The transformed weight is (alpha, alpha, CO, CI) beside NCHW data and
  // (alpha, alpha, CI, CO) beside NHWC, as the reference's layout rewrites make it.
  const bool ci_last = p.a.data_layout.name() != "NHWC";
  std::vector<int64_t> expected_w = ci_last ? std::vector<int64_t>{alpha, alpha, co_n, ci_n}
                                            : std::vector<int64_t>{alpha, alpha, ci_n, co_n};
  if (weight.shape() != expected_w) {
    throw Error("the transformed weight has shape " + shape_str(weight.shape()) + ", expected " + shape_str(expected_w) +
                " for tile_size " + std::to_string(m) + " and kernel_size " + std::to_string(p.kernel));
  }
  const int64_t n_h = (oh + m - 1) / m, n_w = (ow + m - 1) / m;
  dispatch_accumulator("nn.contrib_conv2d_winograd_without_weight_transform", out, [&]<typename T>() {
    std::vector<T> x = to_canonical<T>(data, p.a.data_layout, p.data);
    std::vector<T> u = read_as<T>(weight);
    auto u_at = [&](int64_t eps, int64_t nu, int64_t co, int64_t ci) {
      int64_t base = (eps * alpha + nu) * co_n * ci_n;
      return ci_last ? u[base + co * ci_n + ci] : u[base + ci * co_n + co];
    };
    std::vector<T> y(static_cast<size_t>(out.numel()), T(0));
    std::vector<std::vector<T>> v(static_cast<size_t>(ci_n));
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t th = 0; th < n_h; ++th) {
        for (int64_t tw = 0; tw < n_w; ++tw) {
          // V[ci] = B^T d B for the tile's alpha x alpha input patch (zero outside the data).
          for (int64_t ci = 0; ci < ci_n; ++ci) {
            std::vector<T> patch(static_cast<size_t>(alpha * alpha), T(0));
            const T* xc = x.data() + (n * ci_n + ci) * h * w;
            for (int64_t i = 0; i < alpha; ++i) {
              for (int64_t j = 0; j < alpha; ++j) {
                int64_t row = th * m + i - p.a.padding[0], col = tw * m + j - p.a.padding[1];
                if (row >= 0 && row < h && col >= 0 && col < w) patch[i * alpha + j] = xc[row * w + col];
              }
            }
            v[ci] = along_axis(along_axis(patch, wm.B, 1, alpha), wm.B, alpha, 1);
          }
          for (int64_t co = 0; co < co_n; ++co) {
            // M = sum over ci of U ⊙ V; Y = A^T M A.
            std::vector<T> mm(static_cast<size_t>(alpha * alpha), T(0));
            for (int64_t ci = 0; ci < ci_n; ++ci) {
              for (int64_t e = 0; e < alpha * alpha; ++e) mm[e] += u_at(e / alpha, e % alpha, co, ci) * v[ci][e];
            }
            std::vector<T> tile = along_axis(along_axis(mm, wm.A, 1, alpha), wm.A, m, 1);
            for (int64_t vh = 0; vh < m; ++vh) {
              for (int64_t vw = 0; vw < m; ++vw) {
                int64_t row = th * m + vh, col = tw * m + vw;
                if (row < oh && col < ow) y[((n * co_n + co) * oh + row) * ow + col] = tile[vh * m + vw];
              }
            }
          }
        }
      }
    }
    from_canonical(y, p.a.out_layout, p.out, out);
  });
}

/// The TE of winograd_kernel, stage by stage as it computes a tile (canonical
/// NCHW, tiles (th, tw) of m x m outputs): the tile's input patch (zero
/// outside the data) transformed by B along rows, then along columns; M, a
/// reduction over the input channels of U * V; then A along rows and along
/// columns. Each transform is along_axis_te, so every element sums the
/// kernel's terms in the kernel's order; the output reads its tile's element.
std::vector<te::Tensor> winograd_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const std::string op = kWinograd.op;
  const te::Tensor &data = in.at(0), &weight = in.at(1);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(op, acc, data.dtype(), weight.dtype());
  const WinogradPlan p = plan_winograd(data.shape(), attrs);
  te_util::require_nonempty(op, {&p.data, &p.out});
  const WinogradMatrices wm = winograd_matrices(p.tile, p.kernel);
  const int64_t m = p.tile, alpha = m + p.kernel - 1;
  const int64_t batch = p.data[0], ci_n = p.data[1], h = p.data[2], w = p.data[3];
  const int64_t co_n = p.out[1], n_h = (p.out[2] + m - 1) / m, n_w = (p.out[3] + m - 1) / m;
  const bool ci_last = p.a.data_layout.name() != "NHWC";
  const std::vector<int64_t> expected_w =
      ci_last ? std::vector<int64_t>{alpha, alpha, co_n, ci_n} : std::vector<int64_t>{alpha, alpha, ci_n, co_n};
  if (weight.shape() != expected_w) {
    throw Error(op + ": the transformed weight has shape " + shape_str(weight.shape()) + ", expected " +
                shape_str(expected_w) + " for tile_size " + std::to_string(m) + " and kernel_size " +
                std::to_string(p.kernel));
  }
  te_util::require_int32_index(op, {{"padding", &p.a.padding}},
                               {n_h * m, alpha, p.a.padding[0], h, n_w * m, alpha, p.a.padding[1], w});
  const te_util::LayoutMap data_map(p.a.data_layout.name(), "NCHW"), out_map(p.a.out_layout.name(), "NCHW");
  const te::Expr zero = te::make_const(acc, 0);
  // The patch element (a, b) of tile (th, tw): the data at row th * m + a - pad, column tw * m + b - pad.
  auto patch = [&](const te::Idx& i, const te::Expr& a, const te::Expr& b) {
    te::Expr row = i[2] * te::Expr(m) + a - te::Expr(p.a.padding[0]),
             col = i[3] * te::Expr(m) + b - te::Expr(p.a.padding[1]);
    te::Expr inside =
        te::logical_and(te::logical_and(row >= 0, row < te::Expr(h)), te::logical_and(col >= 0, col < te::Expr(w)));
    te::Idx xi = {i[0], i[1], te_util::clamp(row, 0, h - 1), te_util::clamp(col, 0, w - 1)};
    return te::select(inside, te_util::load_as(acc, data, data_map.to_layout(xi)), zero);
  };
  auto prefix = [](const te::Idx& i, std::initializer_list<te::Expr> rest) {
    te::Idx out(i.begin(), i.begin() + 4);
    out.insert(out.end(), rest);
    return out;
  };
  // (n, ci, th, tw, c, j): B along the patch's rows; then (n, ci, th, tw, c, e): along its columns.
  const std::vector<int64_t> tiles_in = {batch, ci_n, n_h, n_w, alpha, alpha};
  te::Tensor v_rows = te::compute(
      tiles_in,
      [&](const te::Idx& i) {
        return along_axis_te(wm.B, acc, i[4], "ra", [&](const te::Expr& a) { return patch(i, a, i[5]); });
      },
      "winograd_v_rows");
  te::Tensor v = te::compute(
      tiles_in,
      [&](const te::Idx& i) {
        return along_axis_te(wm.B, acc, i[5], "rb", [&](const te::Expr& b) { return v_rows(prefix(i, {i[4], b})); });
      },
      "winograd_v");
  // (n, co, th, tw, eps, nu): the sum over the input channels of U * V.
  te::Tensor mm = te::compute(
      {batch, co_n, n_h, n_w, alpha, alpha},
      [&](const te::Idx& i) {
        te::Axis ci = te::reduce_axis(ci_n, "rc");
        te::Idx ui = ci_last ? te::Idx{i[4], i[5], i[1], ci.var()} : te::Idx{i[4], i[5], ci.var(), i[1]};
        return te::sum(te_util::load_as(acc, weight, ui) * v({i[0], ci.var(), i[2], i[3], i[4], i[5]}), {ci});
      },
      "winograd_m");
  // (n, co, th, tw, j, nu): A along M's rows; then (n, co, th, tw, j, k): along its columns.
  te::Tensor y_rows = te::compute(
      {batch, co_n, n_h, n_w, m, alpha},
      [&](const te::Idx& i) {
        return along_axis_te(wm.A, acc, i[4], "re", [&](const te::Expr& e) { return mm(prefix(i, {e, i[5]})); });
      },
      "winograd_y_rows");
  te::Tensor y = te::compute(
      {batch, co_n, n_h, n_w, m, m},
      [&](const te::Idx& i) {
        return along_axis_te(wm.A, acc, i[5], "rnu", [&](const te::Expr& nu) { return y_rows(prefix(i, {i[4], nu})); });
      },
      "winograd_y");
  const te::Expr tile(m);
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lo) {
        te::Idx o = out_map.to_canonical(lo);
        return y({o[0], o[1], te::floordiv(o[2], tile), te::floordiv(o[3], tile), te::floormod(o[2], tile),
                  te::floormod(o[3], tile)});
      },
      "contrib_conv2d_winograd_without_weight_transform")};
}

}  // namespace

void register_conv_winograd_ops(Registrar& reg) {
  reg.op("nn.contrib_conv2d_winograd_weight_transform")
      .describe("The weight transform of Winograd convolution, U = G g G^T per (out, in) channel pair: an OIHW "
                "weight (CO, CI, r, r) becomes (tile_size + r - 1, tile_size + r - 1, CO, CI). Separate so that "
                "constant folding can precompute it.")
      .input("weight", "Tensor", "The OIHW weight.")
      .attr_required("tile_size", WEFT_ATTR_INT, "The output tile size m of F(m, r).", "an int in [2, 8]")
      .support_level(10)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(weight_transform_relation)
      .kernel(weight_transform_kernel)
      .te_compute(weight_transform_te);

  OpBuilder& op = reg.op("nn.contrib_conv2d_winograd_without_weight_transform")
                      .describe("conv2d by the Winograd algorithm F(tile_size, kernel_size) on a weight already "
                                "transformed by nn.contrib_conv2d_winograd_weight_transform. channels and "
                                "kernel_size must be given; the weight's shape is not checked by the type relation "
                                "(backends lay it out differently). Computes NCHW or NHWC data, strides 1.")
                      .input("data", "Tensor", "The input, NCHW or NHWC.")
                      .input("weight", "Tensor",
                             "The transformed weight: (alpha, alpha, CO, CI) for NCHW, (alpha, alpha, CI, CO) for NHWC.")
                      .attr_required("tile_size", WEFT_ATTR_INT, "The output tile size m of F(m, r).", "an int in [2, 8]")
                      .support_level(10)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  window_attrs(op, 2);
  op.attr("groups", int64_t{1}, "The number of groups (Winograd computes 1).", "an int >= 1");
  channel_attrs(op, 2);
  layout_attrs(op, "NCHW", "OIHW");
  out_dtype_attr(op);
  op.type_relation(winograd_relation).kernel(winograd_kernel).te_compute(winograd_te);
}

}  // namespace weft_nn::conv
