// The reference's Inception blocks, tower by tower in its order (the order
// the concatenation, and so the parameter list, follows).
#include "inception_blocks.h"

namespace inception {

namespace sdk = weft::sdk;
namespace layers = weft::sdk::layers;

Expr conv(const Expr& data, int64_t num_filter, Ints kernel, Ints stride, Ints pad, const std::string& name,
          const std::string& suffix) {
  Expr c = layers::conv2d(data, name + suffix + "_conv1",
                          {{"channels", num_filter}, {"kernel_size", kernel}, {"strides", stride}, {"padding", pad}});
  Expr bn = layers::batch_norm_infer(c, name + suffix + "_bn", {{"epsilon", 2e-5}, {"scale", false}});
  return sdk::call("nn.relu", {bn});
}

Expr pooling(const Expr& data, Ints kernel, Ints stride, Ints pad, const std::string& pool_type) {
  if (pool_type == "max") {
    return sdk::call("nn.max_pool2d", {data}, {{"pool_size", kernel}, {"strides", stride}, {"padding", pad}});
  }
  if (pool_type == "avg") {
    return sdk::call("nn.avg_pool2d", {data},
                     {{"pool_size", kernel}, {"strides", stride}, {"padding", pad}, {"count_include_pad", true}});
  }
  throw sdk::Error("Invalid pooling type: " + pool_type);
}

namespace {
Expr concat(const std::vector<Expr>& towers) { return sdk::call("concatenate", {sdk::tuple(towers)}, {{"axis", 1}}); }
}  // namespace

Expr inception_7a(const Expr& data, int64_t num_1x1, int64_t num_3x3_red, int64_t num_3x3_1, int64_t num_3x3_2,
                  int64_t num_5x5_red, int64_t num_5x5, const std::string& pool, int64_t proj,
                  const std::string& name) {
  Expr tower_1x1 = conv(data, num_1x1, {1, 1}, {1, 1}, {0, 0}, name + "_conv");
  Expr tower_5x5 = conv(data, num_5x5_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower", "_conv");
  tower_5x5 = conv(tower_5x5, num_5x5, {5, 5}, {1, 1}, {2, 2}, name + "_tower", "_conv_1");
  Expr tower_3x3 = conv(data, num_3x3_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower_1", "_conv");
  tower_3x3 = conv(tower_3x3, num_3x3_1, {3, 3}, {1, 1}, {1, 1}, name + "_tower_1", "_conv_1");
  tower_3x3 = conv(tower_3x3, num_3x3_2, {3, 3}, {1, 1}, {1, 1}, name + "_tower_1", "_conv_2");
  Expr pooled = pooling(data, {3, 3}, {1, 1}, {1, 1}, pool);
  Expr cproj = conv(pooled, proj, {1, 1}, {1, 1}, {0, 0}, name + "_tower_2", "_conv");
  return concat({tower_1x1, tower_5x5, tower_3x3, cproj});
}

Expr inception_7b(const Expr& data, int64_t num_3x3, int64_t num_d3x3_red, int64_t num_d3x3_1, int64_t num_d3x3_2,
                  const std::string& name) {
  Expr tower_3x3 = conv(data, num_3x3, {3, 3}, {2, 2}, {0, 0}, name + "_conv");
  Expr tower_d3x3 = conv(data, num_d3x3_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower", "_conv");
  tower_d3x3 = conv(tower_d3x3, num_d3x3_1, {3, 3}, {1, 1}, {1, 1}, name + "_tower", "_conv_1");
  tower_d3x3 = conv(tower_d3x3, num_d3x3_2, {3, 3}, {2, 2}, {0, 0}, name + "_tower", "_conv_2");
  Expr pooled = pooling(data, {3, 3}, {2, 2}, {0, 0}, "max");
  return concat({tower_3x3, tower_d3x3, pooled});
}

Expr inception_7c(const Expr& data, int64_t num_1x1, int64_t num_d7_red, int64_t num_d7_1, int64_t num_d7_2,
                  int64_t num_q7_red, int64_t num_q7_1, int64_t num_q7_2, int64_t num_q7_3, int64_t num_q7_4,
                  const std::string& pool, int64_t proj, const std::string& name) {
  Expr tower_1x1 = conv(data, num_1x1, {1, 1}, {1, 1}, {0, 0}, name + "_conv");
  Expr tower_d7 = conv(data, num_d7_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower", "_conv");
  tower_d7 = conv(tower_d7, num_d7_1, {1, 7}, {1, 1}, {0, 3}, name + "_tower", "_conv_1");
  tower_d7 = conv(tower_d7, num_d7_2, {7, 1}, {1, 1}, {3, 0}, name + "_tower", "_conv_2");
  Expr tower_q7 = conv(data, num_q7_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower_1", "_conv");
  tower_q7 = conv(tower_q7, num_q7_1, {7, 1}, {1, 1}, {3, 0}, name + "_tower_1", "_conv_1");
  tower_q7 = conv(tower_q7, num_q7_2, {1, 7}, {1, 1}, {0, 3}, name + "_tower_1", "_conv_2");
  tower_q7 = conv(tower_q7, num_q7_3, {7, 1}, {1, 1}, {3, 0}, name + "_tower_1", "_conv_3");
  tower_q7 = conv(tower_q7, num_q7_4, {1, 7}, {1, 1}, {0, 3}, name + "_tower_1", "_conv_4");
  Expr pooled = pooling(data, {3, 3}, {1, 1}, {1, 1}, pool);
  Expr cproj = conv(pooled, proj, {1, 1}, {1, 1}, {0, 0}, name + "_tower_2", "_conv");
  return concat({tower_1x1, tower_d7, tower_q7, cproj});
}

Expr inception_7d(const Expr& data, int64_t num_3x3_red, int64_t num_3x3, int64_t num_d7_3x3_red, int64_t num_d7_1,
                  int64_t num_d7_2, int64_t num_d7_3x3, const std::string& pool, const std::string& name) {
  Expr tower_3x3 = conv(data, num_3x3_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower", "_conv");
  tower_3x3 = conv(tower_3x3, num_3x3, {3, 3}, {2, 2}, {0, 0}, name + "_tower", "_conv_1");
  Expr tower_d7_3x3 = conv(data, num_d7_3x3_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower_1", "_conv");
  tower_d7_3x3 = conv(tower_d7_3x3, num_d7_1, {1, 7}, {1, 1}, {0, 3}, name + "_tower_1", "_conv_1");
  tower_d7_3x3 = conv(tower_d7_3x3, num_d7_2, {7, 1}, {1, 1}, {3, 0}, name + "_tower_1", "_conv_2");
  tower_d7_3x3 = conv(tower_d7_3x3, num_d7_3x3, {3, 3}, {2, 2}, {0, 0}, name + "_tower_1", "_conv_3");
  Expr pooled = pooling(data, {3, 3}, {2, 2}, {0, 0}, pool);
  return concat({tower_3x3, tower_d7_3x3, pooled});
}

Expr inception_7e(const Expr& data, int64_t num_1x1, int64_t num_d3_red, int64_t num_d3_1, int64_t num_d3_2,
                  int64_t num_3x3_d3_red, int64_t num_3x3, int64_t num_3x3_d3_1, int64_t num_3x3_d3_2,
                  const std::string& pool, int64_t proj, const std::string& name) {
  Expr tower_1x1 = conv(data, num_1x1, {1, 1}, {1, 1}, {0, 0}, name + "_conv");
  Expr tower_d3 = conv(data, num_d3_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower", "_conv");
  Expr tower_d3_a = conv(tower_d3, num_d3_1, {1, 3}, {1, 1}, {0, 1}, name + "_tower", "_mixed_conv");
  Expr tower_d3_b = conv(tower_d3, num_d3_2, {3, 1}, {1, 1}, {1, 0}, name + "_tower", "_mixed_conv_1");
  Expr tower_3x3_d3 = conv(data, num_3x3_d3_red, {1, 1}, {1, 1}, {0, 0}, name + "_tower_1", "_conv");
  tower_3x3_d3 = conv(tower_3x3_d3, num_3x3, {3, 3}, {1, 1}, {1, 1}, name + "_tower_1", "_conv_1");
  Expr tower_3x3_d3_a = conv(tower_3x3_d3, num_3x3_d3_1, {1, 3}, {1, 1}, {0, 1}, name + "_tower_1", "_mixed_conv");
  Expr tower_3x3_d3_b = conv(tower_3x3_d3, num_3x3_d3_2, {3, 1}, {1, 1}, {1, 0}, name + "_tower_1", "_mixed_conv_1");
  Expr pooled = pooling(data, {3, 3}, {1, 1}, {1, 1}, pool);
  Expr cproj = conv(pooled, proj, {1, 1}, {1, 1}, {0, 0}, name + "_tower_2", "_conv");
  return concat({tower_1x1, tower_d3_a, tower_d3_b, tower_3x3_d3_a, tower_3x3_d3_b, cproj});
}

}  // namespace inception
