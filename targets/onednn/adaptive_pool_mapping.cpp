// Adaptive 2-D pooling over even bins as oneDNN pooling (adaptive_pool_mapping.h).
#include "adaptive_pool_mapping.h"

namespace onednn_target {

namespace sdk = weft::sdk;

std::optional<PoolSpec> adaptive_pool_spec(const sdk::Expr& call) {
  const std::string op = call.op_name();
  if (op != "nn.adaptive_avg_pool2d" && op != "nn.adaptive_max_pool2d") return std::nullopt;
  expect_f32_call(call);
  const sdk::Attrs attrs = call.attrs();
  const std::string layout = attrs.get_string("layout"), out_layout = attrs.get_string("out_layout");
  std::optional<std::vector<int>> axes = letter_positions(layout, "NCHW");
  if (!axes || (!out_layout.empty() && out_layout != layout)) refuse(call, "layout " + layout + " is not NCHW-like");
  AxisGroups groups;
  for (int axis : *axes) groups.push_back({axis});
  const Shape data = call.arg(0).type().shape(), out = call.type().shape();
  PoolSpec spec;
  spec.alg = op == "nn.adaptive_max_pool2d" ? dnnl::algorithm::pooling_max
                                            : dnnl::algorithm::pooling_avg_exclude_padding;
  spec.src = plain_view(data, groups);
  spec.dst = plain_view(out, groups);
  for (int i = 0; i < 2; ++i) {
    const int64_t in = data[(*axes)[2 + i]], pooled = out[(*axes)[2 + i]];
    if (pooled <= 0 || in % pooled != 0) {
      refuse(call, std::string("its output extent ") + std::to_string(pooled) + " on " + layout[(*axes)[2 + i]] +
                       " does not divide the input's " + std::to_string(in) +
                       ", so its bins are uneven (TVM's floor/ceil bin bounds), which oneDNN's pooling cannot express");
    }
    spec.kernel.push_back(in / pooled);
    spec.strides.push_back(in / pooled);
  }
  spec.dilation = {0, 0};
  spec.pad_l = spec.pad_r = {0, 0};
  return spec;
}

}  // namespace onednn_target
