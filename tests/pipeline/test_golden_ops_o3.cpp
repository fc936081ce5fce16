// Every golden case of the tensor and nn plugins (NumPy/PyTorch oracles written
// by their gen_*.py scripts) after -O3 (the semantics goal for the op
// plugins' golden data): the case's op over its inputs, given once as main's
// parameters (the pipeline's rewrites, fusion and layout passes see the op)
// and once bound as constants (FoldConstant evaluates it), must still match
// the expected tensors within the tolerance the op's own golden test uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "o3.h"
#include "support/op_test.h"

namespace weft::testing {
namespace {

struct GoldenCase {
  std::string file;  // e.g. "nn/norm.json"
  nlohmann::json data;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.file << ": " << c.data.at("name").get<std::string>(); }

// The tensor plugin's files hold a list of cases, the nn plugin's {"cases": [...]}.
std::vector<GoldenCase> load_cases() {
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

// |got - want| <= atol + rtol * |want|, as check_golden_cases (op_golden.h) reads it.
struct Tolerance {
  double rtol, atol;
};

// Tolerances of the files whose own tests loosen the default (1e-5, 1e-6):
// the norms' sums (test_norm.cpp) and winograd's transforms (test_conv_winograd.cpp).
Tolerance tolerance_of(const std::string& file) {
  static const std::map<std::string, Tolerance> looser = {{"nn/norm.json", {2e-5, 2e-5}},
                                                          {"nn/conv_winograd.json", {1e-4, 1e-4}}};
  auto it = looser.find(file);
  return it == looser.end() ? Tolerance{1e-5, 1e-6} : it->second;
}

// main(in0, in1, ...) = op(in0, in1, ...), or op((in0, in1, ...)) for the ops
// that take a tuple, typed.
IRModule program_of(const nlohmann::json& c, const std::vector<Tensor>& inputs) {
  std::vector<Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), tensor_type(inputs[i].shape(), inputs[i].dtype())));
    args.push_back(params.back());
  }
  if (c.value("tuple_input", false)) args = {tuple(args)};
  return infer_type(IRModule::from_function(function(params, call(c.at("op"), args, attrs_from_json(c.at("attrs"))))));
}

void expect_golden(const Value& got, const nlohmann::json& c, Tolerance tol) {
  if (c.contains("outputs")) {
    ASSERT_TRUE(got.is_tuple());
    ASSERT_EQ(got.fields().size(), c.at("outputs").size());
    for (size_t i = 0; i < got.fields().size(); ++i)
      expect_close(got.fields()[i].tensor(), c.at("outputs")[i], tol.rtol, tol.atol);
  } else {
    expect_close(got.tensor(), c.at("output"), tol.rtol, tol.atol);
  }
}

class GoldenOpsAtO3 : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenOpsAtO3, MatchesTheGoldenOutputsWithInputsAsParametersAndAsBoundConstants) {
  const nlohmann::json& c = GetParam().data;
  std::vector<Tensor> inputs;
  std::map<std::string, Tensor> bound;
  std::vector<Value> args;
  for (const auto& t : c.at("inputs")) {
    inputs.push_back(tensor_from_json(t));
    bound.emplace("in" + std::to_string(bound.size()), inputs.back());
    args.emplace_back(inputs.back());
  }
  IRModule mod = program_of(c, inputs);
  Tolerance tol = tolerance_of(GetParam().file);
  {
    SCOPED_TRACE("inputs as parameters");
    expect_golden(Interpreter(optimize_o3(mod)).run_main(args), c, tol);
  }
  {
    SCOPED_TRACE("inputs bound as constants");
    IRModule folded = optimize_o3(bind_params(mod, bound));
    ASSERT_TRUE(folded.main()->params.empty());
    expect_golden(Interpreter(folded).run_main({}), c, tol);
  }
}

INSTANTIATE_TEST_SUITE_P(PluginGoldenData, GoldenOpsAtO3, ::testing::ValuesIn(load_cases()), [](const auto& info) {
  std::string name = info.param.file + "_" + std::to_string(info.index);
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

}  // namespace
}  // namespace weft::testing
