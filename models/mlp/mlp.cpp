// mlp: the reference toolkit's multilayer perceptron (relay.testing.mlp):
// batch_flatten -> dense(128) -> relu -> dense(64) -> relu -> dense(num_classes)
// -> softmax, each dense followed by its bias.
#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
using sdk::Expr;

Expr build_mlp(const sdk::Attrs& p) {
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr data = sdk::var("data", sdk::Type::tensor(shape, p.get_dtype("dtype")));
  data = sdk::call("nn.batch_flatten", {data});
  // Each dense is followed by bias_add(axis=-1) over `<name>_weight`, `<name>_bias`.
  Expr act1 = sdk::call("nn.relu", {sdk::layers::dense_add_bias(data, "fc1", {{"units", 128}})});
  Expr act2 = sdk::call("nn.relu", {sdk::layers::dense_add_bias(act1, "fc2", {{"units", 64}})});
  Expr fc3 = sdk::layers::dense_add_bias(act2, "fc3", {{"units", p.get_int("num_classes")}});
  return models::function_of_free_vars(sdk::call("nn.softmax", {fc3}));
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("mlp")
      .describe("A simple multilayer perceptron (relay.testing.mlp): two hidden dense layers of 128 and 64 "
                "units with relu, a dense classifier and softmax.")
      .param("batch_size", int64_t{1}, "The batch size (the reference has no default; weft takes 1).")
      .normalize(models::positive_int("batch_size"))
      .param("num_classes", int64_t{10}, "Number of classes.")
      .normalize(models::positive_int("num_classes"))
      .param("image_shape", std::vector<int64_t>{1, 28, 28}, "The input image shape.", "positive ints, e.g. 1x28x28")
      .normalize(models::positive_ints("image_shape"))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .build(build_mlp);
}
