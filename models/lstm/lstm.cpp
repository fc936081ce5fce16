// lstm: the reference toolkit's unrolled LSTM RNN (relay.testing.lstm). Each
// step calls its own cell function (inputs, (h, c) states, i2h/h2h weights
// and biases) -> (next_h, (next_h, next_c)), written as a let chain with
// typed bindings as the reference's ScopeBuilder writes it. Every step reads
// a fresh input variable named `data` and its own i2h_<i>_weight, i2h_<i>_bias,
// h2h_<i>_weight and h2h_<i>_bias; the states start as zeros.
#include <string>
#include <utility>
#include <vector>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace layers = weft::sdk::layers;
using sdk::Expr;
using sdk::Type;

/// The bindings of a ScopeBuilder: `let name: type = value` in order, then a result.
class LetChain {
 public:
  /// Binds `value` to a new variable `name` of `type` and returns the variable.
  Expr let(const std::string& name, const Type& type, const Expr& value) {
    Expr v = sdk::var(name, type);
    bindings_.emplace_back(v, value);
    return v;
  }
  /// The nested lets ending in `result`.
  Expr get(Expr result) const {
    for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it) result = sdk::let(it->first, it->second, result);
    return result;
  }

 private:
  std::vector<std::pair<Expr, Expr>> bindings_;
};

struct CellTypes {
  Type input, weight, bias, dense, state, slices, cell;
  CellTypes(int64_t batch_size, int64_t num_hidden, DLDataType dtype)
      : input(Type::tensor({batch_size, num_hidden}, dtype)),
        weight(Type::tensor({4 * num_hidden, num_hidden}, dtype)),
        bias(Type::tensor({4 * num_hidden}, dtype)),
        dense(Type::tensor({batch_size, 4 * num_hidden}, dtype)),
        state(Type::tuple({input, input})),
        slices(Type::tuple({input, input, input, input})),
        cell(Type::tuple({input, state})) {}
};

/// One LSTM step as a function of (inputs, states, i2h_weight, i2h_bias,
/// h2h_weight, h2h_bias).
Expr lstm_cell(const CellTypes& t, int64_t num_hidden) {
  Expr inputs = sdk::var("inputs", t.input);
  Expr states = sdk::var("states", t.state);
  Expr i2h_weight = sdk::var("i2h_weight", t.weight), i2h_bias = sdk::var("i2h_bias", t.bias);
  Expr h2h_weight = sdk::var("h2h_weight", t.weight), h2h_bias = sdk::var("h2h_bias", t.bias);
  const sdk::AttrList units = {{"units", 4 * num_hidden}};

  LetChain b;
  Expr i2h = b.let("i2h", t.dense, layers::dense_add_bias(inputs, "i2h", units, i2h_weight, i2h_bias));
  Expr h2h =
      b.let("h2h", t.dense, layers::dense_add_bias(sdk::get_item(states, 0), "h2h", units, h2h_weight, h2h_bias));
  Expr gates = b.let("gates", t.dense, sdk::call("add", {i2h, h2h}));
  Expr slice_gates = b.let("slice_gates", t.slices,
                           sdk::call("split", {gates}, {{"indices_or_sections", int64_t{4}}, {"axis", int64_t{1}}}));
  Expr in_gate = b.let("in_gate", t.input, sdk::call("sigmoid", {sdk::get_item(slice_gates, 0)}));
  Expr forget_gate = b.let("forget_gate", t.input, sdk::call("sigmoid", {sdk::get_item(slice_gates, 1)}));
  Expr in_transform = b.let("in_transform", t.input, sdk::call("tanh", {sdk::get_item(slice_gates, 2)}));
  Expr out_gate = b.let("out_gate", t.input, sdk::call("sigmoid", {sdk::get_item(slice_gates, 3)}));
  Expr next_c = b.let("next_c", t.input,
                      sdk::call("add", {sdk::call("multiply", {forget_gate, sdk::get_item(states, 1)}),
                                        sdk::call("multiply", {in_gate, in_transform})}));
  Expr next_h = b.let("next_h", t.input, sdk::call("multiply", {out_gate, sdk::call("tanh", {next_c})}));
  Expr ret = b.let("ret", t.cell, sdk::tuple({next_h, sdk::tuple({next_h, next_c})}));
  return sdk::function({inputs, states, i2h_weight, i2h_bias, h2h_weight, h2h_bias}, b.get(ret), t.cell);
}

Expr build_lstm(const sdk::Attrs& p) {
  const int64_t iterations = p.get_int("iterations"), num_hidden = p.get_int("num_hidden");
  const int64_t batch_size = p.get_int("batch_size");
  const DLDataType dtype = p.get_dtype("dtype");
  const CellTypes t(batch_size, num_hidden, dtype);

  LetChain b;
  Expr zeros =
      b.let("zeros", t.input,
            sdk::call("zeros", {}, {{"shape", std::vector<int64_t>{batch_size, num_hidden}}, {"dtype", dtype}}));
  Expr states = b.let("init_states", t.state, sdk::tuple({zeros, zeros}));
  Expr out;
  for (int64_t i = 0; i < iterations; ++i) {
    const std::string step = std::to_string(i);
    std::vector<Expr> args = {sdk::var("data", t.input),
                              states,
                              sdk::var("i2h_" + step + "_weight", t.weight),
                              sdk::var("i2h_" + step + "_bias", t.bias),
                              sdk::var("h2h_" + step + "_weight", t.weight),
                              sdk::var("h2h_" + step + "_bias", t.bias)};
    Expr call = b.let("call_" + step, t.cell, sdk::call_function(lstm_cell(t, num_hidden), args));
    out = b.let("out_" + step, t.input, sdk::get_item(call, 0));
    states = b.let("states_" + step, t.state, sdk::get_item(call, 1));
  }
  Expr body = b.get(out);
  return sdk::function(sdk::free_vars(body), body, t.input);
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("lstm")
      .describe(
          "An unrolled LSTM RNN (relay.testing.lstm): `iterations` cells, each with its own weights and its "
          "own `data` input of shape (batch_size, num_hidden); returns the last hidden state.")
      .param_required("iterations", WEFT_ATTR_INT, "The number of unrolled steps (no default, as in the reference).",
                      "a positive int")
      .normalize(models::positive_int("iterations"))
      .param_required("num_hidden", WEFT_ATTR_INT, "The size of the hidden state (no default, as in the reference).",
                      "a positive int")
      .normalize(models::positive_int("num_hidden"))
      .param("batch_size", int64_t{1}, "The batch size.", "a positive int")
      .normalize(models::positive_int("batch_size"))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .build(build_lstm);
}
