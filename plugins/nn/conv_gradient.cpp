// Gradients of the convolutions and their transposes (see conv_gradient.h).
#include "conv_gradient.h"

#include <string>
#include <weft/sdk/gradient.hpp>

#include "conv_common.h"

namespace weft_nn::conv {

namespace {

using namespace weft::sdk;

using Shape = std::vector<int64_t>;

/// nn.conv<dims>d, with "_transpose" appended when `transposed`.
std::string conv_op(size_t dims, bool transposed) {
  return "nn.conv" + std::to_string(dims) + "d" + (transposed ? "_transpose" : "");
}

/// `e` moved from layout `from` to layout `to`; itself when they agree.
Expr relayout(const Expr& e, const std::string& from, const std::string& to) {
  if (from == to) return e;
  return call("layout_transform", {e}, {{"src_layout", from}, {"dst_layout", to}});
}

/// `e` of shape `from` reshaped to `to`; itself when they agree.
Expr reshaped(const Expr& e, const Shape& from, const Shape& to) {
  if (from == to) return e;
  return call("reshape", {e}, {{"newshape", to}});
}

Expr transposed(const Expr& e, const Shape& axes) { return call("transpose", {e}, {{"axes", axes}}); }

/// The permutation that swaps axes 0 and 1 of a rank-`rank` tensor.
Shape swap_first_two(size_t rank) {
  Shape axes = {1, 0};
  for (size_t i = 2; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  return axes;
}

Shape concat(Shape head, const Shape& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

Shape spatial_of(const Shape& shape) { return Shape(shape.begin() + 2, shape.end()); }

/// For the transposed convolution that maps an output of extents `out` back
/// to data of extents `data`: the data's tail that the strides skipped, which
/// its output_padding gives back. An Error when `out` is not the extent a
/// convolution of `data` by `kernel` has.
Shape skipped_tail(const Shape& data, const Shape& out, const Shape& kernel, const Shape& strides,
                   const Shape& padding, const Shape& dilation) {
  const size_t dims = strides.size();
  Shape tail(dims);
  for (size_t i = 0; i < dims; ++i) {
    const int64_t covered =
        (out[i] - 1) * strides[i] - padding[i] - padding[i + dims] + (kernel[i] - 1) * dilation[i] + 1;
    tail[i] = data[i] - covered;
    if (tail[i] < 0 || tail[i] >= strides[i]) {
      throw Error("output extent " + std::to_string(out[i]) + " along spatial axis " + std::to_string(i) +
                  " is not a convolution's of data extent " + std::to_string(data[i]) + " by kernel extent " +
                  std::to_string(kernel[i]));
    }
  }
  return tail;
}

/// A (transposed) convolution call in canonical terms: data, output and the
/// output's gradient as NC<spatial>; the weight as the op reads it,
/// (out, in / groups, kernel...) for a convolution and (in, out / groups,
/// kernel...) for a transposed one (a depthwise weight given as (C,
/// multiplier, ...) is read as (C * multiplier, 1, ...): the same elements).
struct CanonicalConv {
  size_t dims = 0;
  std::string data_layout, kernel_layout, out_layout;  // the call's
  std::string data_canonical, kernel_canonical;
  Shape data, out, weight;
  Shape weight_given;  // the weight tensor's own canonical shape
  Shape strides, padding, dilation;
  int64_t groups = 1;
  Expr x, w, g;  // data, weight and output gradient in the canonical layouts and shapes
};

CanonicalConv canonical_view(const Expr& c, const Expr& g, bool is_transposed) {
  Attrs attrs = c.attrs();
  static constexpr ConvKind kKinds[2][3] = {{kConv1d, kConv2d, kConv3d},
                                            {kConv1dTranspose, kConv2dTranspose, kConv3dTranspose}};
  const size_t dims = attrs.get_ints("strides").size();
  if (dims < 1 || dims > 3) throw Error("a convolution of " + std::to_string(dims) + " spatial axes");
  // The forward op's own reading of its attrs and operands (the blocked
  // NCHWc convolutions' layouts convert to NCHW and OIHW as well).
  ConvAttrs a = ConvAttrs::read(kKinds[is_transposed][dims - 1], attrs);
  const Shape weight_shape = grad::static_shape(c.arg(1), "the convolution's weight");
  ConvAttrs::Operands operands = a.check_operands(grad::static_shape(c.arg(0), "the convolution's data"),
                                                  weight_shape, /*depthwise_rule=*/!is_transposed);
  CanonicalConv v;
  v.dims = dims;
  v.strides = a.strides;
  v.padding = a.padding;
  v.dilation = a.dilation;
  v.groups = a.groups;
  v.data_canonical = a.kind.data_canon;
  v.kernel_canonical = a.kind.kernel_canon;
  v.data_layout = a.data_layout.name();
  v.kernel_layout = a.kernel_layout.name();
  v.out_layout = a.out_layout.name();
  v.data = operands.data;
  v.out = a.out_layout.to_canonical(grad::static_shape(c, "the convolution's output"));
  v.weight_given = a.kernel_layout.to_canonical(weight_shape);
  v.weight = operands.weight;
  v.x = relayout(c.arg(0), v.data_layout, v.data_canonical);
  v.g = relayout(g, v.out_layout, v.data_canonical);
  v.w = reshaped(relayout(c.arg(1), v.kernel_layout, v.kernel_canonical), v.weight_given, v.weight);
  return v;
}

/// Canonical gradients of the data and the weight, back in the call's layouts.
std::vector<Expr> in_call_layouts(const CanonicalConv& v, const Expr& ddata, const Expr& dweight) {
  return {relayout(ddata, v.data_canonical, v.data_layout),
          relayout(reshaped(dweight, v.weight, v.weight_given), v.kernel_canonical, v.kernel_layout)};
}

/// The weight of a convolution with v's window and groups that maps `data`
/// (N, Cd, ...) to `out` (N, Co, ...), as (Co, Cd / groups, kernel...):
/// w[o, c, k] = sum over n and p of out[n, o, p] * data[n, group(o) c, p s - pad + k d].
/// That is a convolution itself, grouped the same way, of the data with the
/// batch folded into its channels ((Cd / groups, groups * N, ...)) by `out`
/// as its kernel ((Co, N, ...)), with strides and dilation swapped. Where the
/// strides skip the data's tail it reaches past the kernel, so it is cut.
Expr weight_gradient(const CanonicalConv& v, const Expr& data, const Shape& data_shape, const Expr& out,
                     const Shape& out_shape) {
  const size_t rank = data_shape.size();
  const int64_t batch = data_shape[0], per_group = data_shape[1] / v.groups, out_channels = out_shape[1];
  const Shape spatial = spatial_of(data_shape), kernel = spatial_of(v.weight);
  Shape to_front = {2, 1, 0};  // (N, groups, Cd / groups, ...) -> (Cd / groups, groups, N, ...)
  for (size_t i = 3; i <= rank; ++i) to_front.push_back(static_cast<int64_t>(i));
  Expr planes = call("reshape",
                     {transposed(call("reshape", {data}, {{"newshape", concat({batch, v.groups, per_group}, spatial)}}),
                                 to_front)},
                     {{"newshape", concat({per_group, v.groups * batch}, spatial)}});
  Expr kernels = transposed(out, swap_first_two(rank));
  Expr per_channel =
      call(conv_op(v.dims, false), {planes, kernels},
           {{"strides", v.dilation}, {"padding", v.padding}, {"dilation", v.strides}, {"groups", v.groups}});
  Expr weight = transposed(per_channel, swap_first_two(rank));
  Shape reach(v.dims);
  for (size_t i = 0; i < v.dims; ++i) {
    const int64_t padded = spatial[i] + v.padding[i] + v.padding[i + v.dims];
    reach[i] = (padded - (out_shape[2 + i] - 1) * v.strides[i] - 1) / v.dilation[i] + 1;
  }
  if (reach == kernel) return weight;
  return call("strided_slice", {weight},
              {{"begin", Shape(rank, 0)}, {"end", concat({out_channels, per_group}, kernel)}});
}

}  // namespace

std::vector<Expr> conv_gradient(const Expr& c, const Expr& g) {
  CanonicalConv v = canonical_view(c, g, false);
  Shape output_padding = skipped_tail(spatial_of(v.data), spatial_of(v.out), spatial_of(v.weight), v.strides,
                                      v.padding, v.dilation);
  Expr ddata = call(conv_op(v.dims, true), {v.g, v.w},
                    {{"strides", v.strides},
                     {"padding", v.padding},
                     {"output_padding", output_padding},
                     {"dilation", v.dilation},
                     {"groups", v.groups}});
  return in_call_layouts(v, ddata, weight_gradient(v, v.x, v.data, v.g, v.out));
}

std::vector<Expr> conv_transpose_gradient(const Expr& c, const Expr& g) {
  // y = conv_transpose(x, W) is the adjoint of conv(., W) with W read as
  // (O, I / groups, ...): x's gradient is that convolution of g, and W's is
  // the convolution's weight gradient with g as its data and x as its output.
  CanonicalConv v = canonical_view(c, g, true);
  Expr ddata = call(conv_op(v.dims, false), {v.g, v.w},
                    {{"strides", v.strides}, {"padding", v.padding}, {"dilation", v.dilation}, {"groups", v.groups}});
  return in_call_layouts(v, ddata, weight_gradient(v, v.g, v.out, v.x, v.data));
}

std::vector<Expr> conv2d_backward_weight_gradient(const Expr& c, const Expr& g) {
  // w = conv2d_backward_weight(e, x) is bilinear: <w, g> = <e, conv2d(x, g)>, so e's
  // gradient is conv2d(x, g) and x's is conv2d's data gradient for weight g and output gradient e.
  // Relay's attrs: data_layout is e's layout, kernel_layout x's and out_layout w's.
  Attrs a = c.attrs();
  const std::string e_layout = a.get_string("data_layout"), x_layout = a.get_string("kernel_layout"),
                    w_layout = a.get_string("out_layout");
  const Shape e_shape = Layout::parse(e_layout, "NCHW", "data_layout")
                            .to_canonical(grad::static_shape(c.arg(0), "conv2d_backward_weight's grad"));
  const Shape x_shape = Layout::parse(x_layout, "NCHW", "kernel_layout")
                            .to_canonical(grad::static_shape(c.arg(1), "conv2d_backward_weight's data"));
  const Shape w_shape = Layout::parse(w_layout, "OIHW", "out_layout")
                            .to_canonical(grad::static_shape(c, "conv2d_backward_weight's result"));
  const Shape strides = a.get_ints("strides"), padding = a.get_ints("padding"), dilation = a.get_ints("dilation");
  const int64_t groups = a.get_int("groups");
  Shape output_padding;
  try {
    output_padding = skipped_tail(spatial_of(x_shape), spatial_of(e_shape), spatial_of(w_shape), strides, padding,
                                  dilation);
  } catch (const Error& e) {
    throw Error(std::string("the gradient of nn.conv2d_backward_weight needs grad shaped as conv2d's output: ") +
                e.what());
  }
  Expr e = relayout(c.arg(0), e_layout, "NCHW"), x = relayout(c.arg(1), x_layout, "NCHW"),
       w = relayout(g, w_layout, "OIHW");
  Expr de = call("nn.conv2d", {x, w},
                 {{"strides", strides}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}});
  Expr dx = call("nn.conv2d_transpose", {e, w},
                 {{"strides", strides},
                  {"padding", padding},
                  {"output_padding", output_padding},
                  {"dilation", dilation},
                  {"groups", groups}});
  return {relayout(de, "NCHW", e_layout), relayout(dx, "NCHW", x_layout)};
}

}  // namespace weft_nn::conv
