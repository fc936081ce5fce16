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

/// conv1d/2d/3d (transposed = false) and their transposes: the weight from
/// channels and kernel_size, in the canonical OI... (IO... for transposes)
/// order mapped to kernel_layout. Relay's Conv2DRel requires a typed weight
/// for grouped (groups > 1) convs, with the error it gives.
weft::sdk::InputInference conv_weight(std::string data_canon, std::string kernel_canon, bool transposed) {
  return [=](const std::vector<Type>& args, const Attrs& attrs) -> std::vector<Type> {
    auto channels = conv::optional_int(attrs, "channels");
    auto kernel = conv::optional_ints(attrs, "kernel_size");
    int64_t groups = attrs.get_int("groups");
    if (!transposed && groups > 1 && kernel_canon == "OIHW" && !is_tensor(args[1])) {
      throw weft::sdk::Error("Weight shape must be specified when groups is greater than 1.");
    }
    if (!is_tensor(args[0]) || !channels || !kernel) return {};
    auto data_layout = conv::Layout::parse(attrs.get_string("data_layout"), data_canon, "data_layout");
    auto kernel_layout = conv::Layout::parse(attrs.get_string("kernel_layout"), kernel_canon, "kernel_layout");
    std::vector<int64_t> data = args[0].shape();
    if (data.size() != data_layout.rank()) return {};  // the relation reports the rank
    int64_t in_channels = data_layout.to_canonical(data)[1];
    if (!conv::known(in_channels)) return {};
    std::vector<int64_t> weight = transposed ? std::vector<int64_t>{in_channels, *channels / groups}
                                             : std::vector<int64_t>{*channels, in_channels / groups};
    weight.insert(weight.end(), kernel->begin(), kernel->end());
    return {Type(), Type::tensor(kernel_layout.from_canonical(weight), args[0].dtype())};
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
  reg.declared_op("nn.conv1d").infer_inputs(conv_weight("NCW", "OIW", false));
  reg.declared_op("nn.conv2d").infer_inputs(conv_weight("NCHW", "OIHW", false));
  reg.declared_op("nn.conv3d").infer_inputs(conv_weight("NCDHW", "OIDHW", false));
  reg.declared_op("nn.conv1d_transpose").infer_inputs(conv_weight("NCW", "IOW", true));
  reg.declared_op("nn.conv2d_transpose").infer_inputs(conv_weight("NCHW", "IOHW", true));
  reg.declared_op("nn.conv3d_transpose").infer_inputs(conv_weight("NCDHW", "IODHW", true));
  reg.declared_op("nn.dense").infer_inputs(dense_weight);
  reg.declared_op("nn.bias_add").infer_inputs(per_channel);
  reg.declared_op("nn.batch_norm").infer_inputs(per_channel);
}

}  // namespace weft_nn
