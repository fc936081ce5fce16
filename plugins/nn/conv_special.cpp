// Convolution relatives: nn.conv2d_backward_weight (the weight gradient of
// conv2d), nn.deformable_conv2d (bilinearly sampled taps at learned offsets)
// and nn.correlation (FlowNet's patch correlation of two feature maps), as
// Relay's relations and TOPI's computes define them.
#include <cmath>
#include <type_traits>

#include <weft/sdk/gradient.hpp>

#include "conv_common.h"
#include "te_util.h"
#include "conv_gradient.h"

namespace weft_nn::conv {

namespace {

using namespace weft::sdk;

// ---- conv2d_backward_weight ---------------------------------------------------------

/// Relay reuses Conv2DAttrs: data_layout is the gradient's layout,
/// kernel_layout the data's, out_layout the weight's.
struct BackwardWeightPlan {
  Layout grad_layout, data_layout, weight_layout;
  std::vector<int64_t> grad, data, weight;  // canonical NCHW, NCHW, OIHW
  std::vector<int64_t> strides, padding, dilation;
  int64_t groups = 1;
};

BackwardWeightPlan plan_backward_weight(const std::vector<int64_t>& grad_shape, const std::vector<int64_t>& data_shape,
                                        const Attrs& attrs) {
  BackwardWeightPlan p;
  p.grad_layout = Layout::parse(attrs.get_string("data_layout"), "NCHW", "data_layout (the gradient's layout)");
  p.data_layout = Layout::parse(attrs.get_string("kernel_layout"), "NCHW", "kernel_layout (the data's layout)");
  p.weight_layout = Layout::parse(attrs.get_string("out_layout"), "OIHW", "out_layout (the weight's layout)");
  expect_rank(grad_shape, p.grad_layout, "grad");
  expect_rank(data_shape, p.data_layout, "data");
  std::optional<std::vector<int64_t>> kernel_size = optional_ints(attrs, "kernel_size");
  if (!kernel_size) throw Error("kernel_size must be set");
  p.strides = attrs.get_ints("strides");
  p.padding = attrs.get_ints("padding");
  p.dilation = attrs.get_ints("dilation");
  p.groups = attrs.get_int("groups");
  p.grad = p.grad_layout.to_canonical(grad_shape);
  p.data = p.data_layout.to_canonical(data_shape);
  const int64_t in_channels = p.data[1], out_channels = p.grad[1];
  const std::string shapes = " (grad shape " + shape_str(grad_shape) + ", data shape " + shape_str(data_shape) + ")";
  if (!known(in_channels, out_channels)) throw Error("the channel counts must be known" + shapes);
  if (p.groups < 1 || in_channels % p.groups != 0 || out_channels % p.groups != 0) {
    throw Error("groups=" + std::to_string(p.groups) + " must divide the input and output channels" + shapes);
  }
  int64_t weight_in = in_channels / p.groups;
  if (in_channels == out_channels && in_channels == p.groups) {
    std::optional<int64_t> channels = optional_int(attrs, "channels");
    if (!channels) throw Error("channels must be set for a depthwise convolution's weight gradient" + shapes);
    if (*channels != out_channels) {
      throw Error("channels=" + std::to_string(*channels) + " does not match the gradient's channels" + shapes);
    }
    weight_in = *channels / p.groups;
  }
  p.weight = {out_channels, weight_in, (*kernel_size)[0], (*kernel_size)[1]};
  return p;
}

Type backward_weight_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "grad, data");
  BackwardWeightPlan p = plan_backward_weight(args[0].shape(), args[1].shape(), attrs);
  Value out_dtype = attrs.get_value("out_dtype");
  return Type::tensor(p.weight_layout.from_canonical(p.weight), out_dtype.is_none() ? args[0].dtype() : out_dtype.as_dtype());
}

/// dw[o, i, k] = sum over n and output positions of grad[n, o, pos] *
/// data[n, group(o) * I + i, pos*stride - pad + k*dilation] (zero outside data).
void backward_weight_kernel(const KernelArgs& k) {
  const TensorView &grad = k.inputs.at(0), &data = k.inputs.at(1), &out = k.outputs.at(0);
  BackwardWeightPlan p = plan_backward_weight(grad.shape(), data.shape(), k.attrs);
  dispatch_accumulator("nn.conv2d_backward_weight", out, [&]<typename T>() {
    std::vector<T> dy = to_canonical<T>(grad, p.grad_layout, p.grad);
    std::vector<T> x = to_canonical<T>(data, p.data_layout, p.data);
    const int64_t batch = p.data[0], c_in = p.data[1], h = p.data[2], w = p.data[3];
    const int64_t c_out = p.grad[1], oh = p.grad[2], ow = p.grad[3];
    const int64_t ipg = p.weight[1], kh_n = p.weight[2], kw_n = p.weight[3], opg = c_out / p.groups;
    std::vector<T> dw(static_cast<size_t>(out.numel()));
    int64_t wi = 0;
    for (int64_t o = 0; o < c_out; ++o) {
      for (int64_t i = 0; i < ipg; ++i) {
        const int64_t c = (o / opg) * (c_in / p.groups) + i;
        for (int64_t kh = 0; kh < kh_n; ++kh) {
          for (int64_t kw = 0; kw < kw_n; ++kw) {
            T acc = 0;
            for (int64_t n = 0; n < batch; ++n) {
              const T* g = dy.data() + (n * c_out + o) * oh * ow;
              const T* xc = x.data() + (n * c_in + c) * h * w;
              for (int64_t y = 0; y < oh; ++y) {
                int64_t iy = y * p.strides[0] - p.padding[0] + kh * p.dilation[0];
                if (iy < 0 || iy >= h) continue;
                for (int64_t xx = 0; xx < ow; ++xx) {
                  int64_t ix = xx * p.strides[1] - p.padding[1] + kw * p.dilation[1];
                  if (ix >= 0 && ix < w) acc += g[y * ow + xx] * xc[iy * w + ix];
                }
              }
            }
            dw[wi++] = acc;
          }
        }
      }
    }
    from_canonical(dw, p.weight_layout, p.weight, out);
  });
}

