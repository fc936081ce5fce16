// densenet: the reference toolkit's DenseNet (relay.testing.densenet, a port
// of MXNet Gluon's). As in the reference, each dense layer reads the previous
// layer's output (not the concatenation of all earlier ones), and a block's
// output concatenates its layers' outputs; transitions halve the running
// feature count the reference keeps. No softmax at the end.
#include <map>
#include <string>
#include <vector>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace layers = weft::sdk::layers;
using sdk::Expr;
using Ints = std::vector<int64_t>;

struct DenseNetSpec {
  int64_t num_init_features;
  int64_t growth_rate;
  std::vector<int> block_config;
};

/// The reference's table (169's 69 initial features included).
const std::map<int64_t, DenseNetSpec>& specs() {
  static const std::map<int64_t, DenseNetSpec> table = {{121, {64, 32, {6, 12, 24, 16}}},
                                                        {161, {96, 48, {6, 12, 36, 24}}},
                                                        {169, {69, 32, {6, 12, 32, 32}}},
                                                        {201, {64, 32, {6, 12, 48, 32}}}};
  return table;
}
constexpr int64_t kBottleneckSize = 4;  // bn_size

Expr bn_relu(const Expr& x, const std::string& name) {
  return sdk::call("nn.relu", {layers::batch_norm_infer(x, name)});
}

/// bn, relu, 1x1 conv to bn_size * growth_rate; bn, relu, 3x3 conv to growth_rate.
Expr dense_layer(const Expr& x, int64_t growth_rate, const std::string& index) {
  Expr conv1 = layers::conv2d(bn_relu(x, "batch_1_" + index), "conv2d_1_" + index,
                              {{"channels", kBottleneckSize * growth_rate}, {"kernel_size", Ints{1, 1}}});
  return layers::conv2d(bn_relu(conv1, "batch_2_" + index), "conv2d_2_" + index,
                        {{"channels", growth_rate}, {"kernel_size", Ints{3, 3}}, {"padding", Ints{1, 1}}});
}

Expr dense_block(Expr x, int num_layers, int64_t growth_rate, int index) {
  std::vector<Expr> outputs;
  for (int i = 0; i < num_layers; ++i) {
    x = dense_layer(x, growth_rate, std::to_string(index) + "_" + std::to_string(i));
    outputs.push_back(x);
  }
  return sdk::call("concatenate", {sdk::tuple(outputs)}, {{"axis", 1}});
}

Expr transition(const Expr& x, int64_t num_output_features, int index) {
  const std::string id = std::to_string(index);
  Expr conv = layers::conv2d(bn_relu(x, "batch_t_" + id), "conv_t_" + id,
                             {{"channels", num_output_features}, {"kernel_size", Ints{1, 1}}});
  return sdk::call("nn.avg_pool2d", {conv}, {{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}});
}

Expr build_densenet(const sdk::Attrs& p) {
  const DenseNetSpec& spec = specs().at(p.get_int("densenet_size"));
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr data = sdk::var("data", sdk::Type::tensor(shape, p.get_dtype("dtype")));
  Expr conv1 = layers::conv2d(data, "conv1",
                              {{"channels", spec.num_init_features},
                               {"kernel_size", Ints{7, 7}},
                               {"strides", Ints{2, 2}},
                               {"padding", Ints{3, 3}}});
  Expr out = sdk::call("nn.max_pool2d", {bn_relu(conv1, "batch1")},
                       {{"pool_size", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", Ints{1, 1}}});
  // The reference's running count: what the block would have had with
  // Gluon's concatenation; transitions take half of it.
  int64_t num_features = spec.num_init_features;
  const int num_blocks = static_cast<int>(spec.block_config.size());
  for (int i = 0; i < num_blocks; ++i) {
    out = dense_block(out, spec.block_config[i], spec.growth_rate, i);
    num_features += spec.block_config[i] * spec.growth_rate;
    if (i != num_blocks - 1) {
      out = transition(out, num_features / 2, i);
      num_features /= 2;
    }
  }
  Expr pooled = sdk::call("nn.avg_pool2d", {bn_relu(out, "batch2")}, {{"pool_size", Ints{7, 7}}});
  Expr flat = sdk::call("nn.batch_flatten", {pooled});
  return models::function_of_free_vars(layers::dense_add_bias(flat, "dense", {{"units", p.get_int("classes")}}));
}

sdk::Normalizer known_size() {
  return [](const sdk::Value& v) {
    if (!specs().count(v.as_int())) {
      throw sdk::Error("Unsupported densenet_size " + std::to_string(v.as_int()) +
                       ": the supported sizes are 121, 161, 169 and 201");
    }
    return v;
  };
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("densenet")
      .describe("DenseNet (relay.testing.densenet): 121, 161, 169 or 201 layers.")
      .param("densenet_size", int64_t{121}, "The network size: 121, 161, 169 or 201.", "one of 121, 161, 169, 201")
      .normalize(known_size())
      .param("classes", int64_t{1000}, "The number of classes.", "a positive int")
      .normalize(models::positive_int("classes"))
      .param("batch_size", int64_t{4}, "The batch size (4 by default, as in the reference).", "a positive int")
      .normalize(models::positive_int("batch_size"))
      .param("image_shape", std::vector<int64_t>{3, 224, 224}, "The shape of the input data.",
             "positive ints, e.g. 3x224x224")
      .normalize(models::positive_ints("image_shape", 3))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .variant("{densenet_size}", {}, "densenet_size: 121, 161, 169 or 201")
      .build(build_densenet);
}
