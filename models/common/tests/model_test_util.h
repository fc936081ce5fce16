// Shared by the model families' tests: build a zoo model by name, type it, and
// read its parameters (name, shape, dtype, in order), element count and op counts.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "weft/model_spec.h"
#include "weft/module.h"
#include "weft/passes.h"
#include "weft/testing/count_ops.h"
#include "weft/type.h"

namespace weft::model_testing {

struct TypedParam {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  friend bool operator==(const TypedParam& a, const TypedParam& b) {
    return a.name == b.name && a.shape == b.shape && a.dtype == b.dtype;
  }
  friend std::ostream& operator<<(std::ostream& os, const TypedParam& p) {
    os << p.name << " (";
    for (size_t i = 0; i < p.shape.size(); ++i) os << (i ? ", " : "") << p.shape[i];
    return os << ") " << p.dtype;
  }
};

/// The model `spec` names, as the main function of a typed module.
inline IRModule typed_model(const std::string& spec) {
  return infer_type(IRModule::from_function(build_model(parse_model_spec(spec))));
}

/// Every parameter of main (data included), in order, with its inferred type.
inline std::vector<TypedParam> typed_params(const IRModule& mod) {
  std::vector<TypedParam> out;
  for (const Var& v : mod.main()->params) {
    auto t = downcast<TensorTypeNode>(v->checked_type());
    if (!t) throw std::runtime_error("parameter " + v->name_hint + " is not a tensor");
    std::vector<int64_t> dims;
    dims.assign(t->shape.begin(), t->shape.end());
    out.push_back({v->name_hint, dims, t->dtype.str()});
  }
  return out;
}

/// Elements in every parameter except `data`, as published parameter counts count.
inline int64_t param_count(const IRModule& mod) {
  int64_t total = 0;
  for (const TypedParam& p : typed_params(mod)) {
    if (p.name == "data") continue;
    int64_t n = 1;
    for (int64_t d : p.shape) n *= d;
    total += n;
  }
  return total;
}

/// The message of the weft::Error that `spec` raises when built; "" if none.
inline std::string build_error(const std::string& spec) {
  try {
    typed_model(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace weft::model_testing
