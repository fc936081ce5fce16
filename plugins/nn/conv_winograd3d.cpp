// nn.contrib_conv3d_winograd_weight_transform and
// nn.contrib_conv3d_winograd_without_weight_transform: Winograd conv3d as
// TOPI's NCDHW compute does it, transforming depth too when the weight is
// (alpha, alpha, alpha, CO, CI) and convolving depth directly when it is
// (alpha, alpha, KD, CO, CI).
#include "conv_winograd.h"

namespace weft_nn::conv {

namespace {

using namespace weft::sdk;

/// TOPI's conv3d_winograd_weight_transform transforms depth for 2 < KD < 8 when KD == KH.
bool transforms_depth(int64_t kd, int64_t kh) { return kd > 2 && kd < 8 && kd == kh; }

// ---- Weight transform ---------------------------------------------------------------

Type weight_transform_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 1, "weight");
  std::vector<int64_t> w = args[0].shape();
  if (w.size() != 5) throw Error("expects an OIDHW weight of rank 5, got " + args[0].str());
  if (w[3] != w[4]) throw Error("expects kh == kw, got weight shape " + shape_str(w));
  int64_t tile = attrs.get_int("tile_size");
  check_winograd_tile(tile, w[3]);
  int64_t alpha = tile + w[3] - 1;
  return Type::tensor({alpha, alpha, transforms_depth(w[2], w[3]) ? alpha : w[2], w[0], w[1]}, args[0].dtype());
}

void weight_transform_kernel(const KernelArgs& k) {
  const TensorView &weight = k.inputs.at(0), &out = k.outputs.at(0);
  std::vector<int64_t> s = weight.shape();
  const int64_t co_n = s[0], ci_n = s[1], kd = s[2], r = s[3];
  const bool depth = transforms_depth(kd, r);
  Matrix g = winograd_matrices(k.attrs.get_int("tile_size"), r).G;
  const int64_t alpha = static_cast<int64_t>(g.size()), out_d = depth ? alpha : kd;
  // U = G g G^T applies G's rows; along_axis applies a matrix's columns, so it takes G^T.
  Matrix g_mat(r, std::vector<double>(alpha));
  for (int64_t i = 0; i < alpha; ++i) {
    for (int64_t j = 0; j < r; ++j) g_mat[j][i] = g[i][j];
  }
  dispatch_accumulator("nn.contrib_conv3d_winograd_weight_transform", out, [&]<typename T>() {
    std::vector<T> kernel = read_as<T>(weight);
    T* u = out.data<T>();
    for (int64_t co = 0; co < co_n; ++co) {
      for (int64_t ci = 0; ci < ci_n; ++ci) {
        auto first = kernel.begin() + (co * ci_n + ci) * kd * r * r;
        std::vector<T> block(first, first + kd * r * r);
        // G along h and w, and along d when depth is transformed: (d, h, w) -> (d', alpha, alpha).
        if (depth) block = along_axis(block, g_mat, 1, r * r);
        block = along_axis(block, g_mat, out_d, r);
        block = along_axis(block, g_mat, out_d * alpha, 1);
        // block is (d', eps, nu); the output is (eps, nu, d', CO, CI), or (omg, eps, nu, ...) with depth.
        for (int64_t d = 0; d < out_d; ++d) {
          for (int64_t e = 0; e < alpha; ++e) {
            for (int64_t n = 0; n < alpha; ++n) {
              int64_t idx = depth ? (d * alpha + e) * alpha + n : (e * alpha + n) * out_d + d;
              u[(idx * co_n + co) * ci_n + ci] = block[(d * alpha + e) * alpha + n];
            }
          }
        }
      }
    }
  });
}