/// The TE of backward_weight_kernel: per weight element, one reduction over
/// the batch and the gradient's positions (in that order), a position whose
/// data tap lies outside the data skipped (its read clamped into the data).
std::vector<te::Tensor> backward_weight_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor &grad = in.at(0), &data = in.at(1);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes("nn.conv2d_backward_weight", acc, grad.dtype(), data.dtype());
  const BackwardWeightPlan p = plan_backward_weight(grad.shape(), data.shape(), attrs);
  te_util::require_nonempty("nn.conv2d_backward_weight", {&p.grad, &p.data, &p.weight});
  const te_util::LayoutMap grad_map(p.grad_layout.name(), "NCHW"), data_map(p.data_layout.name(), "NCHW");
  const te_util::LayoutMap weight_map(p.weight_layout.name(), "OIHW");
  const int64_t c_in = p.data[1], c_out = p.grad[1], opg = c_out / p.groups;
  auto load = [&](const te::Tensor& t, const te::Idx& i) { return te_util::load_as(acc, t, i); };
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lw) {
        te::Idx w = weight_map.to_canonical(lw);  // (o, i, kh, kw)
        te::Axis n = te::reduce_axis(p.data[0], "n"), y = te::reduce_axis(p.grad[2], "y"),
                 x = te::reduce_axis(p.grad[3], "x");
        te::Expr c = te::floordiv(w[0], te::Expr(opg)) * te::Expr(c_in / p.groups) + w[1];
        te::Expr cond;
        te::Idx xi = {n.var(), c};
        const te::Expr pos[2] = {y.var(), x.var()};
        for (size_t d = 0; d < 2; ++d) {
          te::Expr at = pos[d] * te::Expr(p.strides[d]) - te::Expr(p.padding[d]) + w[2 + d] * te::Expr(p.dilation[d]);
          te::Expr inside = te::logical_and(at >= 0, at < te::Expr(p.data[2 + d]));
          cond = cond.get() ? te::logical_and(cond, inside) : inside;
          xi.push_back(te_util::clamp(at, 0, p.data[2 + d] - 1));
        }
        te::Idx gi = {n.var(), w[0], y.var(), x.var()};
        return te::sum(load(grad, grad_map.to_layout(gi)) * load(data, data_map.to_layout(xi)), {n, y, x}, cond);
      },
      "conv2d_backward_weight")};
}

// ---- deformable_conv2d ------------------------------------------------------------

struct DeformablePlan {
  ConvAttrs a;
  std::vector<int64_t> data, offset, weight, out;  // canonical NCHW, NCHW, OIHW, NCHW
  int64_t deformable_groups = 1;
};

constexpr ConvKind kDeformable{"nn.deformable_conv2d", 2, "NCHW", "OIHW"};

DeformablePlan plan_deformable(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& offset_shape,
                               const std::vector<int64_t>& weight_shape, const Attrs& attrs) {
  DeformablePlan p;
  p.a = ConvAttrs::read(kDeformable, attrs);
  const ConvAttrs& a = p.a;
  ConvAttrs::Operands operands = a.check_operands(data_shape, weight_shape, /*depthwise_rule=*/false);
  expect_rank(offset_shape, a.data_layout, "offset");
  // The operands' suffix with the offset's shape added inside its parentheses.
  const std::string shapes = operands.shapes.substr(0, operands.shapes.size() - 1) + ", offset shape " +
                             shape_str(offset_shape) + ")";
  p.deformable_groups = attrs.get_int("deformable_groups");
  const int64_t in_channels = operands.data[1];
  if (p.deformable_groups < 1 || (known(in_channels) && in_channels % p.deformable_groups != 0)) {
    throw Error("deformable_groups=" + std::to_string(p.deformable_groups) + " must divide the input channels" + shapes);
  }
  p.data = std::move(operands.data);
  p.weight = std::move(operands.weight);
  const std::vector<int64_t>& w = p.weight;
  p.out = {p.data[0], operands.out_channels};
  std::vector<int64_t> out = a.out_extents(spatial(p.data), spatial(w), shapes);
  p.out.insert(p.out.end(), out.begin(), out.end());
  // Relay assigns the offset this type; weft checks the given one against it.
  p.offset = {p.data[0], 2 * w[2] * w[3] * p.deformable_groups, p.out[2], p.out[3]};
  std::vector<int64_t> expected_offset = p.a.data_layout.from_canonical(p.offset);
  for (size_t i = 0; i < expected_offset.size(); ++i) {
    if (known(expected_offset[i], offset_shape[i]) && expected_offset[i] != offset_shape[i]) {
      throw Error("the offset should have shape " + shape_str(expected_offset) + shapes);
    }
  }
  return p;
}

