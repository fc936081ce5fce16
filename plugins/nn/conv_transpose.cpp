// nn.conv1d_transpose, nn.conv2d_transpose, nn.conv3d_transpose: the
// gradient-of-convolution ("deconvolution") as Relay's Conv{1,2,3}DTransposeRel
// and TOPI's (group_)conv*_transpose computes, weights in IOW/IOHW/IODHW.
#include "conv_common.h"
#include "conv_gradient.h"
#include "te_util.h"

namespace weft_nn::conv {

namespace {

using namespace weft::sdk;

struct TransposePlan {
  ConvAttrs a;
  std::vector<int64_t> data, weight, out;  // canonical shapes (weight in IOHW order)
};

TransposePlan plan_transpose(const ConvAttrs& a, const std::vector<int64_t>& data_shape,
                             const std::vector<int64_t>& weight_shape) {
  ConvAttrs::Operands operands = a.check_operands(data_shape, weight_shape, /*depthwise_rule=*/false);
  const std::string& shapes = operands.shapes;
  TransposePlan p{a, std::move(operands.data), std::move(operands.weight), {}};
  const std::vector<int64_t>& w = p.weight;
  p.out = {p.data[0], operands.out_channels};
  std::vector<int64_t> pads = pad_totals(a.padding);
  for (size_t i = 0; i < a.kind.dims; ++i) {
    if (a.output_padding[i] >= a.strides[i] && a.output_padding[i] >= a.dilation[i]) {
      throw Error("output_padding " + shape_str(a.output_padding) + " must be smaller than strides " +
                  shape_str(a.strides) + " (or dilation) on every axis" + shapes);
    }
    int64_t in = p.data[2 + i], k = w[2 + i];
    if (!known(in, k)) {
      p.out.push_back(WEFT_DIM_ANY);
      continue;
    }
    const int64_t dilated = dilated_extent(k, a.dilation[i]);
    int64_t size = weft::sdk::checked_field("strides", [&] {
      return (CheckedInt(a.strides[i]) * (in - 1) + dilated - pads[i] + a.output_padding[i]).value();
    });
    if (size < 1) {
      throw Error("spatial axis " + std::to_string(i) + ": padding " + shape_str(a.padding) +
                  " leaves no output" + shapes);
    }
    p.out.push_back(size);
  }
  return p;
}

Type transpose_relation(const ConvKind& kind, const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "data, weight");
  TransposePlan p = plan_transpose(ConvAttrs::read(kind, attrs), args[0].shape(), args[1].shape());
  return p.a.output_type(p.out, args[0]);
}

/// Each input element x[n, c, pos] adds x * w[c, o', k] to
/// y[n, group(c) * O' + o', pos*stride - pad + k*dilation] where that is inside y.
template <typename T>
void conv_transpose(const TransposePlan& p, const std::vector<T>& x, const std::vector<T>& w, std::vector<T>& y) {
  const size_t dims = p.data.size() - 2;
  std::vector<int64_t> pad_before(p.a.padding.begin(), p.a.padding.begin() + static_cast<std::ptrdiff_t>(dims));
  std::array<Window, 3> s =
      windows(spatial(p.data), spatial(p.weight), spatial(p.out), p.a.strides, pad_before, p.a.dilation);
  const int64_t batch = p.data[0], in_c = p.data[1], out_c = p.out[1];
  const int64_t in_per_group = in_c / p.a.groups, out_per_group = out_c / p.a.groups;
  const int64_t in_plane = s[0].in * s[1].in * s[2].in, out_plane = s[0].out * s[1].out * s[2].out;
  const int64_t k_plane = s[0].kernel * s[1].kernel * s[2].kernel;
  std::fill(y.begin(), y.end(), T(0));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < in_c; ++c) {
      const T* xc = x.data() + (n * in_c + c) * in_plane;
      for (int64_t oj = 0; oj < out_per_group; ++oj) {
        const int64_t o = (c / in_per_group) * out_per_group + oj;
        T* yo = y.data() + (n * out_c + o) * out_plane;
        const T* wc = w.data() + (c * out_per_group + oj) * k_plane;
        for (int64_t id = 0; id < s[0].in; ++id) {
          for (int64_t ih = 0; ih < s[1].in; ++ih) {
            for (int64_t iw = 0; iw < s[2].in; ++iw) {
              const T v = xc[(id * s[1].in + ih) * s[2].in + iw];
              for (int64_t kd = 0; kd < s[0].kernel; ++kd) {
                int64_t od = id * s[0].stride - s[0].pad_before + kd * s[0].dilation;
                if (od < 0 || od >= s[0].out) continue;
                for (int64_t kh = 0; kh < s[1].kernel; ++kh) {
                  int64_t oh = ih * s[1].stride - s[1].pad_before + kh * s[1].dilation;
                  if (oh < 0 || oh >= s[1].out) continue;
                  for (int64_t kw = 0; kw < s[2].kernel; ++kw) {
                    int64_t ow = iw * s[2].stride - s[2].pad_before + kw * s[2].dilation;
                    if (ow < 0 || ow >= s[2].out) continue;
                    yo[(od * s[1].out + oh) * s[2].out + ow] += v * wc[(kd * s[1].kernel + kh) * s[2].kernel + kw];
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

/// A call's plan, once per call site (the kernel is prepared).
auto prepare_transpose(const ConvKind& kind) {
  return [kind](const std::vector<Type>& args, const Attrs& attrs) {
    return plan_transpose(ConvAttrs::read(kind, attrs), args.at(0).shape(), args.at(1).shape());
  };
}

void run_transpose(const TransposePlan& p, const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
  dispatch_accumulator(p.a.kind.op, out, [&]<typename T>() {
    std::vector<T> x = to_canonical<T>(data, p.a.data_layout, p.data);
    std::vector<T> w = to_canonical<T>(weight, p.a.kernel_layout, p.weight);
    std::vector<T> y(static_cast<size_t>(out.numel()));
    conv_transpose(p, x, w, y);
    from_canonical(y, p.a.out_layout, p.out, out);
  });
}

/// The transposed conv as a gather in conv_transpose's order: output
/// element (n, o, pos) sums x[n, c, i] * w[c, o', k] over the group's input
/// channels c and, per spatial axis, the inputs i with i * stride - pad + k *
/// dilation = pos (increasing i: the kernel's scatter order), each axis a
/// reduce axis over the few i that can reach pos, conditioned on one doing so
/// (reads clamped into their axes, where they lie then).
std::vector<te::Tensor> transpose_te(const ConvKind& kind, const std::vector<te::Tensor>& in, const Attrs& attrs,
                                     const Type& out) {
  const te::Tensor &x = in.at(0), &wt = in.at(1);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(kind.op, acc, x.dtype(), wt.dtype());
  const TransposePlan p = plan_transpose(ConvAttrs::read(kind, attrs), x.shape(), wt.shape());
  te_util::require_nonempty(kind.op, {&p.data, &p.out});
  const size_t dims = p.data.size() - 2;
  const te_util::LayoutMap data_map(p.a.data_layout.name(), kind.data_canon);
  const te_util::LayoutMap kernel_map(p.a.kernel_layout.name(), kind.kernel_canon);
  const te_util::LayoutMap out_map(p.a.out_layout.name(), kind.data_canon);
  const int64_t in_c = p.data[1], out_c = p.out[1];
  const int64_t in_per_group = in_c / p.a.groups, out_per_group = out_c / p.a.groups;
  auto load = [&](const te::Tensor& t, const te::Idx& i) { return te_util::load_as(acc, t, i); };
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lo) {
        te::Idx o = out_map.to_canonical(lo);
        std::vector<te::Axis> r;
        r.push_back(te::reduce_axis(in_per_group, "rc"));
        te::Expr ci = r[0].var();
        te::Expr oj = out_per_group == 1 ? te::Expr(0) : te::floormod(o[1], te::Expr(out_per_group));
        te::Expr channel = p.a.groups == 1 ? ci
                           : out_per_group == 1
                               ? o[1] * te::Expr(in_per_group) + ci
                               : te::floordiv(o[1], te::Expr(out_per_group)) * te::Expr(in_per_group) + ci;
        if (out_per_group == out_c) oj = o[1];
        te::Idx xi = {o[0], channel}, wi = {channel, oj};
        te::Expr cond;
        auto require = [&](const te::Expr& c) { cond = cond.get() ? te::logical_and(cond, c) : c; };
        for (size_t d = 0; d < dims; ++d) {
          const int64_t s = p.a.strides[d], pad = p.a.padding[d], dil = p.a.dilation[d], extent = p.data[2 + d];
          const int64_t k = p.weight[2 + d], span = (k - 1) * dil;
          // t = pos + pad; the inputs reaching it: i in [ceil((t - span) / s), floor(t / s)].
          te::Expr t = pad ? o[2 + d] + te::Expr(pad) : o[2 + d];
          te::Expr first = s == 1 ? t - te::Expr(span) : te::floordiv(t - te::Expr(span) + te::Expr(s - 1), te::Expr(s));
          r.push_back(te::reduce_axis(span / s + 1, "r" + std::to_string(d)));
          te::Expr i = first + r.back().var();
          te::Expr tap = t - i * te::Expr(s);  // k * dilation
          require(te::logical_and(i >= 0, i < te::Expr(extent)));
          require(tap >= 0);
          if (dil > 1) require(equal(te::floormod(tap, te::Expr(dil)), te::Expr(0)));
          xi.push_back(te_util::clamp(i, 0, extent - 1));
          wi.push_back(te_util::clamp(dil == 1 ? tap : te::floordiv(tap, te::Expr(dil)), 0, k - 1));
        }
        return te::sum(load(x, data_map.to_layout(xi)) * load(wt, kernel_map.to_layout(wi)), r, cond);
      },
      kind.op + 3)};
}

OpBuilder& register_transpose(Registrar& reg, const ConvKind& kind, const std::string& doc) {
  const size_t n = kind.dims;
  OpBuilder& op = reg.op(kind.op)
                      .describe(doc)
                      .input("data", "Tensor", std::string("The input, in data_layout (default ") + kind.data_canon + ").")
                      .input("weight", "Tensor",
                             std::string("The kernel, in kernel_layout (default ") + kind.kernel_canon + ").")
                      .support_level(2)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  channel_attrs(op, n);
  stride_pad_attrs(op, n);
  // Relay's attrs order puts output_padding between padding and dilation.
  op.attr("output_padding", WEFT_ATTR_ANY, Value(std::vector<int64_t>(n, 0)),
          "Extra size added to one side of each spatial output axis.",
          "an int or a list of " + std::to_string(n) + " ints >= 0")
      .normalize([n](const Value& v) { return int_tuple(v, n, 0); });
  dilation_attr(op, n);
  op.attr("groups", int64_t{1}, "The number of groups.", "an int >= 1");
  layout_attrs(op, kind.data_canon, kind.kernel_canon);
  out_dtype_attr(op);
  layout_hooks(op, kind);
  return op.type_relation(
        [kind](const std::vector<Type>& args, const Attrs& attrs) { return transpose_relation(kind, args, attrs); })
      .prepared_kernel(prepare_transpose(kind), run_transpose)
      .te_compute([kind](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        return transpose_te(kind, in, attrs, out);
      });
}

}  // namespace

void register_conv_transpose_ops(Registrar& reg) {
  register_transpose(reg, kConv1dTranspose,
                     "Transposed 1D convolution. data (batch, in_channels, width) in NCW, weight (in_channels, "
                     "channels/groups, kernel_size) in IOW; out_width = (width-1)*stride - pad_left - pad_right + "
                     "dilated_kernel + output_padding.")
      .gradient(conv_transpose_gradient);
  register_transpose(reg, kConv2dTranspose,
                     "Transposed 2D convolution (deconvolution). data (batch, in_channels, height, width) in NCHW, "
                     "weight (in_channels, channels/groups, kh, kw) in IOHW; out_height = (height-1)*stride_h - "
                     "pad_top - pad_bottom + dilated_kh + output_padding[0].")
      .gradient(conv_transpose_gradient);
  register_transpose(reg, kConv3dTranspose,
                     "Transposed 3D convolution. data (batch, in_channels, depth, height, width) in NCDHW, weight "
                     "(in_channels, channels/groups, kd, kh, kw) in IODHW.")
      .gradient(conv_transpose_gradient);
}

}  // namespace weft_nn::conv