/// The TE of weight_transform_kernel: G applied (along_axis_te, so with the
/// kernel's terms, order and skipped zeros) along depth when it is
/// transformed, then along the kernel's rows, then its columns, each a stage
/// over (co, ci, d, h, w); the output reads it in its (eps, nu, d', ...) or
/// (omg, eps, nu, ...) order.
std::vector<te::Tensor> weight_transform_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const std::string op = "nn.contrib_conv3d_winograd_weight_transform";
  const te::Tensor& weight = in.at(0);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(op, acc, weight.dtype(), weight.dtype());
  const std::vector<int64_t> s = weight.shape();
  te_util::require_nonempty(op, {&s});
  const int64_t co_n = s[0], ci_n = s[1], kd = s[2], r = s[3];
  const bool depth = transforms_depth(kd, r);
  const Matrix g = winograd_matrices(attrs.get_int("tile_size"), r).G;
  const int64_t alpha = static_cast<int64_t>(g.size()), out_d = depth ? alpha : kd;
  Matrix g_mat(r, std::vector<double>(alpha));  // G^T, as the kernel applies it
  for (int64_t i = 0; i < alpha; ++i) {
    for (int64_t j = 0; j < r; ++j) g_mat[j][i] = g[i][j];
  }
  auto tap = [&](const te::Idx& i) { return te_util::load_as(acc, weight, i); };
  std::function<te::Expr(const te::Idx&)> block = tap;  // (co, ci, d, h, w)
  te::Tensor along_d;
  if (depth) {
    along_d = te::compute(
        {co_n, ci_n, alpha, r, r},
        [&](const te::Idx& i) {
          return along_axis_te(g_mat, acc, i[2], "rd", [&](const te::Expr& a) {
            return tap({i[0], i[1], a, i[3], i[4]});
          });
        },
        "winograd3d_weight_d");
    block = [&](const te::Idx& i) { return along_d(i); };
  }
  te::Tensor along_h = te::compute(
      {co_n, ci_n, out_d, alpha, r},
      [&](const te::Idx& i) {
        return along_axis_te(g_mat, acc, i[3], "rh", [&](const te::Expr& a) {
          return block({i[0], i[1], i[2], a, i[4]});
        });
      },
      "winograd3d_weight_h");
  te::Tensor along_w = te::compute(
      {co_n, ci_n, out_d, alpha, alpha},
      [&](const te::Idx& i) {
        return along_axis_te(g_mat, acc, i[4], "rw", [&](const te::Expr& a) {
          return along_h({i[0], i[1], i[2], i[3], a});
        });
      },
      "winograd3d_weight_w");
  return {te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        return depth ? along_w({i[3], i[4], i[0], i[1], i[2]}) : along_w({i[3], i[4], i[2], i[0], i[1]});
      },
      "winograd3d_weight_transform")};
}

// ---- Convolution with a transformed weight ----------------------------------------

struct Winograd3dPlan {
  ConvAttrs a;
  std::vector<int64_t> data, out;  // canonical NCDHW shapes
  int64_t tile = 2, kernel = 3, kernel_depth = 3;
};

constexpr ConvKind kWinograd3d{"nn.contrib_conv3d_winograd_without_weight_transform", 3, "NCDHW", "OIDHW"};

Winograd3dPlan plan_winograd3d(const std::vector<int64_t>& data_shape, const Attrs& attrs) {
  Winograd3dPlan p;
  p.a = ConvAttrs::read(kWinograd3d, attrs);
  const ConvAttrs& a = p.a;
  expect_rank(data_shape, a.data_layout, "data");
  a.require_channels_and_kernel_size("the weight is pre-transformed");
  p.tile = attrs.get_int("tile_size");
  p.data = a.data_layout.to_canonical(data_shape);
  p.out = {p.data[0], *a.channels};
  std::vector<int64_t> out =
      a.out_extents(spatial(p.data), *a.kernel_size, " (data shape " + shape_str(data_shape) + ")");
  p.out.insert(p.out.end(), out.begin(), out.end());
  if (a.data_layout.name() != "NCDHW") {
    throw Error("the reference computes NCDHW data only, got " + a.data_layout.name());
  }
  if (a.dilation != std::vector<int64_t>{1, 1, 1} || a.groups != 1 || a.strides[1] != 1 || a.strides[2] != 1) {
    throw Error("winograd conv3d computes dilation (1, 1, 1), groups 1 and height/width strides 1 only, got strides " +
                shape_str(a.strides) + ", dilation " + shape_str(a.dilation));
  }
  const std::vector<int64_t>& kernel_size = *a.kernel_size;
  if (kernel_size[1] != kernel_size[2]) throw Error("winograd needs kh == kw, got " + shape_str(kernel_size));
  p.kernel = kernel_size[1];
  p.kernel_depth = kernel_size[0];
  check_winograd_tile(p.tile, p.kernel);
  return p;
}

