// acme_net: a family of small classifiers registered from outside weft: data
// of `features` values, `depth` hidden dense layers of `width` units with
// bias and relu, a dense classifier with bias, softmax. Its parameter schema
// (each value checked, with the message users see), variants
// (acme_net-2 .. acme_net-4 fix the depth) and the initializer its workloads
// use (acme_uniform, acme_init.cpp).
#include <weft/plugin.hpp>

#include <string>
#include <utility>

namespace {

using namespace weft::sdk;

Expr build_acme_net(const Attrs& p) {
  Expr x = var("data", Type::tensor({p.get_int("batch_size"), p.get_int("features")}, p.get_dtype("dtype")));
  for (int64_t layer = 0; layer < p.get_int("depth"); ++layer)
    x = call("nn.relu", {layers::dense_add_bias(x, "hidden" + std::to_string(layer), {{"units", p.get_int("width")}})});
  Expr logits = layers::dense_add_bias(x, "classifier", {{"units", p.get_int("classes")}});
  Expr out = call("nn.softmax", {logits});
  return function(free_vars(out), out);
}

/// A normalizer accepting `param`'s ints in [low, high], saying so otherwise.
Normalizer int_in(std::string param, int64_t low, int64_t high) {
  return [param, low, high](const Value& v) {
    if (v.as_int() < low || v.as_int() > high)
      throw Error(param + " must be an int in " + std::to_string(low) + ".." + std::to_string(high) + ", got " +
                  std::to_string(v.as_int()));
    return v;
  };
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("acme_net")
      .describe("ACME's small classifier: depth dense layers of width units with relu, a dense classifier, softmax.")
      .param("batch_size", int64_t{1}, "The batch size.", "an int in 1..4096")
      .normalize(int_in("batch_size", 1, 4096))
      .param("features", int64_t{32}, "The input's values per example.", "an int in 1..65536")
      .normalize(int_in("features", 1, 65536))
      .param("depth", int64_t{2}, "Hidden layers.", "an int in 1..4")
      .normalize(int_in("depth", 1, 4))
      .param("width", int64_t{16}, "Units of each hidden layer.", "an int in 1..4096")
      .normalize(int_in("width", 1, 4096))
      .param("classes", int64_t{10}, "Classes.", "an int in 1..4096")
      .normalize(int_in("classes", 1, 4096))
      .param("dtype", dtype::float32, "The data type.")
      .variant("{depth}", {}, "depth: 1, 2, 3 or 4")
      .initializer("acme_uniform")
      .build(build_acme_net);
}
