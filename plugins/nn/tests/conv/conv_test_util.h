// Helpers shared by the convolution tests: small tensors and error capture.
#pragma once

#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing::conv {

inline const DataType f32 = DataType::Float(32);
inline const DataType f64 = DataType::Float(64);

/// A tensor of `dtype` (float32, float64, int8, uint8) holding `values`.
inline Tensor tensor_of(std::vector<double> values, std::vector<int64_t> shape, DataType dtype = f32) {
  nlohmann::json data = values;
  return tensor_from_json({{"shape", shape}, {"dtype", dtype.str()}, {"data", data}});
}

inline nlohmann::json expected(std::vector<double> values, std::vector<int64_t> shape, DataType dtype = f32) {
  return {{"shape", shape}, {"dtype", dtype.str()}, {"data", values}};
}

/// Runs every case of `op` in golden `file` and compares with its output;
/// returns how many ran. (Holds the parsed file in a local: iterating
/// golden_file(...).at("cases") directly would walk a destroyed temporary.)
inline int check_conv_golden(const std::string& file, const std::string& op, double rtol = 1e-5,
                             double atol = 1e-5) {
  const nlohmann::json golden = golden_file(file);
  int ran = 0;
  for (const auto& c : golden.at("cases")) {
    if (c.at("op") != op) continue;
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<Tensor> inputs;
    for (const auto& t : c.at("inputs")) inputs.push_back(tensor_from_json(t));
    expect_close(run_op(op, inputs, attrs_from_json(c.at("attrs"))).tensor(), c.at("output"), rtol, atol);
    ++ran;
  }
  return ran;
}

/// The message of the type-inference error `op` raises for these argument types.
inline std::string type_error(const std::string& op, const std::vector<Type>& types,
                              std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
  try {
    infer_op_type(op, types, std::move(attrs));
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << op << ": expected a type error";
  return "";
}

}  // namespace weft::testing::conv
