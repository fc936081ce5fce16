// Weft op calls as oneDNN descriptors (op_mapping.h).
#include "op_mapping.h"

#include <algorithm>

namespace onednn_target {

namespace sdk = weft::sdk;
using sdk::operator==;
using sdk::operator!=;
using dnnl::algorithm;

bool is_static_f32(const sdk::Type& type) {
  if (!type.is_tensor() || type.dtype() != sdk::dtype::float32) return false;
  Shape shape = type.shape();
  return std::none_of(shape.begin(), shape.end(), [](int64_t d) { return d == WEFT_DIM_ANY; });
}

bool is_reference_implementation(const std::string& impl_info) { return impl_info.rfind("ref", 0) == 0; }

[[noreturn]] void refuse(const sdk::Expr& call, const std::string& why) {
  throw sdk::Unsupported("oneDNN does not run " + call.op_name() + ": " + why);
}

void expect_f32_call(const sdk::Expr& call) {
  if (!is_static_f32(call.type())) refuse(call, "its result is a " + call.type().str() + ", not float32 of static shape");
  for (const sdk::Expr& arg : call.args()) {
    if (!is_static_f32(arg.type())) refuse(call, "an argument is a " + arg.type().str() + ", not float32 of static shape");
  }
  const sdk::Attrs attrs = call.attrs();
  if (attrs.has("out_dtype")) {
    sdk::Value out = attrs.get_value("out_dtype");
    if (!out.is_none() && out.as_dtype() != sdk::dtype::float32) refuse(call, "out_dtype is not float32");
  }
}

std::optional<double> scalar_constant(const sdk::Expr& e) {
  if (!e.is(WEFT_EXPR_CONSTANT) || !is_static_f32(e.type())) return std::nullopt;
  if (numel_of(e.type().shape()) != 1) return std::nullopt;
  const DLTensor data = e.data();
  return *reinterpret_cast<const float*>(static_cast<const char*>(data.data) + data.byte_offset);
}

std::optional<std::vector<int>> letter_positions(const std::string& layout, const std::string& letters) {
  if (layout.size() != letters.size()) return std::nullopt;
  std::vector<int> positions;
  for (char letter : letters) {
    size_t at = layout.find(letter);
    if (at == std::string::npos) return std::nullopt;
    positions.push_back(static_cast<int>(at));
  }
  return positions;
}

AxisGroups layout_axes(const sdk::Expr& call, const std::string& layout, const std::string& letters,
                       const std::string& what) {
  std::optional<AxisGroups> groups = layout_groups(layout, letters);
  if (!groups) refuse(call, what + " layout " + layout + " is not " + letters + ", a permutation or a blocking of it");
  return *groups;
}

namespace {

/// A matrix product out = A B over A viewed (M, K) (or batched (b, M, K)) and
/// B viewed (K, N), each with the strides its transposition gives.
AnchorSpec matmul_spec(const sdk::Expr& call, bool transpose_a, bool transpose_b, bool batched) {
  const Shape a = call.arg(0).type().shape(), b = call.arg(1).type().shape(), out = call.type().shape();
  AnchorSpec spec;
  spec.kind = AnchorKind::kMatmul;
  spec.channel_axes = {static_cast<int>(out.size()) - 1};
  using dnnl::memory;
  if (batched) {
    if (a.size() != 3 || b.size() != 3) refuse(call, "its operands are not 3-D");
    const int64_t m = transpose_a ? a[2] : a[1], k = transpose_a ? a[1] : a[2];
    const int64_t n = transpose_b ? b[1] : b[2];
    spec.src = memory::desc({a[0], m, k}, memory::data_type::f32,
                            transpose_a ? memory::dims{m * k, 1, m} : memory::dims{m * k, k, 1});
    spec.weights = memory::desc({b[0], k, n}, memory::data_type::f32,
                                transpose_b ? memory::dims{n * k, 1, k} : memory::dims{n * k, n, 1});
    spec.dst_groups = identity_groups(3);
    spec.dst = plain_view(out, spec.dst_groups);
    return spec;
  }
  if (b.size() != 2 || a.empty()) refuse(call, "its second operand is not 2-D");
  if (transpose_a && a.size() != 2) refuse(call, "transpose_a needs a 2-D first operand");
  const int64_t k = transpose_a ? a[0] : a.back(), n = transpose_b ? b[0] : b[1];
  const int64_t m = transpose_a ? a[1] : numel_of(Shape(a.begin(), a.end() - 1));
  spec.src = memory::desc({m, k}, memory::data_type::f32, transpose_a ? memory::dims{1, m} : memory::dims{k, 1});
  spec.weights = memory::desc({k, n}, memory::data_type::f32, transpose_b ? memory::dims{1, k} : memory::dims{n, 1});
  // The rows are every leading axis of the result.
  std::vector<int> rows(out.size() - 1);
  for (size_t axis = 0; axis + 1 < out.size(); ++axis) rows[axis] = static_cast<int>(axis);
  spec.dst_groups = {rows, {static_cast<int>(out.size()) - 1}};
  spec.dst = plain_view(out, spec.dst_groups);
  return spec;
}

}  // namespace

std::optional<AnchorSpec> anchor_spec(const sdk::Expr& call) {
  const std::string op = call.op_name();
  const bool convolution = is_convolution_op(op);
  if (!convolution && op != "nn.dense" && op != "nn.matmul" && op != "nn.batch_matmul") return std::nullopt;
  expect_f32_call(call);
  const sdk::Attrs attrs = call.attrs();
  if (convolution) return convolution_spec(call);
  if (op == "nn.dense") return matmul_spec(call, false, true, false);
  return matmul_spec(call, attrs.get_bool("transpose_a"), attrs.get_bool("transpose_b"), op == "nn.batch_matmul");
}

std::optional<PoolSpec> pool_spec(const sdk::Expr& call) {
  const std::string op = call.op_name();
  const bool global = op == "nn.global_max_pool2d" || op == "nn.global_avg_pool2d";
  if (!global && op != "nn.max_pool2d" && op != "nn.avg_pool2d") return std::nullopt;
  expect_f32_call(call);
  const sdk::Attrs attrs = call.attrs();
  const std::string layout = attrs.get_string("layout"), out_layout = attrs.get_string("out_layout");
  if (!out_layout.empty() && out_layout != layout) refuse(call, "out_layout " + out_layout + " is not its layout " + layout);
  const AxisGroups groups = layout_axes(call, layout, "NCHW", "data");
  if (groups[2].size() != 1 || groups[3].size() != 1) refuse(call, "layout " + layout + " blocks H or W");
  const Shape data = call.arg(0).type().shape(), out = call.type().shape();
  const int64_t h = data[groups[2][0]], w = data[groups[3][0]], oh = out[groups[2][0]], ow = out[groups[3][0]];
  PoolSpec spec;
  spec.src = plain_view(data, groups);
  spec.dst = plain_view(out, groups);
  const bool max = op == "nn.max_pool2d" || op == "nn.global_max_pool2d";
  if (global) {
    spec.alg = max ? algorithm::pooling_max : algorithm::pooling_avg_exclude_padding;
    spec.strides = {1, 1};
    spec.kernel = {h, w};
    spec.dilation = {0, 0};
    spec.pad_l = spec.pad_r = {0, 0};
    return spec;
  }
  const Shape size = attrs.get_ints("pool_size"), strides = attrs.get_ints("strides");
  const Shape dilation = attrs.get_ints("dilation"), padding = attrs.get_ints("padding");
  const bool include_pad = !max && attrs.get_bool("count_include_pad");
  spec.alg = max ? algorithm::pooling_max
                 : include_pad ? algorithm::pooling_avg_include_padding : algorithm::pooling_avg_exclude_padding;
  spec.strides = {strides[0], strides[1]};
  spec.kernel = {size[0], size[1]};
  spec.dilation = {dilation[0] - 1, dilation[1] - 1};
  spec.pad_l = {padding[0], padding[1]};
  // The tail padding that gives the result's extent (ceil_mode's windows
  // past the input end read padding). Max and exclude-padding averages ignore
  // padding; an include-padding average counts only the padding written.
  const int64_t extent[2] = {h, w}, pooled[2] = {oh, ow};
  for (int i = 0; i < 2; ++i) {
    const int64_t tail = (pooled[i] - 1) * strides[i] + (size[i] - 1) * dilation[i] + 1 - extent[i] - padding[i];
    if (include_pad && tail != padding[2 + i]) refuse(call, "count_include_pad with ceil_mode windows past the padding");
    spec.pad_r.push_back(tail);
  }
  return spec;
}

std::optional<ReorderSpec> reorder_spec(const sdk::Expr& call) {
  if (call.op_name() != "layout_transform") return std::nullopt;
  expect_f32_call(call);
  const sdk::Attrs attrs = call.attrs();
  const std::string src_layout = attrs.get_string("src_layout"), dst_layout = attrs.get_string("dst_layout");
  // The dims in the order of the src layout's primal axes.
  std::string letters;
  try {
    const sdk::Layout src(src_layout);
    for (const sdk::LayoutAxis& axis : src.axes()) {
      if (axis.primal()) letters += axis.name;
    }
  } catch (const sdk::LayoutError& e) {
    refuse(call, e.what());
  }
  ReorderSpec spec{plain_view(call.arg(0).type().shape(), layout_axes(call, src_layout, letters, "src")),
                   plain_view(call.type().shape(), layout_axes(call, dst_layout, letters, "dst"))};
  // Channels not a multiple of the block: the transform pads, a reorder does not.
  if (spec.src.dims() != spec.dst.dims()) refuse(call, "it pads or crops " + src_layout + " -> " + dst_layout);
  return spec;
}

std::optional<SoftmaxSpec> softmax_spec(const sdk::Expr& call) {
  const std::string op = call.op_name();
  if (op != "nn.softmax" && op != "nn.log_softmax") return std::nullopt;
  expect_f32_call(call);
  const int64_t ndim = static_cast<int64_t>(call.type().ndim());
  int64_t axis = call.attrs().get_int("axis");
  if (axis < 0) axis += ndim;
  return SoftmaxSpec{op == "nn.log_softmax", static_cast<int>(axis)};
}

std::optional<EltwiseSpec> eltwise_spec(const sdk::Expr& call) {
  const std::string op = call.op_name();
  std::optional<EltwiseSpec> spec;
  if (op == "nn.relu") spec = EltwiseSpec{algorithm::eltwise_relu, 0.f, 0.f};
  else if (op == "nn.leaky_relu") spec = EltwiseSpec{algorithm::eltwise_relu, float(call.attrs().get_float("alpha")), 0.f};
  else if (op == "sigmoid") spec = EltwiseSpec{algorithm::eltwise_logistic, 0.f, 0.f};
  else if (op == "tanh") spec = EltwiseSpec{algorithm::eltwise_tanh, 0.f, 0.f};
  else if (op == "exp") spec = EltwiseSpec{algorithm::eltwise_exp, 0.f, 0.f};
  else if (op == "log") spec = EltwiseSpec{algorithm::eltwise_log, 0.f, 0.f};
  else if (op == "sqrt") spec = EltwiseSpec{algorithm::eltwise_sqrt, 0.f, 0.f};
  else if (op == "rsqrt") spec = EltwiseSpec{algorithm::eltwise_pow, 1.f, -0.5f};  // alpha * x^beta
  else if (op == "abs") spec = EltwiseSpec{algorithm::eltwise_abs, 0.f, 0.f};
  else if (op == "power" && scalar_constant(call.arg(1))) {
    // alpha * x^beta, the constant exponent as beta
    spec = EltwiseSpec{algorithm::eltwise_pow, 1.f, static_cast<float>(*scalar_constant(call.arg(1)))};
  }
  else if (op == "round") spec = EltwiseSpec{algorithm::eltwise_round, 0.f, 0.f};  // halves to even, as nearbyint
  else if (op == "negative") spec = EltwiseSpec{algorithm::eltwise_linear, -1.f, 0.f};  // alpha * x + beta
  else if (op == "clip") {
    const sdk::Attrs attrs = call.attrs();
    spec = EltwiseSpec{algorithm::eltwise_clip, float(attrs.get_float("a_min")), float(attrs.get_float("a_max"))};
  } else return std::nullopt;
  expect_f32_call(call);
  return spec;
}

std::optional<algorithm> binary_alg(const std::string& op) {
  if (op == "add" || op == "nn.bias_add") return algorithm::binary_add;
  if (op == "subtract") return algorithm::binary_sub;
  if (op == "multiply") return algorithm::binary_mul;
  if (op == "divide") return algorithm::binary_div;
  if (op == "maximum") return algorithm::binary_max;
  if (op == "minimum") return algorithm::binary_min;
  return std::nullopt;
}

bool commutative(algorithm alg) { return alg != algorithm::binary_sub && alg != algorithm::binary_div; }

Shape binary_operand_shape(const sdk::Expr& call, size_t index) {
  Shape shape = call.arg(index).type().shape();
  if (call.op_name() != "nn.bias_add" || index != 1) return shape;
  const int64_t ndim = static_cast<int64_t>(call.arg(0).type().ndim());
  int64_t axis = call.attrs().get_int("axis");
  if (axis < 0) axis += ndim;
  Shape placed(ndim, 1);
  placed[axis] = shape.at(0);
  return placed;
}

}  // namespace onednn_target
