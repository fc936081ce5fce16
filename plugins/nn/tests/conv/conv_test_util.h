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

}  // namespace weft::testing::conv
