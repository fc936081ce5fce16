// Gradients of conv1d/conv2d and their transposes (see conv_gradient.h).
#include "conv_gradient.h"

#include <string>
#include <weft/sdk/gradient.hpp>

namespace weft_nn::conv {

namespace {

using namespace weft::sdk;

/// A 1-D or 2-D convolution call seen as a 2-D one: shapes with a height of 1
/// inserted for 1-D, and the window attrs in conv2d's form.
struct Conv2dView {
  bool one_d = false;
  std::vector<int64_t> data, weight, out;           // 4-D
  std::vector<int64_t> strides, padding, dilation;  // 2, 4 and 2 values
  int64_t groups = 1;
};

Conv2dView view_of(const Expr& c, const char* data_layout, const char* kernel_layout) {
  Attrs a = c.attrs();
  Conv2dView v;
  std::vector<int64_t> data = grad::static_shape(c.arg(0), "the convolution's data");
  v.one_d = data.size() == 3;
  std::string want_data = v.one_d ? "NCW" : "NCHW", want_kernel = std::string(kernel_layout) + (v.one_d ? "W" : "HW");
  std::string out_layout = a.get_string("out_layout");
  if (a.get_string("data_layout") != want_data || a.get_string("kernel_layout") != want_kernel ||
      (!out_layout.empty() && out_layout != want_data)) {
    throw Error(std::string("the convolution's gradient covers ") + data_layout + " data with a " + want_kernel +
                " kernel; got data_layout " + a.get_string("data_layout") + ", kernel_layout " +
                a.get_string("kernel_layout"));
  }
  v.data = data;
  v.weight = grad::static_shape(c.arg(1), "the convolution's weight");
  v.out = grad::static_shape(c, "the convolution's output");
  v.strides = a.get_ints("strides");
  v.padding = a.get_ints("padding");
  v.dilation = a.get_ints("dilation");
  v.groups = a.get_int("groups");
  if (v.one_d) {
    for (auto* shape : {&v.data, &v.weight, &v.out}) shape->insert(shape->begin() + 2, 1);
    v.strides = {1, v.strides[0]};
    v.padding = {0, v.padding[0], 0, v.padding[1]};
    v.dilation = {1, v.dilation[0]};
  }
  return v;
}

Expr as_4d(const Expr& e, const std::vector<int64_t>& shape) { return call("reshape", {e}, {{"newshape", shape}}); }

/// A 4-D result back in the shape of `like` (a no-op for 2-D).
Expr back_to(const Expr& e, const Expr& like) { return call("reshape_like", {e, like}); }

/// conv2d's weight gradient: the weight (channels x ...) that maps `data` to
/// `grad` under the view's window.
Expr weight_gradient(const Conv2dView& v, const Expr& grad, const Expr& data, int64_t channels,
                     const std::vector<int64_t>& kernel) {
  return call("nn.conv2d_backward_weight", {grad, data},
              {{"strides", v.strides},
               {"padding", v.padding},
               {"dilation", v.dilation},
               {"groups", v.groups},
               {"channels", channels},
               {"kernel_size", kernel}});
}

}  // namespace

std::vector<Expr> conv_gradient(const Expr& c, const Expr& g) {
  Conv2dView v = view_of(c, "NC(H)W", "OI");
  Expr data = c.arg(0), weight = c.arg(1);
  Expr g4 = as_4d(g, v.out), x4 = as_4d(data, v.data), w4 = as_4d(weight, v.weight);
  // The rows a stride skipped at the end: output_padding gives them back.
  std::vector<int64_t> output_padding(2);
  for (size_t i = 0; i < 2; ++i) {
    int64_t covered =
        (v.out[2 + i] - 1) * v.strides[i] - v.padding[i] - v.padding[i + 2] + (v.weight[2 + i] - 1) * v.dilation[i] + 1;
    output_padding[i] = v.data[2 + i] - covered;
  }
  std::vector<int64_t> kernel = {v.weight[2], v.weight[3]};
  Expr ddata = call("nn.conv2d_transpose", {g4, w4},
                    {{"channels", v.data[1]},
                     {"kernel_size", kernel},
                     {"strides", v.strides},
                     {"padding", v.padding},
                     {"output_padding", output_padding},
                     {"dilation", v.dilation},
                     {"groups", v.groups}});
  Expr dweight = weight_gradient(v, g4, x4, v.weight[0], kernel);
  return {back_to(ddata, data), back_to(dweight, weight)};
}

/// The window attrs of a 3-D (transposed) convolution call with NCDHW data, an
/// (I|O)(O|I)DHW kernel and groups=1; an Error naming `op` otherwise.
struct Conv3dWindow {
  std::vector<int64_t> strides, padding, dilation;
};

Conv3dWindow conv3d_window(const Expr& c, const char* op, const char* kernel_layout) {
  Attrs a = c.attrs();
  std::string out_layout = a.get_string("out_layout");
  if (a.get_string("data_layout") != "NCDHW" || a.get_string("kernel_layout") != kernel_layout ||
      (!out_layout.empty() && out_layout != "NCDHW") || a.get_int("groups") != 1) {
    throw Error(std::string("the gradient of ") + op + " covers NCDHW data with an " + kernel_layout +
                " kernel and groups=1");
  }
  return {a.get_ints("strides"), a.get_ints("padding"), a.get_ints("dilation")};
}

/// conv3d's weight gradient (filters, channels, kernel...) for input `data` of
/// shape `in` and output gradient `g` of shape `out`. No 3-D weight-gradient
/// op: Relay's former construction, a convolution grouped per (batch, input
/// channel) of the data with the output gradient, strides and dilation
/// swapped, summed over the batch.
Expr conv3d_weight_gradient(const Conv3dWindow& w, const Expr& data, const std::vector<int64_t>& in, const Expr& g,
                            const std::vector<int64_t>& out, const std::vector<int64_t>& kernel) {
  const int64_t batch = in[0], channels = in[1], filters = out[1];
  Expr rows = call("reshape", {call("tile", {g}, {{"reps", std::vector<int64_t>{1, channels, 1, 1, 1}}})},
                   {{"newshape", std::vector<int64_t>{batch * channels * filters, 1, out[2], out[3], out[4]}}});
  Expr planes = call("reshape", {data}, {{"newshape", std::vector<int64_t>{1, batch * channels, in[2], in[3], in[4]}}});
  Expr per_pair =
      call("nn.conv3d", {planes, rows},
           {{"strides", w.dilation}, {"padding", w.padding}, {"dilation", w.strides}, {"groups", batch * channels}});
  std::vector<int64_t> reach(3);
  for (size_t i = 0; i < 3; ++i) {
    reach[i] = (in[2 + i] + w.padding[i] + w.padding[i + 3] - (out[2 + i] - 1) * w.strides[i] - 1) / w.dilation[i] + 1;
  }
  Expr summed =
      call("sum",
           {call("reshape", {per_pair},
                 {{"newshape", std::vector<int64_t>{batch, channels, filters, reach[0], reach[1], reach[2]}}})},
           {{"axis", std::vector<int64_t>{0}}});
  return call("strided_slice", {call("transpose", {summed}, {{"axes", std::vector<int64_t>{1, 0, 2, 3, 4}}})},
              {{"begin", std::vector<int64_t>{0, 0, 0, 0, 0}},
               {"end", std::vector<int64_t>{filters, channels, kernel[0], kernel[1], kernel[2]}}});
}

std::vector<Expr> conv3d_gradient(const Expr& c, const Expr& g) {
  Conv3dWindow win = conv3d_window(c, "nn.conv3d", "OIDHW");
  Expr data = c.arg(0), weight = c.arg(1);
  std::vector<int64_t> in = grad::static_shape(data, "conv3d's data"),
                       w = grad::static_shape(weight, "conv3d's weight"),
                       out = grad::static_shape(c, "conv3d's output");
  std::vector<int64_t> output_padding(3), kernel = {w[2], w[3], w[4]};
  for (size_t i = 0; i < 3; ++i) {
    int64_t covered = (out[2 + i] - 1) * win.strides[i] - win.padding[i] - win.padding[i + 3] +
                      (w[2 + i] - 1) * win.dilation[i] + 1;
    output_padding[i] = in[2 + i] - covered;
  }
  Expr ddata = call("nn.conv3d_transpose", {g, weight},
                    {{"channels", in[1]},
                     {"kernel_size", kernel},
                     {"strides", win.strides},
                     {"padding", win.padding},
                     {"output_padding", output_padding},
                     {"dilation", win.dilation}});
  return {ddata, conv3d_weight_gradient(win, data, in, g, out, kernel)};
}

std::vector<Expr> conv3d_transpose_gradient(const Expr& c, const Expr& g) {
  // The adjoint of conv3d(., W) with W read as OIDHW: x's gradient is the
  // convolution of g with W, and W's gradient is conv3d's weight gradient
  // with g as the convolution's input and x as its output.
  Conv3dWindow win = conv3d_window(c, "nn.conv3d_transpose", "IODHW");
  Expr data = c.arg(0), weight = c.arg(1);
  std::vector<int64_t> in = grad::static_shape(data, "conv3d_transpose's data"),
                       w = grad::static_shape(weight, "conv3d_transpose's weight"),
                       out = grad::static_shape(c, "conv3d_transpose's output");
  std::vector<int64_t> kernel = {w[2], w[3], w[4]};
  Expr ddata = call("nn.conv3d", {g, weight},
                    {{"strides", win.strides},
                     {"padding", win.padding},
                     {"dilation", win.dilation},
                     {"channels", in[1]},
                     {"kernel_size", kernel}});
  return {ddata, conv3d_weight_gradient(win, g, out, data, in, kernel)};
}

std::vector<Expr> conv_transpose_gradient(const Expr& c, const Expr& g) {
  // y = conv_transpose(x, W) is the adjoint of conv(., W): x's gradient is the
  // convolution of g with W (read as OIHW), and W's gradient maps g to x.
  Conv2dView v = view_of(c, "NC(H)W", "IO");
  Expr data = c.arg(0), weight = c.arg(1);
  Expr g4 = as_4d(g, v.out), x4 = as_4d(data, v.data), w4 = as_4d(weight, v.weight);
  std::vector<int64_t> kernel = {v.weight[2], v.weight[3]};
  Expr ddata = call("nn.conv2d", {g4, w4},
                    {{"strides", v.strides},
                     {"padding", v.padding},
                     {"dilation", v.dilation},
                     {"groups", v.groups},
                     {"channels", v.data[1]},
                     {"kernel_size", kernel}});
  Expr dweight = weight_gradient(v, x4, g4, v.weight[0], kernel);
  return {back_to(ddata, data), back_to(dweight, weight)};
}

}  // namespace weft_nn::conv
