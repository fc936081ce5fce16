// The convolution anchors: nn.conv1d/2d/3d as oneDNN convolutions and
// nn.conv1d/2d/3d_transpose as oneDNN deconvolutions, one mapping over the
// spatial rank: src, weights and dst descs with strides, dilation and padding.
#include "op_mapping.h"

#include <algorithm>

namespace onednn_target {

namespace sdk = weft::sdk;

namespace {

/// What an op name says of its convolution: the spatial rank and whether it
/// is transposed ("nn.conv3d_transpose" is {3, true}).
struct ConvolutionOp {
  int rank = 2;
  bool transposed = false;
};

std::optional<ConvolutionOp> convolution_op(const std::string& op) {
  for (int rank = 1; rank <= 3; ++rank) {
    const std::string conv = "nn.conv" + std::to_string(rank) + "d";
    if (op == conv) return ConvolutionOp{rank, false};
    if (op == conv + "_transpose") return ConvolutionOp{rank, true};
  }
  return std::nullopt;
}

/// "[1, 2]", for messages.
std::string ints_text(const Shape& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// `count` ints of the attr `name`, or a refusal saying it is not a rank-D convolution's.
Shape spatial_ints(const sdk::Expr& call, const std::string& name, size_t count) {
  const Shape values = call.attrs().get_ints(name);
  if (values.size() != count) {
    refuse(call, name + " " + ints_text(values) + " does not have " + std::to_string(count) + " values");
  }
  return values;
}

}  // namespace

bool is_convolution_op(const std::string& op) { return convolution_op(op).has_value(); }

AnchorSpec convolution_spec(const sdk::Expr& call) {
  const std::optional<ConvolutionOp> conv = convolution_op(call.op_name());
  if (!conv) refuse(call, "it is not a convolution");
  const size_t rank = static_cast<size_t>(conv->rank);
  // weft's canonical layouts of the op: NCHW data, OIHW weights (IOHW for a
  // transposed convolution, TVM's default), with rank spatial letters.
  const std::string spatial = std::string("DHW").substr(3 - rank);
  const std::string data_letters = "NC" + spatial, kernel_letters = (conv->transposed ? "IO" : "OI") + spatial;
  const sdk::Attrs attrs = call.attrs();
  const std::string data_layout = attrs.get_string("data_layout"), kernel_layout = attrs.get_string("kernel_layout");
  std::string out_layout = attrs.get_string("out_layout");
  if (out_layout.empty()) out_layout = data_layout;
  // Plain (NCHW, NHWC) or blocked (NCHW16c data, OIHW16i16o weights).
  const AxisGroups data_axes = layout_axes(call, data_layout, data_letters, "data");
  const AxisGroups out_axes = layout_axes(call, out_layout, data_letters, "out");
  const AxisGroups kernel_axes = layout_axes(call, kernel_layout, kernel_letters, "kernel");
  const Shape data = call.arg(0).type().shape(), weight = call.arg(1).type().shape(), out = call.type().shape();
  auto extent = [](const Shape& shape, const std::vector<int>& axes) {
    int64_t n = 1;
    for (int axis : axes) n *= shape[axis];
    return n;
  };
  const int64_t groups = attrs.get_int("groups");
  const int64_t in_channels = extent(data, data_axes[1]), out_channels = extent(out, out_axes[1]);
  const std::vector<int>& o = kernel_axes[conv->transposed ? 1 : 0];
  const std::vector<int>& i = kernel_axes[conv->transposed ? 0 : 1];
  const int64_t kernel_out = extent(weight, o), kernel_in = extent(weight, i);
  // A convolution's weight is (O, I/G, k...); a transposed one's (I, O/G, k...).
  const bool reads_as_groups = conv->transposed ? kernel_in == in_channels && kernel_out * groups == out_channels
                                                : kernel_out == out_channels && kernel_in * groups == in_channels;
  if (groups < 1 || !reads_as_groups || in_channels % groups != 0 || out_channels % groups != 0) {
    refuse(call, "the weight " + call.arg(1).type().str() + " in " + kernel_layout + " does not read as " +
                     std::to_string(in_channels) + " -> " + std::to_string(out_channels) + " channels over " +
                     std::to_string(groups) + " groups");
  }
  AnchorSpec spec;
  spec.kind = conv->transposed ? AnchorKind::kDeconvolution : AnchorKind::kConvolution;
  spec.src = plain_view(data, data_axes);
  spec.dst_groups = out_axes;
  spec.dst = plain_view(out, spec.dst_groups);
  spec.channel_axes = out_axes[1];
  // oneDNN's weights are (O, I, k...) or, grouped, (G, O/G, I/G, k...) for
  // both primitives. The group splits weft's O axis of a convolution and its
  // I axis of a transposed one; the kernel taps are not mirrored either way.
  const AxisGroups taps(kernel_axes.begin() + 2, kernel_axes.end());
  const std::vector<int>& split = conv->transposed ? i : o;
  const int64_t out_per_group = out_channels / groups, in_per_group = in_channels / groups;
  if (groups == 1) {
    AxisGroups dims{o, i};
    dims.insert(dims.end(), taps.begin(), taps.end());
    spec.weights = plain_view(weight, dims);
  } else if ((conv->transposed ? in_per_group : out_per_group) == 1) {
    // One channel per group on the split axis, which may be blocked
    // (a depthwise OIHW1i16o is oneDNN's Goihw16g).
    AxisGroups dims{split, conv->transposed ? o : std::vector<int>{}, conv->transposed ? std::vector<int>{} : i};
    dims.insert(dims.end(), taps.begin(), taps.end());
    spec.weights = plain_view(weight, dims);
  } else if (std::all_of(kernel_axes.begin(), kernel_axes.end(), [](const std::vector<int>& g) { return g.size() == 1; })) {
    const Shape ws = row_major_strides(weight);
    dnnl::memory::dims dims{groups, out_per_group, in_per_group};
    dnnl::memory::dims strides{ws[split[0]] * (conv->transposed ? in_per_group : out_per_group), ws[o[0]], ws[i[0]]};
    for (const std::vector<int>& tap : taps) {
      dims.push_back(weight[tap[0]]);
      strides.push_back(ws[tap[0]]);
    }
    spec.weights = dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
  } else {
    refuse(call, "kernel layout " + kernel_layout + " blocks the channels of a grouped, not depthwise, convolution");
  }
  const Shape stride = spatial_ints(call, "strides", rank), padding = spatial_ints(call, "padding", 2 * rank);
  const Shape dilation = spatial_ints(call, "dilation", rank);
  for (size_t axis = 0; axis < rank; ++axis) {
    spec.strides.push_back(stride[axis]);
    spec.dilates.push_back(dilation[axis] - 1);  // oneDNN counts the gaps between taps
    spec.pad_l.push_back(padding[axis]);
    spec.pad_r.push_back(padding[rank + axis]);
  }
  if (conv->transposed) {
    // oneDNN infers a deconvolution's extra output rows from its dst dims,
    // which it accepts only while they add less than a stride.
    const Shape output_padding = spatial_ints(call, "output_padding", rank);
    for (size_t axis = 0; axis < rank; ++axis) {
      if (output_padding[axis] >= stride[axis]) {
        refuse(call, "output_padding " + ints_text(output_padding) + " is not smaller than strides " +
                         ints_text(stride) + " on every axis, which oneDNN's deconvolution cannot express");
      }
    }
  }
  return spec;
}

}  // namespace onednn_target
