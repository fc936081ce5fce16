#include "layout_choice.h"

#include <string>
#include <vector>

namespace sdk = weft::sdk;

namespace llvm_target {
namespace {

bool static_f32(const sdk::Type& t) {
  if (!t || t.kind() != WEFT_TYPE_TENSOR) return false;
  const DLDataType d = t.dtype();
  if (d.code != kDLFloat || d.bits != 32 || d.lanes != 1) return false;
  for (int64_t x : t.shape())
    if (x == WEFT_DIM_ANY) return false;
  return true;
}

/// dense(x, W) as dense_pack(x, layout_transform(W, NC -> NC{b}n)).
sdk::Expr packed_dense(const sdk::Expr& call, int lanes) {
  const sdk::Expr weight = call.arg(1);
  if (!static_f32(call.arg(0).type()) || !static_f32(weight.type()) || !static_f32(call.type())) return {};
  const std::vector<int64_t> w = weight.type().shape();
  if (w.size() != 2 || w[0] % lanes != 0 || call.arg(0).type().shape().size() != 2) return {};
  const std::string packed = "NC" + std::to_string(lanes) + "n";
  sdk::Expr panels = sdk::call("layout_transform", {weight}, {{"src_layout", "NC"}, {"dst_layout", packed}});
  return sdk::call("nn.contrib_dense_pack", {call.arg(0), panels},
                   {{"units", w[0]}, {"out_dtype", sdk::dtype::float32}, {"weight_layout", packed}});
}

/// conv2d in NCHW/OIHW with blocks of b channels; a first layer whose input
/// channels fill no block (RGB) reads plain data and writes blocks.
sdk::Expr blocked_conv2d(const sdk::Expr& call, int lanes) {
  if (!static_f32(call.arg(0).type()) || !static_f32(call.arg(1).type()) || !static_f32(call.type())) return {};
  const sdk::Attrs attrs = call.attrs();
  if (attrs.get_string("data_layout") != "NCHW" || attrs.get_string("kernel_layout") != "OIHW" ||
      !attrs.get_string("out_layout").empty()) {
    return {};
  }
  const int64_t in_channels = call.arg(0).type().shape()[1], out_channels = call.type().shape()[1];
  const int64_t groups = attrs.get_int("groups");
  const bool depthwise = groups > 1 && groups == in_channels && groups == out_channels;
  if ((groups != 1 && !depthwise) || out_channels % lanes != 0) return {};
  const std::string b = std::to_string(lanes), blocked = "NCHW" + b + "c";
  sdk::AttrList changes;
  if (in_channels % lanes == 0) {
    changes = {{"data_layout", blocked}, {"out_layout", ""},
               {"kernel_layout", depthwise ? "OIHW1i" + b + "o" : "OIHW" + b + "i" + b + "o"}};
  } else if (!depthwise) {
    changes = {{"data_layout", "NCHW"}, {"out_layout", blocked}, {"kernel_layout", "OIHW" + b + "o"}};
  } else {
    return {};
  }
  return sdk::call("nn.conv2d", call.args(), sdk::layouts::entries_with(attrs, changes));
}

}  // namespace

sdk::Expr vector_friendly_layout(const sdk::Expr& call, int lanes) {
  const std::string op = call.op_name();
  if (op == "nn.dense") return packed_dense(call, lanes);
  if (op == "nn.conv2d") return blocked_conv2d(call, lanes);
  return {};
}

}  // namespace llvm_target
