// nn.contrib_conv2d_gemm_weight_transform and
// nn.contrib_conv2d_gemm_without_weight_transform: conv2d as an im2col GEMM
// whose K x N weight matrix (K = KH * KW * IC, N = OC) is pre-tiled, as TOPI's
// conv2d_gemm_weight_transform lays it out (topi/nn/conv2d.py; padding from
// arm_utils.get_conv2d_weights_padding).
#include "conv_common.h"
#include "te_util.h"

#include <cstring>

namespace weft_nn::conv {

using namespace weft::sdk;

namespace {

bool is_8bit_int(DLDataType t) { return t == dtype::int8 || t == dtype::uint8; }

/// The tiled weight's geometry. 8-bit integer weights keep each tile
/// transposed (N-major: tile_N x tile_K); other dtypes keep it as is
/// (tile_K x tile_N). K is padded to a multiple of 4 * tile_K, because TOPI's
/// tensorized kernels read four K tiles at once; N to a multiple of tile_N.
struct GemmTiles {
  int64_t k = 0, n = 0, tile_k = 1, tile_n = 1, k_tiles = 0, n_tiles = 0;
  bool transposed = false;

  /// Index into the tiled weight of row k, column n of the K x N matrix.
  int64_t offset(int64_t row, int64_t col) const {
    int64_t tile = (col / tile_n) * k_tiles + row / tile_k;
    int64_t inner = transposed ? (col % tile_n) * tile_k + row % tile_k : (row % tile_k) * tile_n + col % tile_n;
    return tile * tile_k * tile_n + inner;
  }
  std::vector<int64_t> shape() const {
    return transposed ? std::vector<int64_t>{n_tiles, k_tiles, tile_n, tile_k}
                      : std::vector<int64_t>{n_tiles, k_tiles, tile_k, tile_n};
  }
};

int64_t round_up(int64_t v, int64_t multiple) { return (v + multiple - 1) / multiple * multiple; }

GemmTiles plan_tiles(int64_t k, int64_t n, int64_t tile_n, int64_t tile_k, DLDataType dt) {
  GemmTiles t;
  t.k = k;
  t.n = n;
  t.tile_n = tile_n;
  t.tile_k = tile_k;
  t.transposed = is_8bit_int(dt);
  t.n_tiles = known(n) ? round_up(n, tile_n) / tile_n : WEFT_DIM_ANY;
  t.k_tiles = known(k) ? round_up(k, 4 * tile_k) / tile_k : WEFT_DIM_ANY;
  return t;
}

// ---- Weight transform -----------------------------------------------------------------

GemmTiles transform_plan(const std::vector<int64_t>& w, const Attrs& attrs, DLDataType dt) {
  if (w.size() != 4) throw Error("expects an HWIO weight of rank 4, got shape " + shape_str(w));
  int64_t k = known(w[0], w[1]) && known(w[2]) ? w[0] * w[1] * w[2] : WEFT_DIM_ANY;
  return plan_tiles(k, w[3], attrs.get_int("tile_N"), attrs.get_int("tile_K"), dt);
}

Type transform_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 1, "weights");
  return Type::tensor(transform_plan(args[0].shape(), attrs, args[0].dtype()).shape(), args[0].dtype());
}

/// Copies element (k, n) of the flattened HWIO weight to its tiled place;
/// the padding is zero. A byte copy, so every dtype transforms alike.
void transform_kernel(const KernelArgs& a) {
  const TensorView &w = a.inputs.at(0), &out = a.outputs.at(0);
  GemmTiles t = transform_plan(w.shape(), a.attrs, w.dtype());
  const size_t bytes = (w.dtype().bits + 7) / 8;
  const char* src = static_cast<const char*>(w.dl().data) + w.dl().byte_offset;
  char* dst = static_cast<char*>(out.dl().data) + out.dl().byte_offset;
  std::memset(dst, 0, static_cast<size_t>(out.numel()) * bytes);
  for (int64_t row = 0; row < t.k; ++row) {
    for (int64_t col = 0; col < t.n; ++col) {
      std::memcpy(dst + t.offset(row, col) * bytes, src + (row * t.n + col) * bytes, bytes);
    }
  }
}

// ---- Convolution with a transformed weight ------------------------------------------

