// Shared helpers for operator tests: build tensors from golden JSON, run one op
// through type inference and the interpreter, and compare with the oracle.
// A libweft_core in the build tree finds the build tree's plugins by itself, so
// asking for an op by name loads the plugin that provides it.
//
// Golden files are JSON written by a committed generator script (NumPy or
// PyTorch) and hold cases like
//   {"name": "...", "attrs": {...}, "inputs": [T, ...], "output": T}
// with T = {"shape": [2, 3], "dtype": "float32", "data": [flat, C order]}.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "weft/interpreter.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/text.h"

namespace weft::testing {

inline const DataType f32 = DataType::Float(32);
inline const DataType f64 = DataType::Float(64);

/// An op call's attributes, in the order they are given.
using AttrList = std::vector<std::pair<std::string, AttrValue>>;

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden file " + path);
  return nlohmann::json::parse(in);
}

inline Tensor tensor_from_json(const nlohmann::json& j) {
  Tensor t = Tensor::empty(j.at("shape").get<std::vector<int64_t>>(), DataType::parse(j.at("dtype").get<std::string>()));
  const auto& data = j.at("data");
  if (static_cast<int64_t>(data.size()) != t.numel()) throw std::runtime_error("golden tensor size mismatch");
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = data[i].is_boolean() ? (data[i].get<bool>() ? 1.0 : 0.0) : data[i].get<double>();
    DataType dt = t.dtype();
    if (dt == DataType::Float(32)) t.data_as<float>()[i] = static_cast<float>(v);
    else if (dt == DataType::Float(64)) t.data_as<double>()[i] = v;
    else if (dt == DataType::Int(32)) t.data_as<int32_t>()[i] = static_cast<int32_t>(v);
    else if (dt == DataType::Int(64)) t.data_as<int64_t>()[i] = static_cast<int64_t>(v);
    else if (dt == DataType::Int(8)) t.data_as<int8_t>()[i] = static_cast<int8_t>(v);
    else if (dt == DataType::Int(16)) t.data_as<int16_t>()[i] = static_cast<int16_t>(v);
    else if (dt == DataType::UInt(16)) t.data_as<uint16_t>()[i] = static_cast<uint16_t>(v);
    else if (dt == DataType::UInt(32)) t.data_as<uint32_t>()[i] = static_cast<uint32_t>(v);
    else if (dt == DataType::UInt(8) || dt == DataType::Bool()) t.data_as<uint8_t>()[i] = static_cast<uint8_t>(v);
    else throw std::runtime_error("golden dtype not handled: " + dt.str());
  }
  return t;
}

/// A tensor in the golden-file form: `values` flat in C order.
inline nlohmann::json tensor_json(std::vector<double> values, std::vector<int64_t> shape, DataType dtype = f32) {
  return {{"shape", std::move(shape)}, {"dtype", dtype.str()}, {"data", std::move(values)}};
}

/// A tensor of any dtype the golden files use, holding `values` flat in C order.
inline Tensor tensor_of(std::vector<double> values, std::vector<int64_t> shape, DataType dtype = f32) {
  return tensor_from_json(tensor_json(std::move(values), std::move(shape), dtype));
}

/// The elements of `t` in C order, as doubles, for matchers such as ElementsAre.
inline std::vector<double> elements(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

/// A list attribute of integer lists, e.g. pad widths [[0, 0], [1, 2]].
inline AttrValue pairs(std::vector<std::vector<int64_t>> p) {
  std::vector<AttrValue> items;
  for (auto& pair : p) items.emplace_back(std::move(pair));
  return AttrValue(std::move(items));
}

/// A list attribute of integers.
inline AttrValue ints(std::vector<int64_t> v) { return AttrValue(std::move(v)); }

/// Attribute values from JSON: numbers, bools, strings, null (None), lists.
inline AttrValue attr_from_json(const nlohmann::json& j) {
  if (j.is_null()) return AttrValue();
  if (j.is_boolean()) return AttrValue(j.get<bool>());
  if (j.is_number_integer()) return AttrValue(j.get<int64_t>());
  if (j.is_number()) return AttrValue(j.get<double>());
  if (j.is_string()) return AttrValue(j.get<std::string>());
  std::vector<AttrValue> items;
  for (const auto& e : j) items.push_back(attr_from_json(e));
  return AttrValue(std::move(items));
}

inline AttrList attrs_from_json(const nlohmann::json& j) {
  AttrList out;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) out.emplace_back(k, attr_from_json(v));
  return out;
}

/// Builds `op(inputs..., attrs)` as main over one parameter per input, infers
/// types and runs it on the interpreter.
inline Value run_op(const std::string& op, const std::vector<Tensor>& inputs,
                    AttrList attrs = {}) {
  std::vector<Var> params;
  std::vector<Expr> args;
  std::vector<Value> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), tensor_type(inputs[i].shape(), inputs[i].dtype())));
    args.push_back(params.back());
    values.emplace_back(inputs[i]);
  }
  Interpreter interp(IRModule::from_function(function(params, call(op, args, std::move(attrs)))));
  return interp.run_main(values);
}

/// The message of the weft::Error `f` throws; a test failure (and "") when it
/// throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

/// The error reading Relay text `text` (as file m.relay) gives; a test failure when it reads.
inline std::string parse_error(const std::string& text) {
  return error_of([&] { parse_module(text, "m.relay"); });
}

/// The error running `op` on these inputs gives; a test failure when it runs.
inline std::string run_error(const std::string& op, const std::vector<Tensor>& inputs, AttrList attrs = {}) {
  SCOPED_TRACE(op);
  return error_of([&] { run_op(op, inputs, std::move(attrs)); });
}

/// The output type text `op` infers for arguments of the given types.
inline std::string infer_op_type(const std::string& op, const std::vector<Type>& arg_types,
                                 AttrList attrs = {}) {
  std::vector<Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i < arg_types.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), arg_types[i]));
    args.push_back(params.back());
  }
  IRModule mod = infer_type(IRModule::from_function(function(params, call(op, args, std::move(attrs)))));
  return type_to_text(mod.main()->body->checked_type());
}

/// The error message type inference gives for `op` on these argument types;
/// a test failure (and "") when it infers a type instead.
inline std::string type_error(const std::string& op, const std::vector<Type>& arg_types, AttrList attrs = {}) {
  SCOPED_TRACE(op + ": expected a type error");
  return error_of([&] { infer_op_type(op, arg_types, std::move(attrs)); });
}

/// Expects `actual` to match the golden tensor elementwise:
/// |a - e| <= atol + rtol * |e|, with equal shapes and dtypes.
inline void expect_close(const Tensor& actual, const nlohmann::json& expected, double rtol = 1e-5,
                         double atol = 1e-6) {
  Tensor e = tensor_from_json(expected);
  ASSERT_EQ(actual.shape(), e.shape());
  ASSERT_EQ(actual.dtype(), e.dtype()) << actual.dtype().str() << " vs " << e.dtype().str();
  int reported = 0;
  for (int64_t i = 0; i < e.numel(); ++i) {
    double a = actual.element_as_double(i), x = e.element_as_double(i);
    bool ok = (std::isnan(a) && std::isnan(x)) || std::fabs(a - x) <= atol + rtol * std::fabs(x);
    if (!ok && reported++ < 5) ADD_FAILURE() << "element " << i << ": got " << a << ", expected " << x;
  }
}

}  // namespace weft::testing
