// Every golden case of the tensor and nn plugins (NumPy/PyTorch oracles written
// by their gen_*.py scripts) after -O3 (the semantics goal for the op
// plugins' golden data): the case's op over its inputs, given once as main's
// parameters (the pipeline's rewrites, fusion and layout passes see the op)
// and once bound as constants (FoldConstant evaluates it), must still match
// the expected tensors within the tolerance the op's own golden test uses.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "o3.h"
#include "support/golden_cases.h"

namespace weft::testing {
namespace {

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
  std::vector<Tensor> inputs = golden_case_inputs(c);
  std::map<std::string, Tensor> bound;
  std::vector<Value> args;
  for (const Tensor& t : inputs) {
    bound.emplace("in" + std::to_string(bound.size()), t);
    args.emplace_back(t);
  }
  IRModule mod = golden_case_program(c, inputs);
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

INSTANTIATE_TEST_SUITE_P(PluginGoldenData, GoldenOpsAtO3, ::testing::ValuesIn(load_golden_cases()),
                         [](const auto& info) { return golden_case_test_name(info.param, info.index); });

}  // namespace
}  // namespace weft::testing
