// nn.conv1d_transpose, nn.conv2d_transpose, nn.conv3d_transpose: the
// gradient-of-convolution ("deconvolution") as Relay's Conv{1,2,3}DTransposeRel
// and TOPI's (group_)conv*_transpose computes, weights in IOW/IOHW/IODHW.
#include "conv_common.h"
#include "conv_gradient.h"

namespace weft_nn::conv {

namespace {

using namespace weft::sdk;

struct TransposeSpec {
  const char* op;
  size_t dims;
  const char* data_canon;    // NCHW
  const char* kernel_canon;  // IOHW
};

struct TransposePlan {
  Layout data_layout, kernel_layout, out_layout;
  std::vector<int64_t> data, weight, out;  // canonical shapes (weight in IOHW order)
  std::vector<int64_t> strides, padding, dilation;
  int64_t groups = 1;
};

TransposePlan plan_transpose(const TransposeSpec& spec, const std::vector<int64_t>& data_shape,
                             const std::vector<int64_t>& weight_shape, const Attrs& attrs) {
  TransposePlan p;
  p.data_layout = Layout::parse(attrs.get_string("data_layout"), spec.data_canon, "data_layout");
  p.kernel_layout = Layout::parse(attrs.get_string("kernel_layout"), spec.kernel_canon, "kernel_layout");
  std::string out_layout = attrs.get_string("out_layout");
  p.out_layout = Layout::parse(out_layout.empty() ? p.data_layout.name() : out_layout, spec.data_canon, "out_layout");
  expect_rank(data_shape, p.data_layout, "data");
  expect_rank(weight_shape, p.kernel_layout, "weight");
  p.strides = attrs.get_ints("strides");
  p.padding = attrs.get_ints("padding");
  p.dilation = attrs.get_ints("dilation");
  p.groups = attrs.get_int("groups");
  std::vector<int64_t> output_padding = attrs.get_ints("output_padding");
  if (p.groups < 1) throw Error("groups must be positive, got " + std::to_string(p.groups));
  p.data = p.data_layout.to_canonical(data_shape);
  std::vector<int64_t> w = p.kernel_layout.to_canonical(weight_shape);
  const int64_t in_channels = p.data[1];
  const std::string shapes = " (data shape " + shape_str(data_shape) + " in " + p.data_layout.name() +
                             ", weight shape " + shape_str(weight_shape) + " in " + p.kernel_layout.name() + ")";
  if (known(in_channels) && in_channels % p.groups != 0) {
    throw Error("groups=" + std::to_string(p.groups) + " does not divide the " + std::to_string(in_channels) +
                " input channels" + shapes);
  }
  std::optional<int64_t> channels = optional_int(attrs, "channels");
  std::optional<std::vector<int64_t>> kernel_size = optional_ints(attrs, "kernel_size");
  if (channels && *channels % p.groups != 0) {
    throw Error("groups=" + std::to_string(p.groups) + " does not divide channels=" + std::to_string(*channels) + shapes);
  }
  int64_t out_channels;
  if (channels && kernel_size) {
    std::vector<int64_t> expected{in_channels, *channels / p.groups};
    expected.insert(expected.end(), kernel_size->begin(), kernel_size->end());
    std::vector<int64_t> expected_shape = p.kernel_layout.from_canonical(expected);
    for (size_t i = 0; i < expected_shape.size(); ++i) {
      if (known(expected_shape[i], weight_shape[i]) && expected_shape[i] != weight_shape[i]) {
        throw Error("the weight shape " + shape_str(weight_shape) + " does not match the shape " +
                    shape_str(expected_shape) + " implied by channels=" + std::to_string(*channels) + ", kernel_size=" +
                    shape_str(*kernel_size) + " and groups=" + std::to_string(p.groups) + shapes);
      }
    }
    out_channels = *channels;
    w = expected;
  } else {
    if (kernel_size) {
      for (size_t i = 0; i < spec.dims; ++i) {
        if (known(w[2 + i]) && w[2 + i] != (*kernel_size)[i]) {
          throw Error("the weight's kernel " + shape_str(std::vector<int64_t>(w.begin() + 2, w.end())) +
                      " does not match kernel_size=" + shape_str(*kernel_size) + shapes);
        }
      }
    }
    if (channels && known(w[1]) && *channels / p.groups != w[1]) {
      throw Error("channels=" + std::to_string(*channels) + " divided by groups=" + std::to_string(p.groups) +
                  " does not match the weight's output channels per group (" + std::to_string(w[1]) + ")" + shapes);
    }
    if (known(in_channels, w[0]) && in_channels != w[0]) {
      throw Error("the input channels (" + std::to_string(in_channels) + ") do not match the weight's input channels (" +
                  std::to_string(w[0]) + ")" + shapes);
    }
    // Relay reads wshape[1] alone here; TOPI's grouped compute makes groups times as many.
    out_channels = known(w[1]) ? w[1] * p.groups : WEFT_DIM_ANY;
  }
  p.weight = w;
  p.out = {p.data[0], out_channels};
  std::vector<int64_t> pads = pad_totals(p.padding);
  for (size_t i = 0; i < spec.dims; ++i) {
    if (output_padding[i] >= p.strides[i] && output_padding[i] >= p.dilation[i]) {
      throw Error("output_padding " + shape_str(output_padding) + " must be smaller than strides " +
                  shape_str(p.strides) + " (or dilation) on every axis" + shapes);
    }
    int64_t in = p.data[2 + i], k = w[2 + i];
    if (!known(in, k)) {
      p.out.push_back(WEFT_DIM_ANY);
      continue;
    }
    int64_t size = p.strides[i] * (in - 1) + 1 + (k - 1) * p.dilation[i] - pads[i] + output_padding[i];
    if (size < 1) {
      throw Error("spatial axis " + std::to_string(i) + ": padding " + shape_str(p.padding) +
                  " leaves no output" + shapes);
    }
    p.out.push_back(size);
  }
  return p;
}

Type transpose_relation(const TransposeSpec& spec, const std::vector<Type>& args, const Attrs& attrs) {
  expect_tensors(args, 2, "data, weight");
  TransposePlan p = plan_transpose(spec, args[0].shape(), args[1].shape(), attrs);
  return Type::tensor(p.out_layout.from_canonical(p.out), out_dtype_of(attrs, args[0]));
}

/// Each input element x[n, c, pos] adds x * w[c, o', k] to
/// y[n, group(c) * O' + o', pos*stride - pad + k*dilation] where that is inside y.
template <typename T>
void conv_transpose(const TransposePlan& p, const std::vector<T>& x, const std::vector<T>& w, std::vector<T>& y) {
  const size_t dims = p.data.size() - 2;
  auto tail = [](const std::vector<int64_t>& v) { return std::vector<int64_t>(v.begin() + 2, v.end()); };
  std::vector<int64_t> pad_before(p.padding.begin(), p.padding.begin() + static_cast<std::ptrdiff_t>(dims));
  std::array<Window, 3> s = windows(tail(p.data), tail(p.weight), tail(p.out), p.strides, pad_before, p.dilation);
  const int64_t batch = p.data[0], in_c = p.data[1], out_c = p.out[1];
  const int64_t in_per_group = in_c / p.groups, out_per_group = out_c / p.groups;
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

Kernel transpose_kernel(const TransposeSpec& spec) {
  return [spec](const KernelArgs& k) {
    const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
    TransposePlan p = plan_transpose(spec, data.shape(), weight.shape(), k.attrs);
    dispatch_accumulator(spec.op, out, [&]<typename T>() {
      std::vector<T> x = to_canonical<T>(data, p.data_layout, p.data);
      std::vector<T> w = to_canonical<T>(weight, p.kernel_layout, p.weight);
      std::vector<T> y(static_cast<size_t>(out.numel()));
      conv_transpose(p, x, w, y);
      from_canonical(y, p.out_layout, p.out, out);
    });
  };
}

OpBuilder& register_transpose(Registrar& reg, const TransposeSpec& spec, const std::string& doc) {
  const size_t n = spec.dims;
  OpBuilder& op = reg.op(spec.op)
                      .describe(doc)
                      .input("data", "Tensor", std::string("The input, in data_layout (default ") + spec.data_canon + ").")
                      .input("weight", "Tensor",
                             std::string("The kernel, in kernel_layout (default ") + spec.kernel_canon + ").")
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
  layout_attrs(op, spec.data_canon, spec.kernel_canon);
  out_dtype_attr(op);
  return op.type_relation(
        [spec](const std::vector<Type>& args, const Attrs& attrs) { return transpose_relation(spec, args, attrs); })
      .kernel(transpose_kernel(spec));
}

}  // namespace

void register_conv_transpose_ops(Registrar& reg) {
  register_transpose(reg, {"nn.conv1d_transpose", 1, "NCW", "IOW"},
                     "Transposed 1D convolution. data (batch, in_channels, width) in NCW, weight (in_channels, "
                     "channels/groups, kernel_size) in IOW; out_width = (width-1)*stride - pad_left - pad_right + "
                     "dilated_kernel + output_padding.")
      .gradient(conv_transpose_gradient);
  register_transpose(reg, {"nn.conv2d_transpose", 2, "NCHW", "IOHW"},
                     "Transposed 2D convolution (deconvolution). data (batch, in_channels, height, width) in NCHW, "
                     "weight (in_channels, channels/groups, kh, kw) in IOHW; out_height = (height-1)*stride_h - "
                     "pad_top - pad_bottom + dilated_kh + output_padding[0].")
      .gradient(conv_transpose_gradient);
  register_transpose(reg, {"nn.conv3d_transpose", 3, "NCDHW", "IODHW"},
                     "Transposed 3D convolution. data (batch, in_channels, depth, height, width) in NCDHW, weight "
                     "(in_channels, channels/groups, kd, kh, kw) in IODHW.")
      .gradient(conv_transpose_gradient);
}

}  // namespace weft_nn::conv