struct GemmConvPlan {
  ConvAttrs a;
  std::vector<int64_t> data, out;  // canonical NHWC shapes
  std::vector<int64_t> kernel;
};

constexpr ConvKind kGemmConv{"nn.contrib_conv2d_gemm_without_weight_transform", 2, "NHWC", "HWIO"};

GemmConvPlan plan_gemm_conv(const std::vector<int64_t>& data_shape, const Attrs& attrs) {
  GemmConvPlan p;
  p.a = ConvAttrs::read(kGemmConv, attrs);
  const ConvAttrs& a = p.a;
  expect_rank(data_shape, a.data_layout, "data");
  a.require_channels_and_kernel_size("the weight is pre-transformed");
  if (a.groups != 1) throw Error("GEMM convolution computes groups 1 only, got groups " + std::to_string(a.groups));
  p.kernel = *a.kernel_size;
  p.data = a.data_layout.to_canonical(data_shape);
  std::vector<int64_t> hw =
      a.out_extents({p.data[1], p.data[2]}, p.kernel, " (data shape " + shape_str(data_shape) + ")");
  p.out = {p.data[0], hw[0], hw[1], *a.channels};
  return p;
}

/// The tiles of a transformed weight for this convolution: the weight must
/// be the transform of a (KH, KW, IC, channels) HWIO weight.
GemmTiles weight_tiles(const GemmConvPlan& p, const std::vector<int64_t>& w, DLDataType wdt) {
  const bool transposed = is_8bit_int(wdt);
  if (w.size() != 4) throw Error("expects a transformed weight of rank 4, got shape " + shape_str(w));
  GemmTiles t;
  t.transposed = transposed;
  t.n_tiles = w[0];
  t.k_tiles = w[1];
  t.tile_n = transposed ? w[2] : w[3];
  t.tile_k = transposed ? w[3] : w[2];
  t.n = p.out[3];
  t.k = known(p.data[3]) ? p.kernel[0] * p.kernel[1] * p.data[3] : WEFT_DIM_ANY;
  bool ok = true;
  for (int64_t d : w) ok = ok && (d == WEFT_DIM_ANY || d >= 1);
  if (known(t.n_tiles, t.tile_n) && known(t.n)) ok = ok && t.n_tiles * t.tile_n >= t.n;
  if (known(t.k_tiles, t.tile_k) && known(t.k)) ok = ok && t.k_tiles * t.tile_k >= t.k;
  if (!ok) {
    throw Error("the transformed weight of shape " + shape_str(w) + " does not cover a K x N = " +
                (known(t.k) ? std::to_string(t.k) : "?") + " x " + std::to_string(t.n) +
                " weight matrix (kernel_size " + shape_str(p.kernel) + ", in_channels " +
                (known(p.data[3]) ? std::to_string(p.data[3]) : "?") + ", channels " + std::to_string(t.n) +
                "); expected (N/tile_N, K/tile_K, " + (transposed ? "tile_N, tile_K" : "tile_K, tile_N") +
                ") as nn.contrib_conv2d_gemm_weight_transform makes it for " + dtype_name(wdt));
  }
  return t;
}

Type gemm_conv_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "data, weight");
  GemmConvPlan p = plan_gemm_conv(args[0].shape(), attrs);
  weight_tiles(p, args[1].shape(), args[1].dtype());
  return p.a.output_type(p.out, args[0]);
}

