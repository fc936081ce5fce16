// nn.conv1d, nn.conv2d, nn.conv3d: grouped, strided, padded, dilated
// convolution in any layout convertible from NCW/NCHW/NCDHW (weights from
// OIW/OIHW/OIDHW), as Relay's Conv{1,2,3}DRel and TOPI's conv computes.
// Registers the sibling conv families too.
#include "conv_common.h"
#include "conv_gradient.h"
#include "nn_ops.h"
#include "te_util.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;
using namespace conv;

/// Everything a conv's relation decides, in canonical (NCHW / OIHW) order.
struct ConvPlan {
  ConvAttrs a;
  std::vector<int64_t> data, weight, out;  // canonical shapes; weight as the kernel reads it
};

ConvPlan plan_conv(const ConvAttrs& a, const std::vector<int64_t>& data_shape,
                   const std::vector<int64_t>& weight_shape) {
  ConvAttrs::Operands operands = a.check_operands(data_shape, weight_shape, /*depthwise_rule=*/true);
  ConvPlan p{a, std::move(operands.data), std::move(operands.weight), {}};
  p.out = {p.data[0], operands.out_channels};
  std::vector<int64_t> out = a.out_extents(spatial(p.data), spatial(p.weight), operands.shapes);
  p.out.insert(p.out.end(), out.begin(), out.end());
  return p;
}

/// `channels_required`: Relay types contrib_conv2d_NCHWc with Conv2DWinogradRel,
/// which needs channels and kernel_size given (a layout pass sets them).
Type conv_relation(const ConvKind& kind, const std::vector<Type>& args, const Attrs& attrs,
                   bool channels_required = false) {
  expect_tensors(args, 2, "data, weight");
  ConvAttrs a = ConvAttrs::read(kind, attrs);
  if (channels_required) a.require_channels_and_kernel_size("data shape " + shape_str(args[0].shape()));
  ConvPlan p = plan_conv(a, args[0].shape(), args[1].shape());
  return p.a.output_type(p.out, args[0]);
}

/// y[n, o, ...] = sum over the group's input channels c and taps k of
/// x[n, c, pos*stride - pad + k*dilation] * w[o, c, k] (zero outside x).
template <typename T>
void conv_forward(const ConvPlan& p, const std::vector<T>& x, const std::vector<T>& w, std::vector<T>& y) {
  const size_t dims = p.data.size() - 2;
  std::vector<int64_t> pad_before(p.a.padding.begin(), p.a.padding.begin() + static_cast<std::ptrdiff_t>(dims));
  std::array<Window, 3> s =
      windows(spatial(p.data), spatial(p.weight), spatial(p.out), p.a.strides, pad_before, p.a.dilation);
  const int64_t batch = p.data[0], in_c = p.data[1], out_c = p.out[1];
  const int64_t in_per_group = in_c / p.a.groups, out_per_group = out_c / p.a.groups;
  const int64_t in_plane = s[0].in * s[1].in * s[2].in, k_plane = s[0].kernel * s[1].kernel * s[2].kernel;
  int64_t yi = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t o = 0; o < out_c; ++o) {
      const int64_t c0 = (o / out_per_group) * in_per_group;
      for (int64_t od = 0; od < s[0].out; ++od) {
        for (int64_t oh = 0; oh < s[1].out; ++oh) {
          for (int64_t ow = 0; ow < s[2].out; ++ow) {
            T acc = 0;
            for (int64_t ci = 0; ci < in_per_group; ++ci) {
              const T* xc = x.data() + ((n * in_c) + c0 + ci) * in_plane;
              const T* wc = w.data() + (o * in_per_group + ci) * k_plane;
              for (int64_t kd = 0; kd < s[0].kernel; ++kd) {
                int64_t id = od * s[0].stride - s[0].pad_before + kd * s[0].dilation;
                if (id < 0 || id >= s[0].in) continue;
                for (int64_t kh = 0; kh < s[1].kernel; ++kh) {
                  int64_t ih = oh * s[1].stride - s[1].pad_before + kh * s[1].dilation;
                  if (ih < 0 || ih >= s[1].in) continue;
                  for (int64_t kw = 0; kw < s[2].kernel; ++kw) {
                    int64_t iw = ow * s[2].stride - s[2].pad_before + kw * s[2].dilation;
                    if (iw < 0 || iw >= s[2].in) continue;
                    acc += xc[(id * s[1].in + ih) * s[2].in + iw] *
                           wc[(kd * s[1].kernel + kh) * s[2].kernel + kw];
                  }
                }
              }
            }
            y[yi++] = acc;
          }
        }
      }
    }
  }
}

/// A call's plan, once per call site (the kernel is prepared).
auto prepare_conv(const ConvKind& kind) {
  return [kind](const std::vector<Type>& args, const Attrs& attrs) {
    return plan_conv(ConvAttrs::read(kind, attrs), args.at(0).shape(), args.at(1).shape());
  };
}

