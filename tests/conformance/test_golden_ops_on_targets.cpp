// Every golden op case of the tensor and nn plugins on every target, as
// ggml's test-backend-ops runs every op on every backend: built for the
// target alone (ref runs what it does not support), run by the graph executor
// and compared with the reference kernels on the interpreter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conformance_check.h"
#include "support/golden_cases.h"

namespace weft::testing {
namespace {

struct OpCaseOnTarget {
  std::string target;
  GoldenCase golden;
  size_t index;  // in load_golden_cases(), for the test's name
};

void PrintTo(const OpCaseOnTarget& c, std::ostream* os) {
  *os << c.target << " / ";
  PrintTo(c.golden, os);
}

std::vector<OpCaseOnTarget> op_cases_on_targets() {
  std::vector<GoldenCase> cases = load_golden_cases();
  std::vector<OpCaseOnTarget> out;
  for (const std::string& target : targets_under_test())
    for (size_t i = 0; i < cases.size(); ++i) out.push_back({target, cases[i], i});
  return out;
}

class GoldenOpsOnTargets : public ::testing::TestWithParam<OpCaseOnTarget> {};

TEST_P(GoldenOpsOnTargets, MatchTheReferenceKernels) {
  const nlohmann::json& c = GetParam().golden.data;
  std::vector<Tensor> inputs = golden_case_inputs(c);
  std::vector<Value> args(inputs.begin(), inputs.end());
  IRModule mod = golden_case_program(c, inputs);
  check_on_target(GetParam().target, mod, args, Interpreter(mod).run_main(args), CaseKind::kOp);
}

INSTANTIATE_TEST_SUITE_P(Conformance, GoldenOpsOnTargets, ::testing::ValuesIn(op_cases_on_targets()),
                         [](const auto& info) {
                           return info.param.target + "_" + golden_case_test_name(info.param.golden, info.param.index);
                         });

}  // namespace
}  // namespace weft::testing