/// out[b, y, x, n] = sum over (kh, kw, ic) of data[b, y*s + kh*d - pad, x*s + kw*d - pad, ic]
/// * W[(kh * KW + kw) * IC + ic, n], W read from its tiles (zero outside the data).
void gemm_conv_kernel(const KernelArgs& a) {
  const TensorView &data = a.inputs.at(0), &weight = a.inputs.at(1), &out = a.outputs.at(0);
  GemmConvPlan p = plan_gemm_conv(data.shape(), a.attrs);
  GemmTiles t = weight_tiles(p, weight.shape(), weight.dtype());
  dispatch_accumulator("nn.contrib_conv2d_gemm_without_weight_transform", out, [&]<typename T>() {
    std::vector<T> x = to_canonical<T>(data, p.a.data_layout, p.data);
    std::vector<T> w = read_as<T>(weight);
    const int64_t batch = p.data[0], h = p.data[1], wd = p.data[2], ic_n = p.data[3];
    const int64_t oh = p.out[1], ow = p.out[2], oc_n = p.out[3], kh_n = p.kernel[0], kw_n = p.kernel[1];
    std::vector<T> y(static_cast<size_t>(out.numel()), T(0));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          T* yo = y.data() + ((b * oh + oy) * ow + ox) * oc_n;
          for (int64_t kh = 0; kh < kh_n; ++kh) {
            int64_t iy = oy * p.a.strides[0] + kh * p.a.dilation[0] - p.a.padding[0];
            if (iy < 0 || iy >= h) continue;
            for (int64_t kw = 0; kw < kw_n; ++kw) {
              int64_t ix = ox * p.a.strides[1] + kw * p.a.dilation[1] - p.a.padding[1];
              if (ix < 0 || ix >= wd) continue;
              const T* xi = x.data() + ((b * h + iy) * wd + ix) * ic_n;
              for (int64_t ic = 0; ic < ic_n; ++ic) {
                int64_t row = (kh * kw_n + kw) * ic_n + ic;
                for (int64_t oc = 0; oc < oc_n; ++oc) yo[oc] += xi[ic] * w[t.offset(row, oc)];
              }
            }
          }
        }
      }
    }
    from_canonical(y, p.a.out_layout, p.out, out);
  });
}

/// Row `row` (a K index) and column `col` (an N index) of the tiled weight
/// matrix at a tiled weight's index, as GemmTiles::offset lays them out.
std::pair<te::Expr, te::Expr> tile_row_col(const GemmTiles& t, const te::Idx& i) {
  te::Expr a = t.transposed ? i[3] : i[2], b = t.transposed ? i[2] : i[3];
  return {i[1] * te::Expr(t.tile_k) + a, i[0] * te::Expr(t.tile_n) + b};
}

/// The TE of transform_kernel: the HWIO weight as a K x N matrix laid out in
/// tiles, zero past its rows and columns.
std::vector<te::Tensor> transform_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& w = in.at(0);
  if (!te_util::is_plain(w.dtype())) throw Unsupported("nn.contrib_conv2d_gemm_weight_transform: no TE for this dtype");
  const std::vector<int64_t> shape = w.shape();
  for (int64_t d : shape) {
    if (d == 0) throw Unsupported("nn.contrib_conv2d_gemm_weight_transform: no TE for an empty weight");
  }
  const GemmTiles t = transform_plan(shape, attrs, w.dtype());
  return {te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        auto [row, col] = tile_row_col(t, i);
        te::Idx src = te_util::unravel(te_util::clamp(row, 0, t.k - 1), {shape[0], shape[1], shape[2]});
        src.push_back(te_util::clamp(col, 0, t.n - 1));
        return te::select(te::logical_and(row < te::Expr(t.k), col < te::Expr(t.n)), w(src),
                          te::make_const(w.dtype(), 0.0));
      },
      "gemm_weight_transform")};
}