/// What a transformed weight (alpha, alpha, alpha or KD, CO, CI) says of the
/// transform: alpha, whether depth is transformed too (when the weight's
/// first three dims agree, as TOPI dispatches), the kernel size r and depth
/// kd; an error (after `prefix`) when it does not fit the plan.
struct TransformedWeight {
  int64_t alpha;
  bool depth;
  int64_t r, kd;
};

TransformedWeight transformed_weight(const Winograd3dPlan& p, const std::vector<int64_t>& ws,
                                     const std::string& prefix = "") {
  const int64_t co_n = p.out[1], ci_n = p.data[1];
  const int64_t alpha = ws.size() == 5 ? ws[0] : 0;
  const bool depth = ws.size() == 5 && ws[1] == alpha && ws[2] == alpha;
  const int64_t r = alpha + 1 - p.tile, kd = depth ? r : (ws.size() == 5 ? ws[2] : 0);
  if (ws.size() != 5 || ws[1] != alpha || ws[3] != co_n || ws[4] != ci_n || r != p.kernel || kd != p.kernel_depth ||
      (depth && p.a.strides[0] != 1)) {
    throw Error(prefix + "the transformed weight has shape " + shape_str(ws) + "; expected (alpha, alpha, alpha or KD, " +
                std::to_string(co_n) + ", " + std::to_string(ci_n) + ") with alpha = tile_size + kernel - 1" +
                (depth ? " and depth stride 1" : ""));
  }
  return {alpha, depth, r, kd};
}


Type winograd3d_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "data, weight");
  Winograd3dPlan p = plan_winograd3d(args[0].shape(), attrs);
  return p.a.output_type(p.out, args[0]);
}

