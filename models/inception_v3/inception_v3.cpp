// inception_v3: the reference toolkit's Inception V3 (relay.testing.inception_v3;
// Szegedy et al. 2015), for images of about 299x299: a conv/pool stem, three
// 7A blocks, 7B, four 7C, 7D and two 7E, an 8x8 average pool, a dense layer
// (weight fc1_weight, bias fc2_bias, as the reference names them) and softmax.
#include <string>
#include <vector>

#include "inception_blocks.h"
#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
using inception::conv;
using inception::pooling;
using sdk::Expr;

Expr build_inception_v3(const sdk::Attrs& p) {
  std::vector<int64_t> shape = models::batch_shape(p.get_int("batch_size"), p.get_ints("image_shape"));
  Expr data = sdk::var("data", sdk::Type::tensor(shape, p.get_dtype("dtype")));
  // stage 1
  Expr x = conv(data, 32, {3, 3}, {2, 2}, {0, 0}, "conv");
  x = conv(x, 32, {3, 3}, {1, 1}, {0, 0}, "conv_1");
  x = conv(x, 64, {3, 3}, {1, 1}, {1, 1}, "conv_2");
  x = pooling(x, {3, 3}, {2, 2}, {0, 0}, "max");
  // stage 2
  x = conv(x, 80, {1, 1}, {1, 1}, {0, 0}, "conv_3");
  x = conv(x, 192, {3, 3}, {1, 1}, {0, 0}, "conv_4");
  x = pooling(x, {3, 3}, {2, 2}, {0, 0}, "max");
  // stage 3
  x = inception::inception_7a(x, 64, 64, 96, 96, 48, 64, "avg", 32, "mixed");
  x = inception::inception_7a(x, 64, 64, 96, 96, 48, 64, "avg", 64, "mixed_1");
  x = inception::inception_7a(x, 64, 64, 96, 96, 48, 64, "avg", 64, "mixed_2");
  x = inception::inception_7b(x, 384, 64, 96, 96, "mixed_3");
  // stage 4
  x = inception::inception_7c(x, 192, 128, 128, 192, 128, 128, 128, 128, 192, "avg", 192, "mixed_4");
  x = inception::inception_7c(x, 192, 160, 160, 192, 160, 160, 160, 160, 192, "avg", 192, "mixed_5");
  x = inception::inception_7c(x, 192, 160, 160, 192, 160, 160, 160, 160, 192, "avg", 192, "mixed_6");
  x = inception::inception_7c(x, 192, 192, 192, 192, 192, 192, 192, 192, 192, "avg", 192, "mixed_7");
  x = inception::inception_7d(x, 192, 320, 192, 192, 192, 192, "max", "mixed_8");
  // stage 5
  x = inception::inception_7e(x, 320, 384, 384, 384, 448, 384, 384, 384, "avg", 192, "mixed_9");
  x = inception::inception_7e(x, 320, 384, 384, 384, 448, 384, 384, 384, "max", 192, "mixed_10");
  // pool
  x = pooling(x, {8, 8}, {1, 1}, {0, 0}, "avg");
  Expr flatten = sdk::call("nn.batch_flatten", {x});
  Expr fc1 = sdk::call("nn.dense", {flatten, sdk::var("fc1_weight")}, {{"units", p.get_int("num_classes")}});
  fc1 = sdk::call("nn.bias_add", {fc1, sdk::var("fc2_bias")}, {{"axis", -1}});
  return models::function_of_free_vars(sdk::call("nn.softmax", {fc1}));
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("inception_v3")
      .describe("Inception V3 (relay.testing.inception_v3) for images of about 299x299.")
      .param("batch_size", int64_t{1}, "The batch size.", "a positive int")
      .normalize(models::positive_int("batch_size"))
      .param("num_classes", int64_t{1000}, "Number of classes.", "a positive int")
      .normalize(models::positive_int("num_classes"))
      .param("image_shape", std::vector<int64_t>{3, 299, 299}, "The input image shape (NCHW).",
             "positive ints, e.g. 3x299x299")
      .normalize(models::positive_ints("image_shape", 3))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .build(build_inception_v3);
}
