// vgg: the reference toolkit's VGG networks (relay.testing.vgg; Simonyan and
// Zisserman 2014): stages of 3x3 convolutions with their biases (and batch
// norm), each stage closed by a 2x2 max pool, then fc6/fc7 (4096 units, relu,
// dropout) and fc8 with softmax.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace layers = weft::sdk::layers;
using sdk::Expr;

/// Convolutions per stage; every variant has 64, 128, 256, 512, 512 filters.
const std::map<int64_t, std::vector<int>>& stage_depths() {
  static const std::map<int64_t, std::vector<int>> specs = {
      {11, {1, 1, 2, 2, 2}}, {13, {2, 2, 2, 2, 2}}, {16, {2, 2, 3, 3, 3}}, {19, {2, 2, 4, 4, 4}}};
  return specs;
}
const int64_t kStageFilters[] = {64, 128, 256, 512, 512};

Expr features(Expr x, const std::vector<int>& depths, bool batch_norm) {
  for (size_t i = 0; i < depths.size(); ++i) {
    for (int j = 0; j < depths[i]; ++j) {
      const std::string id = std::to_string(i + 1) + "_" + std::to_string(j + 1);
      x = layers::conv2d(x, "conv" + id,
                         {{"kernel_size", std::vector<int64_t>{3, 3}},
                          {"padding", std::vector<int64_t>{1, 1}},
                          {"channels", kStageFilters[i]}});
      // The bias is a separate var named after the conv, as the reference adds it.
      x = sdk::call("nn.bias_add", {x, sdk::var("conv" + id + "_bias")});
      if (batch_norm) x = layers::batch_norm_infer(x, "bn" + id);
      x = sdk::call("nn.relu", {x});
    }
    x = sdk::call("nn.max_pool2d", {x},
                  {{"pool_size", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  }
  return x;
}

/// relay.nn.dropout(x, rate) is field 0 of the dropout call.
Expr dropout(const Expr& x, double rate) { return sdk::get_item(sdk::call("nn.dropout", {x}, {{"rate", rate}}), 0); }

Expr classifier(const Expr& x, int64_t num_classes) {
  Expr flat = sdk::call("nn.batch_flatten", {x});
  Expr fc6 = layers::dense_add_bias(flat, "fc6", {{"units", int64_t{4096}}});
  Expr drop6 = dropout(sdk::call("nn.relu", {fc6}), 0.5);
  Expr fc7 = layers::dense_add_bias(drop6, "fc7", {{"units", int64_t{4096}}});
  Expr drop7 = dropout(sdk::call("nn.relu", {fc7}), 0.5);
  return layers::dense_add_bias(drop7, "fc8", {{"units", num_classes}});
}

Expr build_vgg(const sdk::Attrs& p) {
  const std::vector<int>& depths = stage_depths().at(p.get_int("num_layers"));
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr data = sdk::var("data", sdk::Type::tensor(shape, p.get_dtype("dtype")));
  Expr body = features(data, depths, p.get_bool("batch_norm"));
  return models::function_of_free_vars(sdk::call("nn.softmax", {classifier(body, p.get_int("num_classes"))}));
}

/// The reference's check: num_layers must be one of the specs.
sdk::Normalizer known_depth() {
  return [](const sdk::Value& v) {
    if (!stage_depths().count(v.as_int())) {
      throw sdk::Error("Invalid num_layers " + std::to_string(v.as_int()) + ". Choices are 11,13,16,19.");
    }
    return v;
  };
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("vgg")
      .describe(
          "VGG (relay.testing.vgg): 11, 13, 16 or 19 weight layers, optionally with batch normalization "
          "after each convolution.")
      .param("batch_size", int64_t{1}, "The batch size (the reference has no default; weft takes 1).", "a positive int")
      .normalize(models::positive_int("batch_size"))
      .param("num_classes", int64_t{1000}, "Number of classes.", "a positive int")
      .normalize(models::positive_int("num_classes"))
      .param("image_shape", std::vector<int64_t>{3, 224, 224}, "The input image shape.",
             "positive ints, e.g. 3x224x224")
      .normalize(models::positive_ints("image_shape", 3))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .param("num_layers", int64_t{11}, "Number of layers: 11, 13, 16 or 19.", "one of 11, 13, 16, 19")
      .normalize(known_depth())
      .param("batch_norm", false, "Batch normalization after each convolution.")
      .variant("{num_layers}", {}, "num_layers: 11, 13, 16 or 19")
      .variant("{num_layers}-bn", {{"batch_norm", true}}, "with batch normalization")
      .build(build_vgg);
}