void winograd3d_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
  Winograd3dPlan p = plan_winograd3d(data.shape(), k.attrs);
  const int64_t m = p.tile;
  const int64_t batch = p.data[0], ci_n = p.data[1], d_in = p.data[2], h = p.data[3], w = p.data[4];
  const int64_t co_n = p.out[1], od = p.out[2], oh = p.out[3], ow = p.out[4];
  const TransformedWeight tw = transformed_weight(p, weight.shape());
  const int64_t alpha = tw.alpha, r = tw.r, kd = tw.kd;  // named, not bound: lambdas below capture them
  const bool depth = tw.depth;
  WinogradMatrices wm = winograd_matrices(m, r);
  const int64_t n_d = depth ? (od + m - 1) / m : od, n_h = (oh + m - 1) / m, n_w = (ow + m - 1) / m;
  const int64_t ad = depth ? alpha : 1;  // transformed depth extent of one tile
  dispatch_accumulator("nn.contrib_conv3d_winograd_without_weight_transform", out, [&]<typename T>() {
    std::vector<T> x = read_as<T>(data);  // NCDHW, as plan_winograd3d requires
    std::vector<T> u = read_as<T>(weight);
    std::vector<T> y(static_cast<size_t>(out.numel()), T(0));
    // Input depth rows a tile reads: alpha (transformed) or KD per output depth (direct).
    const int64_t rows = depth ? alpha : kd;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t td = 0; td < n_d; ++td) {
        for (int64_t th = 0; th < n_h; ++th) {
          for (int64_t tw = 0; tw < n_w; ++tw) {
            // V[ci] = B^T d B on h and w (and on depth when transformed): (rows or alpha, alpha, alpha).
            std::vector<std::vector<T>> v(static_cast<size_t>(ci_n));
            for (int64_t ci = 0; ci < ci_n; ++ci) {
              std::vector<T> patch(static_cast<size_t>(rows * alpha * alpha), T(0));
              for (int64_t a = 0; a < rows; ++a) {
                int64_t z = (depth ? td * m : td * p.a.strides[0]) + a - p.a.padding[0];
                if (z < 0 || z >= d_in) continue;
                for (int64_t b = 0; b < alpha; ++b) {
                  int64_t yy = th * m + b - p.a.padding[1];
                  if (yy < 0 || yy >= h) continue;
                  for (int64_t c = 0; c < alpha; ++c) {
                    int64_t xx = tw * m + c - p.a.padding[2];
                    if (xx >= 0 && xx < w) patch[(a * alpha + b) * alpha + c] = x[(((n * ci_n + ci) * d_in + z) * h + yy) * w + xx];
                  }
                }
              }
              if (depth) patch = along_axis(patch, wm.B, 1, alpha * alpha);
              patch = along_axis(patch, wm.B, rows, alpha);
              v[ci] = along_axis(patch, wm.B, rows * alpha, 1);
            }
            for (int64_t co = 0; co < co_n; ++co) {
              // M[omg?][eps][nu] = sum over ci (and the kd depth taps when direct) of U ⊙ V.
              std::vector<T> mm(static_cast<size_t>(ad * alpha * alpha), T(0));
              for (int64_t ci = 0; ci < ci_n; ++ci) {
                for (int64_t a = 0; a < rows; ++a) {
                  for (int64_t e = 0; e < alpha; ++e) {
                    for (int64_t nu = 0; nu < alpha; ++nu) {
                      int64_t uidx = depth ? (a * alpha + e) * alpha + nu : (e * alpha + nu) * kd + a;
                      mm[((depth ? a : 0) * alpha + e) * alpha + nu] +=
                          u[(uidx * co_n + co) * ci_n + ci] * v[ci][(a * alpha + e) * alpha + nu];
                    }
                  }
                }
              }
              // Y = A^T M A on each transformed axis.
              if (depth) mm = along_axis(mm, wm.A, 1, alpha * alpha);
              const int64_t md = depth ? m : 1;
              mm = along_axis(mm, wm.A, md, alpha);
              mm = along_axis(mm, wm.A, md * m, 1);
              for (int64_t vd = 0; vd < md; ++vd) {
                for (int64_t vh = 0; vh < m; ++vh) {
                  for (int64_t vw = 0; vw < m; ++vw) {
                    int64_t zd = depth ? td * m + vd : td, zh = th * m + vh, zw = tw * m + vw;
                    if (zd >= od || zh >= oh || zw >= ow) continue;
                    y[(((n * co_n + co) * od + zd) * oh + zh) * ow + zw] = mm[(vd * m + vh) * m + vw];
                  }
                }
              }
            }
          }
        }
      }
    }
    from_canonical(y, p.a.out_layout, p.out, out);
  });
}

