// mobilenet: the reference toolkit's MobileNet (relay.testing.mobilenet, a
// port of NNVM's): a strided conv block, then separable blocks (a depthwise
// 3x3 conv and a pointwise 1x1 conv, each with batch norm and relu), global
// average pooling, a dense classifier with bias and softmax. Channel counts
// are int(c * alpha). NHWC uses HWIO kernels and, for the depthwise convs,
// HWOI ones, as the reference's conv_kernel_layout maps them.
#include <string>
#include <vector>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace layers = weft::sdk::layers;
using sdk::Expr;
using Ints = std::vector<int64_t>;

struct Net {
  std::string layout;
  DLDataType dtype;
  double alpha;
  /// int(c * alpha), as the reference truncates.
  int64_t width(int64_t c) const { return static_cast<int64_t>(static_cast<double>(c) * alpha); }
};

/// 3x3 conv with stride 2 (the one way the reference calls its conv_block),
/// bn, relu. The reference leaves this batch norm on its default axis 1,
/// whatever the layout; so does weft.
Expr conv_block(const Net& net, const Expr& x, const std::string& name, int64_t channels) {
  Expr conv = layers::conv2d(x, name + "_conv",
                             {{"channels", channels},
                              {"kernel_size", Ints{3, 3}},
                              {"strides", Ints{2, 2}},
                              {"padding", Ints{1, 1}},
                              {"data_layout", net.layout},
                              {"kernel_layout", layers::conv_kernel_layout(net.layout)}});
  return sdk::call("nn.relu", {layers::batch_norm_infer(conv, name + "_bn", {{"epsilon", 1e-5}})});
}

Expr separable_conv_block(const Net& net, const Expr& x, const std::string& name, int64_t depthwise_channels,
                          int64_t pointwise_channels, bool downsample = false) {
  const int64_t stride = downsample ? 2 : 1;
  // The depthwise weight is declared with its shape, as the reference does
  // (grouped convs do not infer their weight).
  Ints wshape = net.layout == "NCHW" ? Ints{depthwise_channels, 1, 3, 3} : Ints{3, 3, depthwise_channels, 1};
  const int64_t bn_axis = static_cast<int64_t>(net.layout.find('C'));
  Expr weight = sdk::var(name + "_weight", sdk::Type::tensor(wshape, net.dtype));
  Expr conv1 = layers::conv2d(x, name + "_depthwise_conv1",
                              {{"channels", depthwise_channels},
                               {"groups", depthwise_channels},
                               {"kernel_size", Ints{3, 3}},
                               {"strides", Ints{stride, stride}},
                               {"padding", Ints{1, 1}},
                               {"data_layout", net.layout},
                               {"kernel_layout", layers::conv_kernel_layout(net.layout, true)}},
                              weight);
  Expr act1 =
      sdk::call("nn.relu", {layers::batch_norm_infer(conv1, name + "_bn1", {{"epsilon", 1e-5}, {"axis", bn_axis}})});
  Expr conv2 = layers::conv2d(act1, name + "_conv2",
                              {{"channels", pointwise_channels},
                               {"kernel_size", Ints{1, 1}},
                               {"strides", Ints{1, 1}},
                               {"padding", Ints{0, 0}},
                               {"data_layout", net.layout},
                               {"kernel_layout", layers::conv_kernel_layout(net.layout)}});
  return sdk::call("nn.relu", {layers::batch_norm_infer(conv2, name + "_bn2", {{"epsilon", 1e-5}, {"axis", bn_axis}})});
}

std::string block_name(int i) { return "separable_conv_block_" + std::to_string(i); }

Expr build_mobilenet(const sdk::Attrs& p) {
  const Net net{p.get_string("layout"), p.get_dtype("dtype"), p.get_float("alpha")};
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr data = sdk::var("data", sdk::Type::tensor(shape, net.dtype));
  Expr body = conv_block(net, data, "conv_block_1", net.width(32));
  // (depthwise, pointwise, downsample) of blocks 1..6, shared by both depths.
  struct Block {
    int64_t depthwise, pointwise;
    bool downsample;
  };
  const Block common[] = {{32, 64, false},  {64, 128, true},   {128, 128, false},
                          {128, 256, true}, {256, 256, false}, {256, 512, true}};
  int index = 1;
  for (const Block& b : common) {
    body = separable_conv_block(net, body, block_name(index++), net.width(b.depthwise), net.width(b.pointwise),
                                b.downsample);
  }
  if (p.get_bool("is_shallow")) {
    body = separable_conv_block(net, body, block_name(7), net.width(512), net.width(1024), true);
    body = separable_conv_block(net, body, block_name(8), net.width(1024), net.width(1024), true);
  } else {
    for (int i = 7; i < 12; ++i) body = separable_conv_block(net, body, block_name(i), net.width(512), net.width(512));
    body = separable_conv_block(net, body, block_name(12), net.width(512), net.width(1024), true);
    body = separable_conv_block(net, body, block_name(13), net.width(1024), net.width(1024));
  }
  Expr pool = sdk::call("nn.global_avg_pool2d", {body}, {{"layout", net.layout}});
  Expr flatten = sdk::call("nn.batch_flatten", {pool});
  // The reference's bias_add here keeps its default axis 1 (the last axis of
  // the flattened dense output).
  Expr fc = sdk::call("nn.dense", {flatten, sdk::var("fc_weight")}, {{"units", p.get_int("num_classes")}});
  fc = sdk::call("nn.bias_add", {fc, sdk::var("fc_bias")});
  return models::function_of_free_vars(sdk::call("nn.softmax", {fc}));
}

sdk::Normalizer known_layout() {
  return [](const sdk::Value& v) {
    const std::string layout = v.as_string();
    if (layout != "NCHW" && layout != "NHWC")
      throw sdk::Error("Unknown data layout " + layout + " (expected NCHW or NHWC)");
    return v;
  };
}

sdk::Normalizer positive_alpha() {
  return [](const sdk::Value& v) {
    if (!(v.as_float() > 0)) throw sdk::Error("alpha must be positive, got " + std::to_string(v.as_float()));
    return v;
  };
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("mobilenet")
      .describe(
          "MobileNet (relay.testing.mobilenet): depthwise separable convolutions, width multiplier alpha, "
          "13 separable blocks (8 when is_shallow), NCHW or NHWC.")
      .param("batch_size", int64_t{1}, "The batch size.", "a positive int")
      .normalize(models::positive_int("batch_size"))
      .param("num_classes", int64_t{1000}, "Number of classes.", "a positive int")
      .normalize(models::positive_int("num_classes"))
      .param("image_shape", std::vector<int64_t>{3, 224, 224}, "The input image shape, in the data layout.",
             "positive ints, e.g. 3x224x224 (224x224x3 for NHWC)")
      .normalize(models::positive_ints("image_shape", 3))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .param("layout", std::string("NCHW"), "The data layout of image_shape and the operators: NCHW or NHWC.",
             "NCHW or NHWC")
      .normalize(known_layout())
      .param("alpha", 1.0, "Width multiplier: every channel count c becomes int(c * alpha).", "a positive number")
      .normalize(positive_alpha())
      .param("is_shallow", false, "Build the shallow network (8 separable blocks instead of 13).")
      .build(build_mobilenet);
}
