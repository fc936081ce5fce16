// Types of untyped weights, as Relay's type relations assign them: a model
// can write `conv2d(data, var("conv0_weight"), channels=64, kernel_size=3)` and
// let type inference give the weight its shape from the data's and the
// attrs (Conv2DRel, Conv2DTransposeRel, DenseRel, BiasAddRel, BatchNormRel).
// One place for the rule, attached to the ops after they are declared.
#include "conv_common.h"
#include "nn_ops.h"

namespace weft_nn {

namespace {

using weft::sdk::Attrs;
using weft::sdk::Type;
namespace conv = weft_nn::conv;

bool is_tensor(const Type& t) { return t && t.is_tensor(); }

/// The axis `axis` of a rank-n tensor (negative counts from the end), or -1.
int64_t axis_of(int64_t axis, size_t n) {
  int64_t a = axis < 0 ? axis + static_cast<int64_t>(n) : axis;
  return a >= 0 && a < static_cast<int64_t>(n) ? a : -1;
}

/// conv1d/2d/3d and their transposes: the weight ConvAttrs::implied_weight
/// gives (the rule the relation checks a typed weight against), mapped to
/// kernel_layout, when channels and kernel_size are set.
weft::sdk::InputInference conv_weight(conv::ConvKind kind) {
  return [kind](const std::vector<Type>& args, const Attrs& attrs) -> std::vector<Type> {
    conv::ConvAttrs a = conv::ConvAttrs::read(kind, attrs);
    if (a.needs_typed_weight() && !is_tensor(args[1])) {
      throw weft::sdk::Error("Weight shape must be specified when groups is greater than 1.");
    }
    if (!is_tensor(args[0]) || !a.channels || !a.kernel_size) return {};
    std::vector<int64_t> data = args[0].shape();
    if (data.size() != a.data_layout.rank()) return {};  // the relation reports the rank
    int64_t in_channels = a.data_layout.to_canonical(data)[1];
    if (!conv::known(in_channels)) return {};
    std::vector<int64_t> weight = a.implied_weight(in_channels, false);
    return {Type(), Type::tensor(a.kernel_layout.from_canonical(weight), args[0].dtype())};
  };
}

/// dense: the weight (units, K) for data (..., K), when units is given.
std::vector<Type> dense_weight(const std::vector<Type>& args, const Attrs& attrs) {
  auto units = conv::optional_int(attrs, "units");
  if (!is_tensor(args[0]) || !units || args[0].ndim() == 0) return {};
  return {Type(), Type::tensor({*units, args[0].shape().back()}, args[0].dtype())};
}

/// bias_add and batch_norm: every argument after data is one value per index
/// of data's `axis`.
std::vector<Type> per_channel(const std::vector<Type>& args, const Attrs& attrs) {
  if (!is_tensor(args[0])) return {};
  std::vector<int64_t> data = args[0].shape();
  int64_t axis = axis_of(attrs.get_int("axis"), data.size());
  if (axis < 0) return {};  // the relation reports the axis
  std::vector<Type> out{Type()};
  for (size_t i = 1; i < args.size(); ++i) out.push_back(Type::tensor({data[axis]}, args[0].dtype()));
  return out;
}

}  // namespace

void register_weight_inference(weft::sdk::Registrar& reg) {
  for (const conv::ConvKind& kind : {conv::kConv1d, conv::kConv2d, conv::kConv3d, conv::kConv1dTranspose,
                                     conv::kConv2dTranspose, conv::kConv3dTranspose}) {
    reg.declared_op(kind.op).infer_inputs(conv_weight(kind));
  }
  reg.declared_op("nn.dense").infer_inputs(dense_weight);
  reg.declared_op("nn.bias_add").infer_inputs(per_channel);
  reg.declared_op("nn.batch_norm").infer_inputs(per_channel);
}

}  // namespace weft_nn