/// The TE of winograd3d_kernel, stage by stage as it computes a tile
/// (canonical NCDHW, tiles (td, th, tw)): the patch (zero outside the data)
/// transformed by B along depth when depth is transformed, then along rows and
/// columns; M, a reduction over the input channels (then the depth taps, when
/// depth is convolved directly) of U * V; then A along depth (when
/// transformed), rows and columns. Each transform is along_axis_te, so every
/// element sums the kernel's terms in the kernel's order.
std::vector<te::Tensor> winograd3d_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const std::string op = kWinograd3d.op;
  const te::Tensor &data = in.at(0), &weight = in.at(1);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(op, acc, data.dtype(), weight.dtype());
  const Winograd3dPlan p = plan_winograd3d(data.shape(), attrs);
  te_util::require_nonempty(op, {&p.data, &p.out});
  const int64_t m = p.tile;
  const int64_t batch = p.data[0], ci_n = p.data[1], d_in = p.data[2], h = p.data[3], w = p.data[4];
  const int64_t co_n = p.out[1], od = p.out[2], oh = p.out[3], ow = p.out[4];
  const TransformedWeight tw = transformed_weight(p, weight.shape(), op + ": ");
  const int64_t alpha = tw.alpha, r = tw.r, kd = tw.kd;
  const bool depth = tw.depth;
  const WinogradMatrices wm = winograd_matrices(m, r);
  const int64_t n_d = depth ? (od + m - 1) / m : od, n_h = (oh + m - 1) / m, n_w = (ow + m - 1) / m;
  const int64_t rows = depth ? alpha : kd, ad = depth ? alpha : 1, md = depth ? m : 1;
  te_util::require_int32_index(op, {{"strides", &p.a.strides}, {"padding", &p.a.padding}},
                               {te_util::saturating_mul(n_d, depth ? m : p.a.strides[0]), rows, p.a.padding[0], d_in,
                                n_h * m, alpha, p.a.padding[1], h, n_w * m, alpha, p.a.padding[2], w});
  const te_util::LayoutMap out_map(p.a.out_layout.name(), "NCDHW");
  const te::Expr zero = te::make_const(acc, 0);
  // The tile's first index on each axis, and the index with the tile's own (a, b, c) after it.
  auto prefix = [](const te::Idx& i, std::initializer_list<te::Expr> rest) {
    te::Idx out(i.begin(), i.begin() + 5);
    out.insert(out.end(), rest);
    return out;
  };
  // The patch element (a, b, c) of tile (td, th, tw).
  auto patch = [&](const te::Idx& i, const te::Expr& a, const te::Expr& b, const te::Expr& c) {
    te::Expr z = i[2] * te::Expr(depth ? m : p.a.strides[0]) + a - te::Expr(p.a.padding[0]);
    te::Expr yy = i[3] * te::Expr(m) + b - te::Expr(p.a.padding[1]),
             xx = i[4] * te::Expr(m) + c - te::Expr(p.a.padding[2]);
    te::Expr inside = te::logical_and(
        te::logical_and(z >= 0, z < te::Expr(d_in)),
        te::logical_and(te::logical_and(yy >= 0, yy < te::Expr(h)), te::logical_and(xx >= 0, xx < te::Expr(w))));
    te::Idx xi = {i[0], i[1], te_util::clamp(z, 0, d_in - 1), te_util::clamp(yy, 0, h - 1),
                  te_util::clamp(xx, 0, w - 1)};
    return te::select(inside, te_util::load_as(acc, data, xi), zero);
  };
  // V over (n, ci, td, th, tw, a, b, c).
  std::function<te::Expr(const te::Idx&)> source = [&](const te::Idx& i) { return patch(i, i[5], i[6], i[7]); };
  te::Tensor v_d;
  if (depth) {
    v_d = te::compute(
        {batch, ci_n, n_d, n_h, n_w, alpha, alpha, alpha},
        [&](const te::Idx& i) {
          return along_axis_te(wm.B, acc, i[5], "ra", [&](const te::Expr& a) { return patch(i, a, i[6], i[7]); });
        },
        "winograd3d_v_d");
    source = [&](const te::Idx& i) { return v_d(i); };
  }
  const std::vector<int64_t> v_shape = {batch, ci_n, n_d, n_h, n_w, rows, alpha, alpha};
  te::Tensor v_rows = te::compute(
      v_shape,
      [&](const te::Idx& i) {
        return along_axis_te(wm.B, acc, i[6], "rb", [&](const te::Expr& b) {
          return source(prefix(i, {i[5], b, i[7]}));
        });
      },
      "winograd3d_v_rows");
  te::Tensor v = te::compute(
      v_shape,
      [&](const te::Idx& i) {
        return along_axis_te(wm.B, acc, i[7], "rc", [&](const te::Expr& c) {
          return v_rows(prefix(i, {i[5], i[6], c}));
        });
      },
      "winograd3d_v");
  // M over (n, co, td, th, tw, omg or 0, eps, nu).
  te::Tensor mm = te::compute(
      {batch, co_n, n_d, n_h, n_w, ad, alpha, alpha},
      [&](const te::Idx& i) {
        te::Axis ci = te::reduce_axis(ci_n, "rci");
        if (depth) {
          te::Expr u = te_util::load_as(acc, weight, {i[5], i[6], i[7], i[1], ci.var()});
          return te::sum(u * v({i[0], ci.var(), i[2], i[3], i[4], i[5], i[6], i[7]}), {ci});
        }
        te::Axis a = te::reduce_axis(kd, "rkd");
        te::Expr u = te_util::load_as(acc, weight, {i[6], i[7], a.var(), i[1], ci.var()});
        return te::sum(u * v({i[0], ci.var(), i[2], i[3], i[4], a.var(), i[6], i[7]}), {ci, a});
      },
      "winograd3d_m");
  // Y over (n, co, td, th, tw, vd, vh, vw).
  std::function<te::Expr(const te::Idx&)> m_source = [&](const te::Idx& i) { return mm(i); };
  te::Tensor y_d;
  if (depth) {
    y_d = te::compute(
        {batch, co_n, n_d, n_h, n_w, m, alpha, alpha},
        [&](const te::Idx& i) {
          return along_axis_te(wm.A, acc, i[5], "romg", [&](const te::Expr& a) {
            return mm(prefix(i, {a, i[6], i[7]}));
          });
        },
        "winograd3d_y_d");
    m_source = [&](const te::Idx& i) { return y_d(i); };
  }
  te::Tensor y_rows = te::compute(
      {batch, co_n, n_d, n_h, n_w, md, m, alpha},
      [&](const te::Idx& i) {
        return along_axis_te(wm.A, acc, i[6], "reps", [&](const te::Expr& e) {
          return m_source(prefix(i, {i[5], e, i[7]}));
        });
      },
      "winograd3d_y_rows");
  te::Tensor y = te::compute(
      {batch, co_n, n_d, n_h, n_w, md, m, m},
      [&](const te::Idx& i) {
        return along_axis_te(wm.A, acc, i[7], "rnu", [&](const te::Expr& nu) {
          return y_rows(prefix(i, {i[5], i[6], nu}));
        });
      },
      "winograd3d_y");
  const te::Expr tile(m);
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lo) {
        te::Idx o = out_map.to_canonical(lo);
        te::Expr td = depth ? te::floordiv(o[2], tile) : o[2], vd = depth ? te::floormod(o[2], tile) : te::Expr(0);
        return y({o[0], o[1], td, te::floordiv(o[3], tile), te::floordiv(o[4], tile), vd, te::floormod(o[3], tile),
                  te::floormod(o[4], tile)});
      },
      "contrib_conv3d_winograd_without_weight_transform")};
}

}  // namespace

