// Helpers shared by the nn transform-family tests: small tensors written out
// by hand, and the message of an expected type or run error.
#pragma once

#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "../op_golden.h"

namespace weft::testing {

inline const DataType f32 = DataType::Float(32);
inline const DataType f64 = DataType::Float(64);

inline Tensor values(std::vector<double> v, std::vector<int64_t> shape, DataType dtype = f32) {
  Tensor t = Tensor::empty(std::move(shape), dtype);
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == f64)
      t.data_as<double>()[i] = v[i];
    else if (dtype == f32)
      t.data_as<float>()[i] = static_cast<float>(v[i]);
    else if (dtype == DataType::Int(32))
      t.data_as<int32_t>()[i] = static_cast<int32_t>(v[i]);
    else if (dtype == DataType::Int(8))
      t.data_as<int8_t>()[i] = static_cast<int8_t>(v[i]);
    else
      throw std::runtime_error("values(): dtype not handled");
  }
  return t;
}

inline std::vector<double> elements(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

inline AttrValue pairs(std::vector<std::vector<int64_t>> p) {
  std::vector<AttrValue> items;
  for (auto& pair : p) items.emplace_back(std::move(pair));
  return AttrValue(std::move(items));
}

inline AttrValue ints(std::vector<int64_t> v) { return AttrValue(std::move(v)); }

inline std::string run_error(const std::string& op, const std::vector<Tensor>& inputs, AttrList attrs = {}) {
  try {
    run_op(op, inputs, std::move(attrs));
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << op << ": expected an error";
  return "";
}

}  // namespace weft::testing
