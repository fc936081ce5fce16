// squeezenet: the reference toolkit's SqueezeNet (relay.testing.squeezenet;
// Iandola et al. 2016). Fire modules squeeze with a 1x1 conv and expand with
// parallel 1x1 and 3x3 convs concatenated on channels (NCHW). Version 1.0
// opens with a 96-channel 7x7 conv, 1.1 with a 64-channel 3x3 one and pools
// earlier; both end in dropout, a 1x1 conv to the classes, relu, global
// average pooling and softmax.
#include <string>
#include <vector>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace layers = weft::sdk::layers;
using sdk::Expr;
using Ints = std::vector<int64_t>;

/// conv (with `<prefix>_conv_bias`) and relu.
Expr fire_conv(const Expr& x, int64_t channels, int64_t kernel, int64_t padding, const std::string& prefix) {
  Expr conv = layers::conv2d(
      x, prefix + "_conv",
      {{"channels", channels}, {"kernel_size", Ints{kernel, kernel}}, {"padding", Ints{padding, padding}}});
  return sdk::call("nn.relu", {sdk::call("nn.bias_add", {conv, sdk::var(prefix + "_conv_bias")})});
}

Expr fire(const Expr& x, int64_t squeeze, int64_t expand1x1, int64_t expand3x3, const std::string& prefix) {
  Expr squeezed = fire_conv(x, squeeze, 1, 0, prefix + "_input");
  Expr left = fire_conv(squeezed, expand1x1, 1, 0, prefix + "_left");
  Expr right = fire_conv(squeezed, expand3x3, 3, 1, prefix + "_right");
  return sdk::call("concatenate", {sdk::tuple({left, right})}, {{"axis", 1}});
}

Expr max_pool(const Expr& x) {
  return sdk::call("nn.max_pool2d", {x}, {{"pool_size", Ints{3, 3}}, {"strides", Ints{2, 2}}});
}

/// The first conv (named conv1, with conv1_bias), relu and a max pool.
Expr stem(const Expr& data, int64_t channels, int64_t kernel, int64_t padding) {
  Expr conv = layers::conv2d(data, "conv1",
                             {{"channels", channels},
                              {"kernel_size", Ints{kernel, kernel}},
                              {"strides", Ints{2, 2}},
                              {"padding", Ints{padding, padding}}});
  return max_pool(sdk::call("nn.relu", {sdk::call("nn.bias_add", {conv, sdk::var("conv1_bias")})}));
}

Expr build_squeezenet(const sdk::Attrs& p) {
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr net = sdk::var("data", sdk::Type::tensor(shape, p.get_dtype("dtype")));
  if (p.get_string("version") == "1.0") {
    net = stem(net, 96, 7, 3);
    net = fire(net, 16, 64, 64, "fire1");
    net = fire(net, 16, 64, 64, "fire2");
    net = fire(net, 32, 128, 128, "fire3");
    net = max_pool(net);
    net = fire(net, 32, 128, 128, "fire4");
    net = fire(net, 48, 192, 192, "fire5");
    net = fire(net, 48, 192, 192, "fire6");
    net = fire(net, 64, 256, 256, "fire7");
    net = max_pool(net);
    net = fire(net, 64, 256, 256, "fire8");
  } else {
    net = stem(net, 64, 3, 1);
    net = fire(net, 16, 64, 64, "fire1");
    net = fire(net, 16, 64, 64, "fire2");
    net = max_pool(net);
    net = fire(net, 32, 128, 128, "fire3");
    net = fire(net, 32, 128, 128, "fire4");
    net = max_pool(net);
    net = fire(net, 48, 192, 192, "fire5");
    net = fire(net, 48, 192, 192, "fire6");
    net = fire(net, 64, 256, 256, "fire7");
    net = fire(net, 64, 256, 256, "fire8");
  }
  net = sdk::get_item(sdk::call("nn.dropout", {net}, {{"rate", 0.5}}), 0);
  net = layers::conv2d(net, "conv_final", {{"channels", p.get_int("num_classes")}, {"kernel_size", Ints{1, 1}}});
  net = sdk::call("nn.relu", {sdk::call("nn.bias_add", {net, sdk::var("conv_final_bias")})});
  net = sdk::call("nn.batch_flatten", {sdk::call("nn.global_avg_pool2d", {net})});
  return models::function_of_free_vars(sdk::call("nn.softmax", {net}));
}

/// The reference's assertion on version.
sdk::Normalizer known_version() {
  return [](const sdk::Value& v) {
    const std::string version = v.as_string();
    if (version != "1.0" && version != "1.1") {
      throw sdk::Error("Unsupported SqueezeNet version " + version + ": 1.0 or 1.1 expected");
    }
    return v;
  };
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("squeezenet")
      .describe("SqueezeNet (relay.testing.squeezenet), version 1.0 or 1.1.")
      .param("batch_size", int64_t{1}, "The batch size.", "a positive int")
      .normalize(models::positive_int("batch_size"))
      .param("num_classes", int64_t{1000}, "Number of classes.", "a positive int")
      .normalize(models::positive_int("num_classes"))
      .param("version", std::string("1.0"), "\"1.0\" or \"1.1\".", "1.0 or 1.1")
      .normalize(known_version())
      .param("image_shape", std::vector<int64_t>{3, 224, 224}, "The input image shape (NCHW).",
             "positive ints, e.g. 3x224x224")
      .normalize(models::positive_ints("image_shape", 3))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .variant("{version}", {}, "version: 1.0 or 1.1")
      .build(build_squeezenet);
}
