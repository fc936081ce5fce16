// The convolutions' layout hooks: Relay's ConvInferCorrectLayout (a conv
// takes its inputs in its layout attrs) and ConvertLayout's rebuilding of a
// conv in the user's desired layouts (convert_conv2d, convert_conv3d and
// their transposed forms in the reference's nn/_nn.py; conv2d into a
// channel-blocked layout becomes contrib_conv2d_NCHWc, as there).
#include <algorithm>

#include "conv_common.h"

namespace weft_nn::conv {

namespace {

using weft::sdk::Expr;

/// The kernel layout "default" stands for with data in `data`: the canonical
/// one for canonical data; for channels-last data the spatial axes then IO
/// (OI for a depthwise conv, groups == input channels), as the reference's
/// NHWC -> HWIO / HWOI; for the transposed convs the reference's HWIO
/// (conv2d_transpose) and DHWOI (conv3d_transpose).
std::string default_kernel_layout(const ConvKind& kind, const Expr& c, const std::string& data) {
  if (data == kind.data_canon) return kind.kernel_canon;
  if (!kind.transposed && kind.dims == 2 && data == "HWNC") return "HWOI";
  std::string spatial = std::string(kind.data_canon).substr(2);
  if (data != "N" + spatial + "C") {
    throw Error(std::string(kind.op) + ": ConvertLayout needs the kernel layout for data layout " + data);
  }
  if (kind.transposed) return spatial + (kind.dims == 3 ? "OI" : "IO");
  Attrs attrs = c.attrs();
  weft::sdk::Layout given(attrs.get_string("data_layout"));
  int64_t groups = attrs.get_int("groups");
  std::vector<int64_t> shape = c.arg(0).type().shape();
  bool depthwise = groups > 1 && given.contains('C') && shape[given.index_of('C')] == groups;
  return spatial + (depthwise ? "OI" : "IO");
}

/// The block size of an NCHW<n>c layout, or 0 for another layout.
int64_t nchw_block(const std::string& layout) {
  if (layout.size() < 6 || layout.rfind("NCHW", 0) != 0 || layout.back() != 'c') return 0;
  std::string digits = layout.substr(4, layout.size() - 5);
  if (!std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) return 0;
  return std::stoll(digits);
}

/// The conv in the desired data layout and kernel layout ("default": see above).
Expr convert_conv(const ConvKind& kind, const Expr& c, const std::vector<std::string>& desired) {
  if (desired.empty() || desired.size() > 2) {
    throw Error(std::string(kind.op) + ": ConvertLayout takes a data layout and a kernel layout, not " +
                std::to_string(desired.size()) + " layouts");
  }
  const std::string& data = desired[0];
  if (data == "default") throw Error(std::string(kind.op) + ": ConvertLayout needs a data layout, not default");
  std::string kernel = desired.size() > 1 ? desired[1] : "default";
  int64_t block = kind.op == std::string("nn.conv2d") ? nchw_block(data) : 0;
  if (block > 0) {
    // Relay's convert_conv2d: blocked data makes it a contrib_conv2d_NCHWc,
    // except on a graph input whose channels do not fill whole blocks.
    if (kernel == "default") {
      throw Error(std::string(kind.op) + ": ConvertLayout to " + data + " needs the kernel layout, not default");
    }
    Expr x = c.arg(0);
    weft::sdk::Layout given(c.attrs().get_string("data_layout"));
    if (x.kind() == WEFT_EXPR_VAR && given.contains('C') &&
        x.type().shape().at(static_cast<size_t>(given.index_of('C'))) % block != 0) {
      return Expr();
    }
    weft::sdk::AttrList changes = {{"data_layout", data}, {"kernel_layout", kernel}};
    return weft::sdk::call("nn.contrib_conv2d_NCHWc", c.args(), weft::sdk::layouts::entries_with(c.attrs(), changes));
  }
  if (kernel == "default") kernel = default_kernel_layout(kind, c, data);
  weft::sdk::AttrList changes = {{"data_layout", data}, {"kernel_layout", kernel}};
  return weft::sdk::call(kind.op, c.args(), weft::sdk::layouts::entries_with(c.attrs(), changes));
}

}  // namespace

weft::sdk::InferredLayouts conv_layouts(const Attrs& attrs, const std::vector<weft::sdk::Layout>&,
                                        const std::vector<weft::sdk::Layout>&, const std::vector<Type>&) {
  using weft::sdk::Layout;
  std::string out = attrs.get_string("out_layout");
  Layout data(attrs.get_string("data_layout"));
  return {{data, Layout(attrs.get_string("kernel_layout"))}, {out.empty() ? data : Layout(out)}, Attrs()};
}

void layout_hooks(OpBuilder& op, const ConvKind& kind) {
  // The reference gives conv1d_transpose neither hook.
  if (kind.transposed && kind.dims == 1) return;
  op.infer_layout(conv_layouts);
  op.convert_layout(
      [kind](const Expr& c, const std::vector<std::string>& desired) { return convert_conv(kind, c, desired); });
}

}  // namespace weft_nn::conv
