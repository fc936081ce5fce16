// Runs a zoo model on the interpreter, as `weft run` does: the workload's
// initialized parameters, and uniform(0, 1) inputs drawn like NumPy for every
// `data` parameter (the LSTM has one per step).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/interpreter.h"
#include "weft/model_spec.h"
#include "weft/testing/random_data.h"
#include "weft/workload.h"

namespace weft::model_testing {

/// Arguments for main of `w`: its parameters, and uniform(0, 1) values drawn
/// with seed 0 for every `data` parameter.
inline std::vector<Value> model_args(const Workload& w) {
  sdk::NumpyRandomState state(0);
  std::vector<Value> args;
  size_t next_param = 0;
  for (const Var& v : w.mod.main()->params) {
    if (v->name_hint == "data") {
      auto t = downcast<TensorTypeNode>(v->checked_type());
      args.emplace_back(testing::rand(t->dtype, std::vector<int64_t>(t->shape.begin(), t->shape.end()), state));
    } else {
      args.emplace_back(w.params.at(next_param++).second);
    }
  }
  return args;
}

/// Of `all_args` (model_args(w)), those of main's `data` parameters, in
/// order: what is left to pass once the parameters are bound.
inline std::vector<Value> data_args(const Workload& w, const std::vector<Value>& all_args) {
  std::vector<Value> data;
  const std::vector<Var>& params = w.mod.main()->params;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i]->name_hint == "data") data.push_back(all_args[i]);
  return data;
}

/// The output of model `spec` with initializer `initializer` (seed 0) on random inputs.
inline Value run_model(const std::string& spec, std::string_view initializer = "xavier") {
  Workload w = create_workload(build_model(parse_model_spec(spec)), initializer);
  return Interpreter(w.mod).run_main(model_args(w));
}

/// The output tensor's values as doubles (float32 outputs).
inline std::vector<double> values_of(const Value& out) {
  const Tensor& t = out.tensor("model output");
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.data_as<float>()[i]);
  return v;
}

/// Row sums of a (rows, classes) float32 output: 1 for a softmax.
inline std::vector<double> row_sums(const Value& out) {
  const Tensor& t = out.tensor("model output");
  const int64_t classes = t.shape().back();
  std::vector<double> sums(t.numel() / classes, 0.0);
  for (int64_t i = 0; i < t.numel(); ++i) sums[i / classes] += t.data_as<float>()[i];
  return sums;
}

}  // namespace weft::model_testing
