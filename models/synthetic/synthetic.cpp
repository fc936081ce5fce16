// synthetic: the reference toolkit's synthetic test network
// (relay.testing.synthetic), small but shaped like a real one: two rounds of
// a dense branch over the rows (reshape, dense, relu, reshape_like) added to
// a conv branch (3x3 conv, softmax), with a bias and a batch norm between the
// rounds. Weights may have their own dtype (wtype). The reference fills its
// workload with the Constant initializer.
#include <string>
#include <vector>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace layers = weft::sdk::layers;
using sdk::Expr;
using sdk::Type;
using Ints = std::vector<int64_t>;

struct Weights {
  Ints dense_shape, conv_shape;
  DLDataType wtype;
};

/// relu(dense(reshape(x, [-1, W]), weight)) reshaped like `like`.
Expr dense_branch(const Expr& x, const Expr& like, const std::string& name, const Weights& w) {
  Expr rows = sdk::call("reshape", {x}, {{"newshape", Ints{-1, w.dense_shape[1]}}});
  Expr dense = sdk::call("nn.dense", {rows, sdk::var(name, Type::tensor(w.dense_shape, w.wtype))});
  return sdk::call("reshape_like", {sdk::call("nn.relu", {dense}), like});
}

/// softmax(conv2d(x, weight)), a same-size 3x3 conv.
Expr conv_branch(const Expr& x, const std::string& name, const Weights& w) {
  Expr conv = sdk::call("nn.conv2d", {x, sdk::var(name, Type::tensor(w.conv_shape, w.wtype))},
                        {{"padding", int64_t{1}}, {"kernel_size", int64_t{3}}});
  return sdk::call("nn.softmax", {conv});
}

Expr build_synthetic(const sdk::Attrs& p) {
  const Ints input_shape = p.get_ints("input_shape");
  const DLDataType dtype = p.get_dtype("dtype");
  const sdk::Value wtype = p.get_value("wtype");
  // The dense weight is (W, W) for W = input_shape[3]; the conv keeps C channels.
  const Weights w{{input_shape[3], input_shape[3]},
                  {input_shape[1], input_shape[1], 3, 3},
                  wtype.is_none() ? dtype : wtype.as_dtype()};
  Expr data = sdk::var("data", Type::tensor(input_shape, dtype));
  Expr added = sdk::call("add", {dense_branch(data, data, "dense_weight", w), conv_branch(data, "conv_weight", w)});
  // The reference's bias var has no shape; bias_add gives it one per channel.
  Expr biased = layers::batch_norm_infer(sdk::call("nn.bias_add", {added, sdk::var("bias")}), "batch_norm");
  Expr out = sdk::call("add", {dense_branch(biased, data, "dense2_weight", w), conv_branch(biased, "conv2_weight", w)});
  return models::function_of_free_vars(out);
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("synthetic")
      .describe(
          "The reference's synthetic test network (relay.testing.synthetic): dense and conv branches added "
          "twice, with a bias and a batch norm between. Its workload uses the constant initializer.")
      .param("input_shape", Ints{1, 3, 24, 12}, "The input shape as (batch_size, channels, height, width).",
             "4 positive ints, e.g. 1x3x24x12")
      .normalize(models::positive_ints("input_shape", 4))
      .param("dtype", sdk::dtype::float32, "The data type of the input.")
      .param_optional("wtype", WEFT_ATTR_DTYPE, "The data type of the weights; None takes dtype.")
      .initializer("constant")
      .build(build_synthetic);
}