Type deformable_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 3, "data, offset, weight");
  DeformablePlan p = plan_deformable(args[0].shape(), args[1].shape(), args[2].shape(), attrs);
  return p.a.output_type(p.out, args[0]);
}

/// Relay's DeformableConvInferCorrectLayout: data and offset in data_layout,
/// the weight in kernel_layout, the output in out_layout (else data_layout).
InferredLayouts deformable_layouts(const Attrs& attrs, const std::vector<weft::sdk::Layout>&,
                                   const std::vector<weft::sdk::Layout>&, const std::vector<Type>&) {
  weft::sdk::Layout data(attrs.get_string("data_layout")), kernel(attrs.get_string("kernel_layout"));
  std::string out = attrs.get_string("out_layout");
  return {{data, data, kernel}, {out.empty() ? data : weft::sdk::Layout(out)}, Attrs()};
}

/// The reference's convert_deformable_conv2d: the desired data layout, and the
/// kernel layout given or, for "default", OIHW with NCHW data and HWIO with NHWC.
Expr convert_deformable(const Expr& c, const std::vector<std::string>& desired) {
  if (desired.empty() || desired.size() > 2) {
    throw Error("nn.deformable_conv2d: ConvertLayout takes a data layout and a kernel layout, not " +
                std::to_string(desired.size()) + " layouts");
  }
  const std::string& data = desired[0];
  if (data == "default") throw Error("nn.deformable_conv2d: ConvertLayout needs a data layout, not default");
  std::string kernel = desired.size() > 1 ? desired[1] : "default";
  if (kernel == "default") {
    if (data != "NCHW" && data != "NHWC") {
      throw Error("nn.deformable_conv2d: ConvertLayout has no default kernel layout for data layout " + data +
                  " (NCHW takes OIHW, NHWC HWIO); give one");
    }
    kernel = data == "NCHW" ? "OIHW" : "HWIO";
  }
  return weft::sdk::call("nn.deformable_conv2d", c.args(),
                         weft::sdk::layouts::entries_with(c.attrs(), {{"data_layout", data}, {"kernel_layout", kernel}}));
}

/// TOPI's sample: zero outside [0, H) x [0, W); otherwise bilinear, with
/// corners beyond the last row or column counting as zero. A NaN coordinate
/// is outside too (its floor has no integer value).
template <typename T>
T bilinear(const T* plane, int64_t h, int64_t w, T y, T x) {
  if (!(y >= 0 && x >= 0 && y < static_cast<T>(h) && x < static_cast<T>(w))) return 0;
  const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  const T wy = y - static_cast<T>(y0), wx = x - static_cast<T>(x0);
  T val = 0;
  for (int64_t dy = 0; dy < 2; ++dy) {
    for (int64_t dx = 0; dx < 2; ++dx) {
      int64_t yy = y0 + dy, xx = x0 + dx;
      if (yy > h - 1 || xx > w - 1) continue;
      val += (dy ? wy : 1 - wy) * (dx ? wx : 1 - wx) * plane[yy * w + xx];
    }
  }
  return val;
}

/// A call's plan, once per call site (the kernel is prepared).
DeformablePlan prepare_deformable(const std::vector<Type>& args, const Attrs& attrs) {
  DeformablePlan p = plan_deformable(args.at(0).shape(), args.at(1).shape(), args.at(2).shape(), attrs);
  if (p.a.groups != 1) throw Error("the reference computes groups 1 only, got groups=" + std::to_string(p.a.groups));
  return p;
}

void run_deformable(const DeformablePlan& p, const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &offset = k.inputs.at(1), &weight = k.inputs.at(2), &out = k.outputs.at(0);
  dispatch_accumulator("nn.deformable_conv2d", out, [&]<typename T>() {
    if constexpr (std::is_integral_v<T>) {
      throw Error("bilinear sampling needs a float out_dtype");
    } else {
      std::vector<T> x = to_canonical<T>(data, p.a.data_layout, p.data);
      std::vector<T> off = to_canonical<T>(offset, p.a.data_layout, p.offset);
      std::vector<T> w = to_canonical<T>(weight, p.a.kernel_layout, p.weight);
      const int64_t batch = p.data[0], c_in = p.data[1], h = p.data[2], wd = p.data[3];
      const int64_t c_out = p.out[1], oh = p.out[2], ow = p.out[3], kh_n = p.weight[2], kw_n = p.weight[3];
      const int64_t per_dgroup = p.weight[1] / p.deformable_groups, off_c = p.offset[1];
      std::vector<T> y(static_cast<size_t>(out.numel()), T(0));
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < c_in; ++c) {
          const T* plane = x.data() + (n * c_in + c) * h * wd;
          for (int64_t kh = 0; kh < kh_n; ++kh) {
            for (int64_t kw = 0; kw < kw_n; ++kw) {
              const int64_t oc = (c / per_dgroup) * (kh_n * kw_n * 2) + (kh * kw_n + kw) * 2;
              const T* off_y = off.data() + (n * off_c + oc) * oh * ow;
              const T* off_x = off_y + oh * ow;
              for (int64_t yy = 0; yy < oh; ++yy) {
                for (int64_t xx = 0; xx < ow; ++xx) {
                  T sy = static_cast<T>(yy * p.a.strides[0] - p.a.padding[0] + kh * p.a.dilation[0]) +
                         off_y[yy * ow + xx];
                  T sx = static_cast<T>(xx * p.a.strides[1] - p.a.padding[1] + kw * p.a.dilation[1]) +
                         off_x[yy * ow + xx];
                  T v = bilinear(plane, h, wd, sy, sx);
                  if (v == T(0)) continue;
                  for (int64_t f = 0; f < c_out; ++f) {
                    y[((n * c_out + f) * oh + yy) * ow + xx] += v * w[((f * c_in + c) * kh_n + kh) * kw_n + kw];
                  }
                }
              }
            }
          }
        }
      }
      from_canonical(y, p.a.out_layout, p.out, out);
    }
  });
}

