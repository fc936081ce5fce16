// The blocked layouts the onednn target prefers (layout_choice.h).
#include "layout_choice.h"

#include <string>
#include <vector>

#include "op_mapping.h"

namespace onednn_target {

namespace sdk = weft::sdk;
using dnnl::memory;

namespace {

/// Whether `layout` names each of `letters` once and nothing else (no blocks).
bool is_permutation_of(const std::string& layout, const std::string& letters) {
  if (layout.size() != letters.size()) return false;
  for (char letter : letters) {
    if (layout.find(letter) == std::string::npos) return false;
  }
  return true;
}

/// oneDNN's format of data with `spatial` (1 to 3) spatial dims in
/// `block`-channel blocks (16, 8 or 4), or plain (block 0).
memory::format_tag data_format(size_t spatial, int64_t block) {
  using tag = memory::format_tag;
  static const tag formats[3][4] = {{tag::ncw, tag::nCw4c, tag::nCw8c, tag::nCw16c},
                                    {tag::nchw, tag::nChw4c, tag::nChw8c, tag::nChw16c},
                                    {tag::ncdhw, tag::nCdhw4c, tag::nCdhw8c, tag::nCdhw16c}};
  const int column = block == 16 ? 3 : block == 8 ? 2 : block == 4 ? 1 : 0;
  return formats[spatial - 1][column];
}

/// oneDNN's channels-last format of data with `spatial` (1 to 3) spatial dims.
memory::format_tag channels_last_format(size_t spatial) {
  using tag = memory::format_tag;
  return spatial == 1 ? tag::nwc : spatial == 2 ? tag::nhwc : tag::ndhwc;
}

/// The name of the kernel `engine` runs the (de)convolution `conv` from `src`
/// to `dst` on ("jit_1x1:avx512_core", "ref:any"), or "" where it has none.
/// The weights are `any`, as the target asks for constant ones.
std::string implementation(const dnnl::engine& engine, const AnchorSpec& conv, memory::format_tag src,
                           memory::format_tag dst) {
  const auto f32 = memory::data_type::f32;
  const memory::desc src_desc(conv.src.dims(), f32, src), dst_desc(conv.dst.dims(), f32, dst);
  const memory::desc weights(conv.weights.dims(), f32, memory::format_tag::any);
  const auto prop = dnnl::prop_kind::forward_inference;
  try {
    if (conv.kind == AnchorKind::kDeconvolution) {
      const dnnl::deconvolution_forward::desc desc(prop, dnnl::algorithm::deconvolution_direct, src_desc, weights,
                                                   dst_desc, conv.strides, conv.dilates, conv.pad_l, conv.pad_r);
      return dnnl::deconvolution_forward::primitive_desc(desc, engine).impl_info_str();
    }
    const dnnl::convolution_forward::desc desc(prop, dnnl::algorithm::convolution_direct, src_desc, weights, dst_desc,
                                               conv.strides, conv.dilates, conv.pad_l, conv.pad_r);
    return dnnl::convolution_forward::primitive_desc(desc, engine).impl_info_str();
  } catch (const dnnl::error&) {
    return "";  // no implementation at all for these formats
  }
}

/// Whether `engine` runs `conv` from `src` to `dst` on a kernel other than
/// oneDNN's reference one (which is many times slower than a reorder to a
/// layout a jit kernel takes).
bool runs_on_jit(const dnnl::engine& engine, const AnchorSpec& conv, memory::format_tag src, memory::format_tag dst) {
  const std::string impl = implementation(engine, conv, src, dst);
  return !impl.empty() && !is_reference_implementation(impl);
}

}  // namespace

sdk::Expr blocked_convolution(const sdk::Expr& call, const dnnl::engine& engine) {
  const std::string op = call.op_name();
  if (!is_convolution_op(op) || !is_static_f32(call.type()) || !is_static_f32(call.arg(0).type())) return {};
  const std::vector<int64_t> data = call.arg(0).type().shape(), out = call.type().shape();
  if (data.size() < 3 || data.size() > 5) return {};
  const size_t spatial = data.size() - 2;
  const bool transposed = op.size() > 10 && op.compare(op.size() - 10, 10, "_transpose") == 0;
  const std::string spatial_letters = std::string("DHW").substr(3 - spatial), canonical = "NC" + spatial_letters;
  const sdk::Attrs attrs = call.attrs();
  const std::string data_layout = attrs.get_string("data_layout"), out_layout = attrs.get_string("out_layout");
  if (!is_permutation_of(data_layout, canonical) ||
      !is_permutation_of(attrs.get_string("kernel_layout"), (transposed ? "IO" : "OI") + spatial_letters) ||
      (!out_layout.empty() && out_layout != data_layout)) {
    return {};
  }
  AnchorSpec conv;
  try {
    conv = convolution_spec(call);
  } catch (const sdk::Unsupported&) {
    return {};  // the target runs it elsewhere, in the layouts it has
  }
  const int64_t in_channels = data[data_layout.find('C')], out_channels = out[data_layout.find('C')];
  const int64_t groups = attrs.get_int("groups");
  const bool depthwise = groups > 1 && groups == in_channels && groups == out_channels;
  if (groups != 1 && !depthwise) return {};
  // Only nn.conv2d's weights take a blocked layout too (the reference's
  // contrib_conv2d_NCHWc); the others' stay as they are, a constant weight
  // being reordered once at compile either way.
  const bool conv2d = op == "nn.conv2d";
  // Output channels that fill no 16-block (squeezenet's 1000 classes) on a
  // CPU with 16-float vectors: channels last, which oneDNN's AVX-512 kernels
  // run at full width with a masked tail, where 8-channel blocks would run
  // its AVX2 kernels at half width (512 to 1000 channels at 13x13: 0.50 ms
  // against 0.87 ms on an AVX-512 Xeon).
  if (out_channels % 16 != 0 && !depthwise && !transposed) {
    const memory::format_tag last = channels_last_format(spatial);
    if (implementation(engine, conv, last, last).find("avx512") != std::string::npos)
      return sdk::call(op, call.args(),
                       sdk::layouts::entries_with(attrs, {{"data_layout", "N" + spatial_letters + "C"}, {"out_layout", ""}}));
  }
  for (int64_t block : {16, 8, 4}) {
    if (out_channels % block != 0) continue;
    const std::string b = std::to_string(block), blocked = canonical + b + "c";
    const memory::format_tag format = data_format(spatial, block);
    sdk::AttrList changes;
    if (in_channels % block == 0) {
      if (!runs_on_jit(engine, conv, format, format)) continue;
      changes = {{"data_layout", blocked}, {"out_layout", ""}};
      if (conv2d) changes.push_back({"kernel_layout", depthwise ? "OIHW1i" + b + "o" : "OIHW" + b + "i" + b + "o"});
    } else if (!depthwise) {
      // Input channels that fill no block (RGB): plain data in, blocks out.
      if (!runs_on_jit(engine, conv, data_format(spatial, 0), format)) continue;
      changes = {{"data_layout", canonical}, {"out_layout", blocked}};
      if (conv2d) changes.push_back({"kernel_layout", "OIHW"});
    } else {
      continue;
    }
    return sdk::call(op, call.args(), sdk::layouts::entries_with(attrs, changes));
  }
  return {};
}

}  // namespace onednn_target
