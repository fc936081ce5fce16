// The op plugins' golden cases (plugins/tensor/tests/golden and
// plugins/nn/tests/golden, written by their gen_*.py scripts from NumPy and
// PyTorch) as one list, each case as a one-op program over its inputs, for the
// suites that run every op case: -O3 (tests/pipeline) and every target
// (tests/conformance). A suite using it defines WEFT_TENSOR_GOLDEN_DIR and
// WEFT_NN_GOLDEN_DIR (tests/CMakeLists.txt: weft_use_golden_cases).
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "support/op_test.h"

namespace weft::testing {

struct GoldenCase {
  std::string file;  // e.g. "nn/norm.json"
  nlohmann::json data;
};

inline void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.file << ": " << c.data.at("name").get<std::string>();
}

/// Every case of both plugins, files in name order. The tensor plugin's files
/// hold a list of cases, the nn plugin's {"cases": [...]}.
inline std::vector<GoldenCase> load_golden_cases() {
  std::vector<GoldenCase> out;
  for (const auto& [plugin, dir] : {std::pair{"tensor", WEFT_TENSOR_GOLDEN_DIR}, std::pair{"nn", WEFT_NN_GOLDEN_DIR}}) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      nlohmann::json j = read_json(path.string());
      const nlohmann::json& cases = j.is_object() ? j.at("cases") : j;
      for (const auto& c : cases) out.push_back({std::string(plugin) + "/" + path.filename().string(), c});
    }
  }
  return out;
}

/// The case's input tensors, in order.
inline std::vector<Tensor> golden_case_inputs(const nlohmann::json& c) {
  std::vector<Tensor> inputs;
  for (const auto& t : c.at("inputs")) inputs.push_back(tensor_from_json(t));
  return inputs;
}

/// main(in0, in1, ...) = op(in0, in1, ...), or op((in0, in1, ...)) for the ops
/// that take a tuple, typed.
inline IRModule golden_case_program(const nlohmann::json& c, const std::vector<Tensor>& inputs) {
  std::vector<Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), tensor_type(inputs[i].shape(), inputs[i].dtype())));
    args.push_back(params.back());
  }
  if (c.value("tuple_input", false)) args = {tuple(args)};
  return infer_type(IRModule::from_function(function(params, call(c.at("op"), args, attrs_from_json(c.at("attrs"))))));
}

/// A GoogleTest name for the case at `index` of `file`: "nn_norm_json_12".
inline std::string golden_case_test_name(const GoldenCase& c, size_t index) {
  std::string name = c.file + "_" + std::to_string(index);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

}  // namespace weft::testing