/// bilinear in TE: the sample of `plane(row, col)` (the data at canonical
/// row and column) at (y, x), zero outside [0, h) x [0, w) and for a NaN
/// coordinate. Inside, the corners are read at floor(y) (+ 1) and floor(x)
/// (+ 1), each under a select that holds it in the data (a corner past the
/// last row or column adds zero, which leaves the sum as the kernel's skip
/// does: the sum starts at +0 and so is never -0) and clamped there for the
/// bounds proof.
template <typename Plane>
te::Expr bilinear_te(const Plane& plane, DLDataType dt, int64_t h, int64_t w, const te::Expr& y, const te::Expr& x) {
  const te::Expr zero = te::make_const(dt, 0), one = te::make_const(dt, 1);
  te::Expr inside = te::logical_and(
      te::logical_and(y >= zero, x >= zero),
      te::logical_and(y < te::make_const(dt, static_cast<double>(h)), x < te::make_const(dt, static_cast<double>(w))));
  const te::Expr fy = te::floor(y), fx = te::floor(x);
  const te::Expr wy = y - fy, wx = x - fx;
  const te::Expr y0 = te::cast(weft::sdk::dtype::int32, fy), x0 = te::cast(weft::sdk::dtype::int32, fx);
  te::Expr val = zero;
  for (int64_t dy = 0; dy < 2; ++dy) {
    for (int64_t dx = 0; dx < 2; ++dx) {
      te::Expr row = dy ? y0 + te::Expr(1) : y0, col = dx ? x0 + te::Expr(1) : x0;
      te::Expr corner = (dy ? wy : one - wy) * (dx ? wx : one - wx) *
                        plane(te_util::clamp_index(row, h), te_util::clamp_index(col, w));
      te::Expr held;
      if (dy) held = row <= te::Expr(h - 1);
      if (dx) held = held ? te::logical_and(held, col <= te::Expr(w - 1)) : col <= te::Expr(w - 1);
      val = val + (held ? te::select(held, corner, zero) : corner);
    }
  }
  return te::select(inside, val, zero);
}

/// The TE of run_deformable, in out_dtype (float): per output element, one
/// reduction over the input channels and the taps (in that order, as the
/// kernel accumulates), a tap whose bilinear sample is zero skipped (as the
/// kernel skips it: an infinite weight there adds nothing, not NaN). Data and
/// offset are read through data_layout, the weight through kernel_layout.
std::vector<te::Tensor> deformable_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const std::string op = "nn.deformable_conv2d";
  const te::Tensor &data = in.at(0), &offset = in.at(1), &weight = in.at(2);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(op, acc, data.dtype(), weight.dtype());
  te_util::require_conv_dtypes(op, acc, offset.dtype(), weight.dtype());
  if (!te_util::is_float32_or_64(acc)) throw Unsupported(op + ": bilinear sampling needs a float out_dtype");
  const DeformablePlan p = plan_deformable(data.shape(), offset.shape(), weight.shape(), attrs);
  if (p.a.groups != 1) {
    throw Unsupported(
        op + ": the TE computes groups=1 only (as the reference kernel), got groups=" + std::to_string(p.a.groups));
  }
  te_util::require_nonempty(op, {&p.data, &p.weight, &p.out});
  std::vector<int64_t> span = {p.offset[1]};
  for (size_t d = 0; d < 2; ++d) {
    span.insert(span.end(), {te_util::saturating_mul(p.out[2 + d], p.a.strides[d]), p.a.padding[d],
                             te_util::saturating_mul(p.weight[2 + d], p.a.dilation[d]), p.data[2 + d]});
  }
  te_util::require_int32_index(
      op, {{"strides", &p.a.strides}, {"padding", &p.a.padding}, {"dilation", &p.a.dilation}}, span);
  const te_util::LayoutMap data_map(p.a.data_layout.name(), "NCHW"), out_map(p.a.out_layout.name(), "NCHW");
  const te_util::LayoutMap kernel_map(p.a.kernel_layout.name(), "OIHW");
  const int64_t c_in = p.data[1], h = p.data[2], wd = p.data[3], kh_n = p.weight[2], kw_n = p.weight[3];
  const int64_t per_dgroup = p.weight[1] / p.deformable_groups;
  auto load = [&](const te::Tensor& t, const te::Idx& i) { return te_util::load_as(acc, t, i); };
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lo) {
        te::Idx o = out_map.to_canonical(lo);  // (n, f, yy, xx)
        te::Axis c = te::reduce_axis(c_in, "rc"), kh = te::reduce_axis(kh_n, "rkh"), kw = te::reduce_axis(kw_n, "rkw");
        te::Expr oc = te::floordiv(c.var(), te::Expr(per_dgroup)) * te::Expr(kh_n * kw_n * 2) +
                      (kh.var() * te::Expr(kw_n) + kw.var()) * te::Expr(2);
        te::Expr off_y = load(offset, data_map.to_layout({o[0], oc, o[2], o[3]}));
        te::Expr off_x = load(offset, data_map.to_layout({o[0], oc + te::Expr(1), o[2], o[3]}));
        te::Expr base_y =
            o[2] * te::Expr(p.a.strides[0]) - te::Expr(p.a.padding[0]) + kh.var() * te::Expr(p.a.dilation[0]);
        te::Expr base_x =
            o[3] * te::Expr(p.a.strides[1]) - te::Expr(p.a.padding[1]) + kw.var() * te::Expr(p.a.dilation[1]);
        te::Expr sy = te::cast(acc, base_y) + off_y, sx = te::cast(acc, base_x) + off_x;
        auto plane = [&](const te::Expr& row, const te::Expr& col) {
          return load(data, data_map.to_layout({o[0], c.var(), row, col}));
        };
        te::Expr v = bilinear_te(plane, acc, h, wd, sy, sx);
        te::Expr wv = load(weight, kernel_map.to_layout({o[1], c.var(), kh.var(), kw.var()}));
        return te::sum(v * wv, {c, kh, kw}, te::not_equal(v, te::make_const(acc, 0)));
      },
      "deformable_conv2d")};
}