/// The TE of gemm_conv_kernel: per output element the sum over the taps
/// inside the data and the input channels (in that order), the weight read
/// from its tiles.
std::vector<te::Tensor> gemm_conv_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor &x = in.at(0), &wt = in.at(1);
  const DLDataType acc = out.dtype();
  const std::string op = "nn.contrib_conv2d_gemm_without_weight_transform";
  te_util::require_conv_dtypes(op, acc, x.dtype(), wt.dtype());
  const GemmConvPlan p = plan_gemm_conv(x.shape(), attrs);
  const GemmTiles t = weight_tiles(p, wt.shape(), wt.dtype());
  te_util::require_nonempty(op, {&p.data, &p.out});
  const te_util::LayoutMap data_map(p.a.data_layout.name(), "NHWC"), out_map(p.a.out_layout.name(), "NHWC");
  const int64_t ic_n = p.data[3], kw_n = p.kernel[1];
  auto load = [&](const te::Tensor& v, const te::Idx& i) { return te_util::load_as(acc, v, i); };
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lo) {
        te::Idx o = out_map.to_canonical(lo);  // (b, oy, ox, oc)
        te::Axis kh = te::reduce_axis(p.kernel[0], "kh"), kw = te::reduce_axis(kw_n, "kw"), ic = te::reduce_axis(ic_n, "ic");
        te::Expr cond;
        te::Idx xi = {o[0]};
        const te::Expr taps[2] = {kh.var(), kw.var()};
        for (size_t d = 0; d < 2; ++d) {
          te::Expr at = o[1 + d] * te::Expr(p.a.strides[d]) + taps[d] * te::Expr(p.a.dilation[d]) - te::Expr(p.a.padding[d]);
          te::Expr inside = te::logical_and(at >= 0, at < te::Expr(p.data[1 + d]));
          cond = cond.get() ? te::logical_and(cond, inside) : inside;
          xi.push_back(te_util::clamp(at, 0, p.data[1 + d] - 1));
        }
        xi.push_back(ic.var());
        te::Expr row = (kh.var() * te::Expr(kw_n) + kw.var()) * te::Expr(ic_n) + ic.var();
        const te::Expr& col = o[3];
        te::Expr a = te::floormod(row, te::Expr(t.tile_k)), b = te::floormod(col, te::Expr(t.tile_n));
        te::Idx wi = {te::floordiv(col, te::Expr(t.tile_n)), te::floordiv(row, te::Expr(t.tile_k)), t.transposed ? b : a,
                      t.transposed ? a : b};
        return te::sum(load(x, data_map.to_layout(xi)) * load(wt, wi), {kh, kw, ic}, cond);
      },
      "conv2d_gemm")};
}

}  // namespace
}  // namespace weft_nn::conv

namespace weft_nn {

void register_conv_gemm_ops(weft::sdk::Registrar& reg) {
  using namespace conv;
  reg.op("nn.contrib_conv2d_gemm_weight_transform")
      .describe("The weight transform of GEMM convolution: an HWIO weight (KH, KW, IC, OC) flattened to the K x N "
                "matrix W[(kh * KW + kw) * IC + ic, oc], zero-padded to K a multiple of 4 * tile_K and N a multiple "
                "of tile_N, and cut into tiles: (N/tile_N, K/tile_K, tile_K, tile_N) with tile [x, y] = W[y-th K "
                "block, x-th N block]; for int8/uint8 weights each tile is transposed, (N/tile_N, K/tile_K, "
                "tile_N, tile_K). Separate so that constant folding can precompute it.")
      .input("weights", "Tensor", "The HWIO weight.")
      .attr_required("tile_N", WEFT_ATTR_INT, "Tile size along N (output channels).", "an int >= 1")
      .normalize([](const Value& v) {
        if (v.as_int() < 1) throw Error("tile_N must be positive");
        return v;
      })
      .attr_required("tile_K", WEFT_ATTR_INT, "Tile size along K (KH * KW * IC), the reduction axis.", "an int >= 1")
      .normalize([](const Value& v) {
        if (v.as_int() < 1) throw Error("tile_K must be positive");
        return v;
      })
      .support_level(10)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(transform_relation)
      .kernel(transform_kernel)
      .te_compute(transform_te);

  OpBuilder& op =
      reg.op("nn.contrib_conv2d_gemm_without_weight_transform")
          .describe("conv2d computed as a GEMM on a weight already transformed by "
                    "nn.contrib_conv2d_gemm_weight_transform; equals nn.conv2d with the untransformed HWIO weight. "
                    "channels and kernel_size must be given; groups 1. data_layout is any layout convertible from "
                    "NHWC (the reference's schedules compute NHWC). int8/uint8 inputs accumulate in out_dtype.")
          .input("data", "Tensor", "The input, in data_layout.")
          .input("weight", "Tensor",
                 "The transformed weight: (N/tile_N, K/tile_K, tile_K, tile_N), or (..., tile_N, tile_K) for "
                 "int8/uint8.")
          .support_level(10)
          .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  window_attrs(op, 2);
  op.attr("groups", int64_t{1}, "The number of groups (GEMM convolution computes 1).", "1");
  channel_attrs(op, 2);
  layout_attrs(op, "NCHW", "OIHW");
  out_dtype_attr(op);
  op.type_relation(gemm_conv_relation).kernel(gemm_conv_kernel).te_compute(gemm_conv_te);
}

}  // namespace weft_nn
