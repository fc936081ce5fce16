// dqn: the Nature DQN of relay.testing.dqn (Mnih et al. 2015): three convs,
// each with its bias, then two dense layers giving one value per action.
#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
using sdk::Expr;

/// conv2d over `<name>_weight`, then bias_add with `<name>_bias` on the
/// layout's channel axis, then relu.
Expr conv_relu(const Expr& data, const std::string& name, int64_t channels, int64_t kernel, int64_t stride,
               const std::string& layout) {
  Expr conv = sdk::layers::conv2d(data, name,
                                  {{"channels", channels},
                                   {"kernel_size", std::vector<int64_t>{kernel, kernel}},
                                   {"strides", std::vector<int64_t>{stride, stride}},
                                   {"padding", std::vector<int64_t>{0, 0}},
                                   {"data_layout", layout},
                                   {"kernel_layout", sdk::layers::conv_kernel_layout(layout)}});
  Expr biased = sdk::call("nn.bias_add", {conv, sdk::var(name + "_bias")},
                          {{"axis", static_cast<int64_t>(layout.find('C'))}});
  return sdk::call("nn.relu", {biased});
}

Expr build_dqn(const sdk::Attrs& p) {
  std::string layout = p.get_string("layout");
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr data = sdk::var("data", sdk::Type::tensor(shape, p.get_dtype("dtype")));
  Expr relu1 = conv_relu(data, "conv1", 32, 8, 4, layout);
  Expr relu2 = conv_relu(relu1, "conv2", 64, 4, 2, layout);
  Expr relu3 = conv_relu(relu2, "conv3", 64, 3, 1, layout);
  Expr bf1 = sdk::call("nn.batch_flatten", {relu3});
  Expr relu4 = sdk::call("nn.relu", {sdk::layers::dense_add_bias(bf1, "dense1", {{"units", 512}})});
  Expr dense2 = sdk::layers::dense_add_bias(relu4, "dense2", {{"units", p.get_int("num_actions")}});
  return models::function_of_free_vars(dense2);
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("dqn")
      .describe("The Nature DQN (relay.testing.dqn): convs of 32 8x8/4, 64 4x4/2 and 64 3x3/1 with biases and "
                "relu, a 512-unit dense layer and one output per action.")
      .param("batch_size", int64_t{1}, "The batch size (the reference has no default; weft takes 1).")
      .normalize(models::positive_int("batch_size"))
      .param("num_actions", int64_t{18}, "Number of actions.")
      .normalize(models::positive_int("num_actions"))
      .param("image_shape", std::vector<int64_t>{4, 84, 84}, "The input shape: stacked frames, in the layout's order.",
             "3 positive ints, e.g. 4x84x84")
      .normalize(models::positive_ints("image_shape", 3))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .param("layout", std::string("NCHW"), "The data layout.", "NCHW or NHWC")
      .normalize(models::one_of("layout", {"NCHW", "NHWC"}))
      .build(build_dqn);
}