void register_conv_winograd3d_ops(Registrar& reg) {
  reg.op("nn.contrib_conv3d_winograd_weight_transform")
      .describe("The weight transform of Winograd conv3d: an OIDHW weight (CO, CI, kd, r, r) becomes (alpha, alpha, "
                "alpha, CO, CI) when 2 < kd < 8 and kd == r (depth transformed too), else (alpha, alpha, kd, CO, CI); "
                "alpha = tile_size + r - 1.")
      .input("weight", "Tensor", "The OIDHW weight.")
      .attr_required("tile_size", WEFT_ATTR_INT, "The output tile size m of F(m, r).", "an int in [2, 8]")
      .support_level(10)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(weight_transform_relation)
      .kernel(weight_transform_kernel)
      .te_compute(weight_transform_te);

  OpBuilder& op = reg.op("nn.contrib_conv3d_winograd_without_weight_transform")
                      .describe("conv3d by the Winograd algorithm on a weight already transformed by "
                                "nn.contrib_conv3d_winograd_weight_transform. channels and kernel_size must be given; "
                                "the weight's shape is not checked by the type relation. Computes NCDHW data, "
                                "height/width strides 1 (a depth stride when depth is not transformed).")
                      .input("data", "Tensor", "The NCDHW input.")
                      .input("weight", "Tensor", "The transformed weight, (alpha, alpha, alpha or kd, CO, CI).")
                      .attr_required("tile_size", WEFT_ATTR_INT, "The output tile size m of F(m, r).", "an int in [2, 8]")
                      .support_level(10)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  window_attrs(op, 3);
  op.attr("groups", int64_t{1}, "The number of groups (Winograd computes 1).", "an int >= 1");
  channel_attrs(op, 3);
  layout_attrs(op, "NCDHW", "OIDHW");
  out_dtype_attr(op);
  op.type_relation(winograd3d_relation).kernel(winograd3d_kernel).te_compute(winograd3d_te);
}

}  // namespace weft_nn::conv