/// The gradient, in canonical NCHW / OIHW. A sample at (py, px) is
/// sum over (y, x) of ky(y) kx(x) data[y, x] with ky(y) = max(0, 1 - |py - y|)
/// while 0 <= py < H (zero outside, as the kernel's bilinear), likewise kx:
/// separable, so one batched matmul over the rows interpolates every channel
/// and the data's gradient is the transposed one. The offsets' gradient uses
/// each weight's slope in its position, +1 on the row above floor(py) and -1
/// on floor(py)'s (the right derivative at a row, as torchvision's).
std::vector<Expr> deformable_gradient(const Expr& c, const Expr& g) {
  const Attrs attrs = c.attrs();
  const DeformablePlan p = plan_deformable(grad::static_shape(c.arg(0), "nn.deformable_conv2d's data"),
                                           grad::static_shape(c.arg(1), "nn.deformable_conv2d's offset"),
                                           grad::static_shape(c.arg(2), "nn.deformable_conv2d's weight"), attrs);
  if (p.a.groups != 1) {
    throw Error("the gradient of nn.deformable_conv2d takes groups=1 (as its reference kernel), got groups=" +
                std::to_string(p.a.groups));
  }
  const Expr data = c.arg(0);
  const DLDataType dt = data.type().dtype();
  const int64_t n = p.data[0], channels = p.data[1], h = p.data[2], w = p.data[3];
  const int64_t out_channels = p.weight[0], kh = p.weight[2], kw = p.weight[3], oh = p.out[2], ow = p.out[3];
  const int64_t dg = p.deformable_groups, per_group = channels / dg, taps = kh * kw, pixels = oh * ow;
  const int64_t b = n * dg, samples = taps * pixels;  // (batch, offset group) pairs; (tap, pixel) pairs
  using Shape = std::vector<int64_t>;
  auto reshaped = [](const Expr& e, const Shape& shape) { return call("reshape", {e}, {{"newshape", shape}}); };
  auto transposed = [](const Expr& e, const Shape& axes) { return call("transpose", {e}, {{"axes", axes}}); };
  auto bmm = [](const Expr& a, const Expr& m, bool transpose_a) {
    return call("nn.batch_matmul", {a, m}, {{"transpose_a", transpose_a}, {"transpose_b", false}});
  };
  auto relayout = [](const Expr& e, const std::string& from, const std::string& to) {
    return from == to ? e : call("layout_transform", {e}, {{"src_layout", from}, {"dst_layout", to}});
  };
  const std::string data_layout = p.a.data_layout.name(), kernel_layout = p.a.kernel_layout.name(),
                    out_layout = p.a.out_layout.name();
  Expr x = relayout(data, data_layout, "NCHW"), offset = relayout(c.arg(1), data_layout, "NCHW");
  Expr weight = relayout(c.arg(2), kernel_layout, "OIHW");
  Expr dy = relayout(c.type().dtype() == dt ? g : grad::cast_like(g, data), out_layout, "NCHW");

  // Each sample's kernels along one axis (0: rows, 1: columns): (b, samples, extent).
  struct Kernels {
    Expr weights, slopes;
  };
  Expr offsets = reshaped(offset, {b, taps, 2, pixels});
  auto kernels = [&](size_t axis, int64_t extent) {
    std::vector<double> base(static_cast<size_t>(samples)), range(static_cast<size_t>(extent));
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t q = 0; q < pixels; ++q) {
        const int64_t tap = axis == 0 ? t / kw : t % kw, at = axis == 0 ? q / ow : q % ow;
        base[static_cast<size_t>(t * pixels + q)] =
            static_cast<double>(at * p.a.strides[axis] - p.a.padding[axis] + tap * p.a.dilation[axis]);
      }
    }
    for (int64_t i = 0; i < extent; ++i) range[static_cast<size_t>(i)] = static_cast<double>(i);
    Expr shift = call("strided_slice", {offsets}, {{"begin", Shape{static_cast<int64_t>(axis)}},
                                                    {"end", Shape{static_cast<int64_t>(axis) + 1}},
                                                    {"axes", Shape{2}}});
    Expr pos = grad::add(reshaped(shift, {b, samples, 1}), grad::constant_of({1, samples, 1}, dt, base));
    Expr at = grad::constant_of({1, 1, extent}, dt, range), zero = grad::scalar_like(data, 0.0);
    Expr inside = call("logical_and", {call("greater_equal", {pos, zero}),
                                       call("less", {pos, grad::scalar_like(data, static_cast<double>(extent))})});
    Expr tent = call("maximum", {zero, grad::sub(grad::scalar_like(data, 1.0), call("abs", {grad::sub(pos, at)}))});
    Expr row = call("floor", {pos});
    Expr slope = grad::sub(grad::cast_like(call("equal", {at, grad::add(row, grad::scalar_like(data, 1.0))}), data),
                           grad::cast_like(call("equal", {at, row}), data));
    return Kernels{grad::where(inside, tent, zero), grad::where(inside, slope, zero)};
  };
  const Kernels ky = kernels(0, h), kx = kernels(1, w);

  // The data as (b, H, per_group * W): rows first, for the row kernels.
  Expr planes = reshaped(transposed(reshaped(x, {b, per_group, h, w}), {0, 2, 1, 3}), {b, h, per_group * w});
  Expr rows = reshaped(bmm(ky.weights, planes, false), {b, samples, per_group, w});
  Expr kx4 = reshaped(kx.weights, {b, samples, 1, w});
  Expr sampled = call("sum", {grad::mul(rows, kx4)}, {{"axis", Shape{3}}});  // (b, samples, per_group)
  Expr columns = reshaped(transposed(reshaped(sampled, {n, dg, taps, pixels, per_group}), {0, 1, 4, 2, 3}),
                          {n, channels * taps, pixels});

  // out[n, o, q] = sum over (c, tap) of weight[o, c, tap] columns[n, (c, tap), q].
  Expr dy_by_channel = reshaped(transposed(reshaped(dy, {n, out_channels, pixels}), {1, 0, 2}),
                                {out_channels, n * pixels});
  Expr d_weight = reshaped(call("nn.dense", {dy_by_channel, reshaped(transposed(columns, {1, 0, 2}),
                                                                       {channels * taps, n * pixels})}),
                           p.weight);
  Expr d_columns = call("nn.matmul", {reshaped(weight, {out_channels, channels * taps}), dy_by_channel},
                        {{"transpose_a", true}, {"transpose_b", false}});
  Expr d_sampled = reshaped(transposed(reshaped(d_columns, {dg, per_group, taps, n, pixels}), {3, 0, 2, 4, 1}),
                            {b, samples, per_group, 1});

  Expr spread = reshaped(grad::mul(d_sampled, kx4), {b, samples, per_group * w});
  Expr d_data = reshaped(transposed(reshaped(bmm(ky.weights, spread, true), {b, h, per_group, w}), {0, 2, 1, 3}),
                         p.data);
  Expr d_row = call("sum", {grad::mul(spread, bmm(ky.slopes, planes, false))}, {{"axis", Shape{2}}});
  Expr d_col = call("sum", {grad::mul(grad::mul(d_sampled, reshaped(kx.slopes, {b, samples, 1, w})), rows)},
                    {{"axis", Shape{2, 3}}});
  Expr d_offset = reshaped(call("concatenate", {tuple({reshaped(d_row, {b, taps, 1, pixels}),
                                                       reshaped(d_col, {b, taps, 1, pixels})})},
                                {{"axis", int64_t{2}}}),
                           p.offset);
  return {relayout(d_data, "NCHW", data_layout), relayout(d_offset, "NCHW", data_layout),
          relayout(d_weight, "OIHW", kernel_layout)};
}

