// nn.prelu as oneDNN's prelu primitive (standalone_primitive.h).
#include "op_mapping.h"
#include "standalone_primitive.h"

namespace onednn_target {

namespace sdk = weft::sdk;

/// data > 0 ? data : alpha[c] * data, c the index along `axis`: the 1-D alpha
/// is read as a weight of the data's rank, its extent on `axis` and 1 elsewhere,
/// which oneDNN broadcasts over the rest.
std::optional<StandaloneSpec> prelu_spec(const sdk::Expr& call) {
  if (call.op_name() != "nn.prelu") return std::nullopt;
  expect_f32_call(call);
  const Shape data = call.arg(0).type().shape(), alpha = call.arg(1).type().shape();
  const int64_t axis = call.attrs().get_int("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(data.size()) || alpha.size() != 1 || alpha[0] != data[axis]) {
    refuse(call, "alpha " + call.arg(1).type().str() + " does not run along axis " + std::to_string(axis) + " of " +
                     call.arg(0).type().str());
  }
  Shape placed(data.size(), 1);
  placed[axis] = alpha[0];
  StandaloneSpec spec;
  spec.what = "prelu";
  spec.dst = plain_view(data, identity_groups(data.size()));
  spec.inputs.push_back({0, DNNL_ARG_SRC, spec.dst});
  spec.inputs.push_back({1, DNNL_ARG_WEIGHTS, plain_view(placed, identity_groups(placed.size()))});
  const dnnl::memory::desc src = spec.dst, weights = spec.inputs.back().desc;
  spec.make = [src, weights](const dnnl::engine& engine, const dnnl::primitive_attr& attr) {
    const dnnl::prelu_forward::desc desc(dnnl::prop_kind::forward_inference, src, weights);
    return dnnl::primitive_desc_base(dnnl::prelu_forward::primitive_desc(desc, attr, engine));
  };
  return spec;
}

}  // namespace onednn_target