void run_conv(const ConvPlan& p, const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
  dispatch_accumulator(p.a.kind.op, out, [&]<typename T>() {
    std::vector<T> x = to_canonical<T>(data, p.a.data_layout, p.data);
    std::vector<T> w = to_canonical<T>(weight, p.a.kernel_layout, p.a.kernel_layout.to_canonical(weight.shape()));
    std::vector<T> y(static_cast<size_t>(out.numel()));
    conv_forward(p, x, w, y);
    from_canonical(y, p.a.out_layout, p.out, out);
  });
}

/// The conv as conv_forward computes it, in out_dtype: one reduction over
/// the group's input channels and the taps (in that order), a tap outside the
/// data skipped by the reduction's condition (its read clamped into the data,
/// where it lies then), data and weight read through their layouts.
std::vector<te::Tensor> conv_te(const ConvKind& kind, const std::vector<te::Tensor>& in, const Attrs& attrs,
                                const Type& out) {
  const te::Tensor &x = in.at(0), &wt = in.at(1);
  const DLDataType acc = out.dtype();
  te_util::require_conv_dtypes(kind.op, acc, x.dtype(), wt.dtype());
  const ConvPlan p = plan_conv(ConvAttrs::read(kind, attrs), x.shape(), wt.shape());
  te_util::require_nonempty(kind.op, {&p.data, &p.out});
  const size_t dims = p.data.size() - 2;
  const te_util::LayoutMap data_map(p.a.data_layout.name(), kind.data_canon);
  const te_util::LayoutMap kernel_map(p.a.kernel_layout.name(), kind.kernel_canon);
  const te_util::LayoutMap out_map(p.a.out_layout.name(), kind.data_canon);
  // The weight's own canonical shape; the kernel reads it flat as p.weight.
  const std::vector<int64_t> wshape = p.a.kernel_layout.to_canonical(wt.shape());
  const bool same_weight = wshape == p.weight;
  const int64_t in_c = p.data[1], out_c = p.out[1];
  const int64_t in_per_group = in_c / p.a.groups, out_per_group = out_c / p.a.groups;
  auto load = [&](const te::Tensor& t, const te::Idx& i) { return te_util::load_as(acc, t, i); };
  return {te::compute(
      out.shape(),
      [&](const te::Idx& lo) {
        te::Idx o = out_map.to_canonical(lo);
        std::vector<te::Axis> r;
        r.push_back(te::reduce_axis(in_per_group, "rc"));
        for (size_t d = 0; d < dims; ++d) r.push_back(te::reduce_axis(p.weight[2 + d], "r" + std::to_string(d)));
        te::Expr ci = r[0].var();
        te::Expr channel = p.a.groups == 1 ? ci
                           : in_per_group == 1
                               ? te::floordiv(o[1], te::Expr(out_per_group))
                               : te::floordiv(o[1], te::Expr(out_per_group)) * te::Expr(in_per_group) + ci;
        te::Idx xi = {o[0], channel};
        te::Expr cond;
        for (size_t d = 0; d < dims; ++d) {
          const int64_t stride = p.a.strides[d], pad = p.a.padding[d], dil = p.a.dilation[d], extent = p.data[2 + d];
          const int64_t kernel = p.weight[2 + d];
          te::Expr pos = stride == 1 ? o[2 + d] : o[2 + d] * te::Expr(stride);
          if (pad) pos = pos - te::Expr(pad);
          pos = pos + (dil == 1 ? r[1 + d].var() : r[1 + d].var() * te::Expr(dil));
          // Whether a tap can leave the data: the first reaches back past 0, the last past the end.
          const int64_t out_extent = p.out[2 + d];
          const bool low = pad > 0, high = (out_extent - 1) * stride - pad + (kernel - 1) * dil > extent - 1;
          if (low || high) {
            te::Expr inside = low && high ? te::logical_and(pos >= 0, pos < te::Expr(extent))
                              : low       ? pos >= 0
                                          : pos < te::Expr(extent);
            cond = cond.get() ? te::logical_and(cond, inside) : inside;
            pos = te_util::clamp(pos, 0, extent - 1);
          }
          xi.push_back(pos);
        }
        te::Idx wi = {o[1], ci};
        for (size_t d = 0; d < dims; ++d) wi.push_back(r[1 + d].var());
        if (!same_weight) {
          // A depthwise weight (C, multiplier, k...) read flat as (C * multiplier, 1, k...).
          wi = te_util::unravel(te_util::ravel(wi, p.weight), wshape);
        }
        return te::sum(load(x, data_map.to_layout(xi)) * load(wt, kernel_map.to_layout(wi)), r, cond);
      },
      kind.op + 3)};
}