// ---- correlation ------------------------------------------------------------------

struct CorrelationPlan {
  std::vector<int64_t> data, out;
  int64_t kernel = 1, max_displacement = 1, stride1 = 1, stride2 = 1;
  std::vector<int64_t> padding;
};

CorrelationPlan plan_correlation(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const Attrs& attrs) {
  CorrelationPlan p;
  if (attrs.get_string("layout") != "NCHW") {
    throw Error("layout '" + attrs.get_string("layout") + "' is not supported; the reference computes NCHW only");
  }
  if (a.size() != 4 || a != b) {
    throw Error("expects two NCHW tensors of one shape, got " + shape_str(a) + " and " + shape_str(b));
  }
  p.kernel = attrs.get_int("kernel_size");
  p.max_displacement = attrs.get_int("max_displacement");
  p.stride1 = attrs.get_int("stride1");
  p.stride2 = attrs.get_int("stride2");
  p.padding = attrs.get_ints("padding");
  if (p.kernel < 1 || p.kernel % 2 == 0) throw Error("kernel_size must be a positive odd number, got " + std::to_string(p.kernel));
  if (p.max_displacement < 0 || p.stride1 < 1 || p.stride2 < 1) {
    throw Error("max_displacement must be >= 0 and the strides >= 1, got max_displacement=" +
                std::to_string(p.max_displacement) + ", stride1=" + std::to_string(p.stride1) +
                ", stride2=" + std::to_string(p.stride2));
  }
  const int64_t border = p.max_displacement + (p.kernel - 1) / 2;
  const int64_t size = 2 * (p.max_displacement / p.stride2) + 1;
  std::vector<int64_t> pads = pad_totals(p.padding);
  p.data = a;
  p.out = {a[0], size * size};
  for (size_t i = 0; i < 2; ++i) {
    int64_t in = a[2 + i];
    if (!known(in)) {
      p.out.push_back(WEFT_DIM_ANY);
      continue;
    }
    int64_t extent = (in + pads[i] - 2 * border + p.stride1 - 1) / p.stride1;
    if (extent < 1) throw Error("the padded input " + shape_str(a) + " is smaller than the correlation's border");
    p.out.push_back(extent);
  }
  return p;
}

Type correlation_relation(const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "data1, data2");
  return Type::tensor(plan_correlation(args[0].shape(), args[1].shape(), attrs).out, args[0].dtype());
}

/// out[n, q, i, j] = sum over c and the k x k patch of f(d1[y1 + ry, x1 + rx],
/// d2[y2 + ry, x2 + rx]) / (k * k * C), in zero-padded inputs, with (y1, x1)
/// = (i, j) * stride1 + max_displacement and (y2, x2) displaced by q's offset * stride2.
void correlation_kernel(const KernelArgs& k) {
  const TensorView &a = k.inputs.at(0), &b = k.inputs.at(1), &out = k.outputs.at(0);
  CorrelationPlan p = plan_correlation(a.shape(), b.shape(), k.attrs);
  const bool multiply = k.attrs.get_bool("is_multiply");
  dispatch_accumulator("nn.correlation", out, [&]<typename T>() {
    std::vector<T> d1 = read_as<T>(a), d2 = read_as<T>(b);
    const int64_t batch = p.data[0], channels = p.data[1], h = p.data[2], w = p.data[3];
    const int64_t oc = p.out[1], oh = p.out[2], ow = p.out[3];
    const int64_t radius = p.max_displacement / p.stride2, size = 2 * radius + 1;
    // An element of the padded input: zero in the padding.
    auto at = [&](const std::vector<T>& d, int64_t n, int64_t c, int64_t y, int64_t x) {
      y -= p.padding[0];
      x -= p.padding[1];
      return (y < 0 || y >= h || x < 0 || x >= w) ? T(0) : d[((n * channels + c) * h + y) * w + x];
    };
    T* o = out.data<T>();
    const T norm = static_cast<T>(p.kernel * p.kernel * channels);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t q = 0; q < oc; ++q) {
        for (int64_t i = 0; i < oh; ++i) {
          for (int64_t j = 0; j < ow; ++j) {
            const int64_t y1 = i * p.stride1 + p.max_displacement, x1 = j * p.stride1 + p.max_displacement;
            const int64_t y2 = y1 + (q / size - radius) * p.stride2, x2 = x1 + (q % size - radius) * p.stride2;
            T acc = 0;
            for (int64_t c = 0; c < channels; ++c) {
              for (int64_t ry = 0; ry < p.kernel; ++ry) {
                for (int64_t rx = 0; rx < p.kernel; ++rx) {
                  T u = at(d1, n, c, y1 + ry, x1 + rx), v = at(d2, n, c, y2 + ry, x2 + rx);
                  acc += multiply ? u * v : (u > v ? u - v : v - u);
                }
              }
            }
            o[((n * oc + q) * oh + i) * ow + j] = acc / norm;
          }
        }
      }
    }
  });
}

/// The TE of correlation_kernel: both inputs zero-padded (the kernel reads
/// padding as zero values), the sum over channels and the patch, divided by
/// the patch's size.
std::vector<te::Tensor> correlation_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor &a = in.at(0), &b = in.at(1);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes("nn.correlation", acc, a.dtype(), b.dtype());
  const CorrelationPlan p = plan_correlation(a.shape(), b.shape(), attrs);
  te_util::require_nonempty("nn.correlation", {&p.data});
  const bool multiply = attrs.get_bool("is_multiply");
  const int64_t radius = p.max_displacement / p.stride2, size = 2 * radius + 1;
  // The padded extent the farthest patch of the second input reaches.
  std::vector<int64_t> before = {0, 0, p.padding[0], p.padding[1]}, after = {0, 0, 0, 0};
  for (size_t d = 0; d < 2; ++d) {
    const int64_t reach =
        (p.out[2 + d] - 1) * p.stride1 + p.max_displacement + radius * p.stride2 + p.kernel;  // an extent
    after[2 + d] = std::max<int64_t>(reach - p.padding[d] - p.data[2 + d], 0);
  }
  auto padded = [&](const te::Tensor& t, const char* name) {
    te::Tensor c = t.dtype() == acc ? t : te::compute(t.shape(), [&](const te::Idx& i) { return te::cast(acc, t(i)); }, "cast");
    return te::pad(c, before, after, te::make_const(acc, 0.0), name);
  };
  const te::Tensor pa = padded(a, "pad_a"), pb = padded(b, "pad_b");
  te::Tensor sum = te::compute(
      p.out,
      [&](const te::Idx& o) {
        te::Axis c = te::reduce_axis(p.data[1], "c"), ry = te::reduce_axis(p.kernel, "ry"),
                 rx = te::reduce_axis(p.kernel, "rx");
        te::Expr y1 = o[2] * te::Expr(p.stride1) + te::Expr(p.max_displacement);
        te::Expr x1 = o[3] * te::Expr(p.stride1) + te::Expr(p.max_displacement);
        te::Expr y2 = y1 + (te::floordiv(o[1], te::Expr(size)) - te::Expr(radius)) * te::Expr(p.stride2);
        te::Expr x2 = x1 + (te::floormod(o[1], te::Expr(size)) - te::Expr(radius)) * te::Expr(p.stride2);
        te::Expr u = pa(o[0], c, y1 + ry.var(), x1 + rx.var()), v = pb(o[0], c, y2 + ry.var(), x2 + rx.var());
        return te::sum(multiply ? u * v : te::select(u > v, u - v, v - u), {c, ry, rx});
      },
      "correlation_sum");
  te::Expr norm = te::make_const(acc, static_cast<double>(p.kernel * p.kernel * p.data[1]));
  return {te::compute(p.out, [&](const te::Idx& o) { return sum(o) / norm; }, "correlation")};
}

}  // namespace