OpBuilder& register_conv(Registrar& reg, const ConvKind& kind, const std::string& doc) {
  OpBuilder& op = reg.op(kind.op)
                      .describe(doc)
                      .input("data", "Tensor", std::string("The input, in data_layout (default ") + kind.data_canon + ").")
                      .input("weight", "Tensor",
                             std::string("The kernel, in kernel_layout (default ") + kind.kernel_canon + ").")
                      .support_level(2)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  window_attrs(op, kind.dims);
  op.attr("groups", int64_t{1}, "The number of groups: input and output channels are split into this many.",
          "an int >= 1");
  channel_attrs(op, kind.dims);
  layout_attrs(op, kind.data_canon, kind.kernel_canon);
  out_dtype_attr(op);
  layout_hooks(op, kind);
  return op
      .type_relation(
          [kind](const std::vector<Type>& args, const Attrs& attrs) { return conv_relation(kind, args, attrs); })
      .prepared_kernel(prepare_conv(kind), run_conv)
      .te_compute([kind](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        return conv_te(kind, in, attrs, out);
      });
}

/// The blocked-layout convs of Relay's AlterOpLayout: contrib_conv2d_NCHWc
/// (typed as Conv2DWinogradRel types it: channels and kernel_size required)
/// and contrib_depthwise_conv2d_NCHWc (typed as conv2d).
void register_blocked_conv(Registrar& reg, const ConvKind& kind, bool needs_channels, const std::string& doc) {
  OpBuilder& op = reg.op(kind.op)
                      .describe(doc)
                      .input("data", "Tensor", "The input, in data_layout (default NCHW8c).")
                      .input("weight", "Tensor", "The kernel, in kernel_layout (e.g. OIHW8i8o).")
                      .support_level(10)
                      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  window_attrs(op, 2);
  op.attr("groups", int64_t{1}, "The number of groups.", "an int >= 1");
  channel_attrs(op, 2);
  layout_attrs(op, "NCHW8c", "OIHW");
  op.text_default("data_layout", "NCHW");  // Conv2DAttrs' default; the Python wrapper's is NCHW8c
  out_dtype_attr(op);
  op.infer_layout(conv_layouts);
  op.type_relation([kind, needs_channels](const std::vector<Type>& args, const Attrs& attrs) {
      return conv_relation(kind, args, attrs, needs_channels);
    })
      .prepared_kernel(prepare_conv(kind), run_conv)
      .te_compute([kind](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        return conv_te(kind, in, attrs, out);
      })
      .gradient(conv_gradient);
}

}  // namespace

void register_convolution_ops(Registrar& reg) {
  register_conv(reg, kConv1d,
                "1D convolution over sequences. data (batch, in_channels, width) in NCW, weight (channels, "
                "in_channels/groups, kernel_size) in OIW; out (batch, channels, out_width) with out_width = "
                "(width + pad_left + pad_right - dilated_kernel) / stride + 1.")
      .gradient(conv::conv_gradient);
  register_conv(reg, kConv2d,
                "2D convolution over images. data (batch, in_channels, height, width) in NCHW, weight (channels, "
                "in_channels/groups, kh, kw) in OIHW; out (batch, channels, out_height, out_width) with out_height = "
                "(height + pad_top + pad_bottom - dilated_kh) / stride_h + 1. groups == in_channels is a depthwise "
                "convolution. int8/uint8 inputs accumulate in out_dtype (e.g. int32).")
      .is_layout_layer()
      .gradient(conv::conv_gradient);
  register_blocked_conv(reg, {"nn.contrib_conv2d_NCHWc", 2, "NCHW", "OIHW"}, true,
                        "conv2d on channel-blocked tensors, e.g. data NCHW8c (batch, C/8, H, W, 8) and weight "
                        "OIHW8i8o (O/8, I/8, kh, kw, 8, 8); the output is in out_layout (default data_layout). "
                        "channels and kernel_size must be set.");
  register_blocked_conv(reg, {"nn.contrib_depthwise_conv2d_NCHWc", 2, "NCHW", "OIHW"}, false,
                        "Depthwise conv2d on channel-blocked tensors, e.g. data NCHW8c and weight OIHW1i8o "
                        "(C*multiplier/8, 1, kh, kw, 1, 8) with groups = input channels: output channel c reads "
                        "input channel c / multiplier.");
  register_conv(reg, kConv3d,
                "3D convolution over volumes. data (batch, in_channels, depth, height, width) in NCDHW, weight "
                "(channels, in_channels/groups, kd, kh, kw) in OIDHW; out (batch, channels, out_depth, out_height, "
                "out_width).")
      .gradient(conv::conv_gradient);
  conv::register_conv_transpose_ops(reg);
  conv::register_conv_winograd_ops(reg);
  conv::register_conv_winograd3d_ops(reg);
  conv::register_conv_special_ops(reg);
}

}  // namespace weft_nn