void register_conv_special_ops(Registrar& reg) {
  OpBuilder& bw = reg.op("nn.conv2d_backward_weight")
                      .describe("The gradient of conv2d with respect to its weight, from the output gradient and the "
                                "original data. Relay reuses conv2d's attrs: data_layout is the gradient's layout, "
                                "kernel_layout the data's and out_layout the weight's. kernel_size must be set.")
                      .input("grad", "Tensor", "The gradient of conv2d's output.")
                      .input("data", "Tensor", "conv2d's input.")
                      .support_level(2)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  window_attrs(bw, 2);
  bw.attr("groups", int64_t{1}, "conv2d's groups.", "an int >= 1");
  channel_attrs(bw, 2);
  // Conv2DAttrs' fields hold the three layouts; left out of text they have its
  // defaults (kernel_layout OIHW, out_layout ""), not the Python wrapper's.
  bw.attr("data_layout", std::string("NCHW"), "The gradient's layout.", "a layout such as NCHW")
      .attr("kernel_layout", std::string("NCHW"), "The data's layout.", "a layout such as NCHW")
      .text_default(std::string("OIHW"))
      .attr("out_layout", std::string("OIHW"), "The weight's (the result's) layout.", "a layout such as OIHW")
      .text_default(std::string());
  out_dtype_attr(bw);
  bw.type_relation(backward_weight_relation)
      .kernel(backward_weight_kernel)
      .te_compute(backward_weight_te)
      .gradient(conv2d_backward_weight_gradient);

  OpBuilder& dc = reg.op("nn.deformable_conv2d")
                      .describe("Deformable 2D convolution (arXiv:1703.06211): each kernel tap samples the data "
                                "bilinearly at its regular position plus a learned (dy, dx) offset. offset is (batch, "
                                "2 * kh * kw * deformable_groups, out_height, out_width) in data_layout; input "
                                "channels are split evenly among deformable_groups, each with its own offsets.")
                      .input("data", "Tensor", "The input.")
                      .input("offset", "Tensor", "The sampling offsets, (dy, dx) pairs per tap.")
                      .input("weight", "Tensor", "The kernel.")
                      .support_level(5)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
                      .is_layout_layer();
  window_attrs(dc, 2);
  dc.attr("deformable_groups", int64_t{1}, "The number of offset groups.", "an int >= 1")
      .attr("groups", int64_t{1}, "The number of groups (the reference computes 1).", "an int >= 1")
      .attr_optional("channels", WEFT_ATTR_INT, "The number of output channels; inferred from the weight when None.",
                     "None or an int >= 1")
      .attr("kernel_size", WEFT_ATTR_ANY, Value(std::vector<int64_t>{3, 3}),
            "The kernel's spatial size; None (the reference's C++ default, read from text) takes the weight's.",
            "an int or a list of 2 ints >= 1")
      .normalize([](const Value& v) { return int_tuple(v, 2, 1); })
      .text_default(Value::none());
  layout_attrs(dc, "NCHW", "OIHW");
  out_dtype_attr(dc);
  dc.type_relation(deformable_relation)
      .prepared_kernel(prepare_deformable, run_deformable)
      .infer_layout(deformable_layouts)
      .convert_layout(convert_deformable)
      .gradient(deformable_gradient)
      .te_compute(deformable_te);

  reg.op("nn.correlation")
      .describe("FlowNet's correlation of two feature maps: out[n, q, i, j] compares the k x k patch of data1 at "
                "(i, j) * stride1 + max_displacement with the patch of data2 displaced by the q-th of (2 * "
                "(max_displacement / stride2) + 1)^2 offsets (steps of stride2), by product or absolute "
                "difference, summed over channels and divided by k * k * channels.")
      .input("data1", "Tensor", "The first NCHW feature map.")
      .input("data2", "Tensor", "The second NCHW feature map, of the same shape.")
      .attr("kernel_size", int64_t{1}, "The patch size (odd).", "a positive odd int")
      .attr("max_displacement", int64_t{1}, "The largest displacement compared.", "an int >= 0")
      .attr("stride1", int64_t{1}, "The stride over data1's positions.", "an int >= 1")
      .attr("stride2", int64_t{1}, "The step between compared displacements.", "an int >= 1")
      .attr("padding", WEFT_ATTR_ANY, Value(std::vector<int64_t>{0, 0, 0, 0}),
            "Zero padding of both inputs: an int, (h, w) or (top, left, bottom, right).",
            "an int or a list of 2 or 4 ints >= 0")
      .normalize([](const Value& v) { return pad_tuple(v, 2); })
      .attr("is_multiply", true, "Compare by product (true) or by absolute difference (false).")
      .attr("layout", std::string("NCHW"), "The layout of both inputs (NCHW only).", "NCHW")
      .support_level(2)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(correlation_relation)
      .kernel(correlation_kernel)
      .te_compute(correlation_te);
}

}  // namespace weft_nn::conv
