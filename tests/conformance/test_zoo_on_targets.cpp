// Every zoo model at its test size on every target, its workload's parameters
// bound as relay.build(params=...) binds them (so targets see constant
// weights to pack at compile): the graph executor's outputs against the
// unoptimized model on the interpreter (on loops, the models within the loop
// evaluator's budget).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "conformance_check.h"
#include "model_run_util.h"
#include "support/zoo_test_sizes.h"
#include "weft/passes.h"
#include "weft/testing/count_macs.h"

namespace weft::testing {
namespace {

struct ModelOnTarget {
  std::string target;
  std::string spec;
  size_t index;  // in zoo_test_specs(), for the test's name
};

void PrintTo(const ModelOnTarget& m, std::ostream* os) { *os << m.target << " / " << m.spec; }

std::vector<ModelOnTarget> models_on_targets() {
  std::vector<ModelOnTarget> out;
  for (const std::string& target : targets_under_test())
    for (size_t i = 0; i < zoo_test_specs().size(); ++i) out.push_back({target, zoo_test_specs()[i], i});
  return out;
}

class ZooOnTargets : public ::testing::TestWithParam<ModelOnTarget> {};

/// The most multiply-accumulates a model may have on `loops`, whose evaluator
/// takes about 50 ns each (some 2.5 s): the others are skipped there, saying
/// so, unless WEFT_LOOPS_ALL_MODELS is set (resnet-18, vgg-11 and densenet-121
/// at their test sizes then take minutes).
constexpr int64_t kLoopsMacBudget = 50'000'000;

TEST_P(ZooOnTargets, MatchesTheUnoptimizedModelOnTheInterpreter) {
  Workload w = create_workload(build_model(parse_model_spec(GetParam().spec)), "xavier");
  if (GetParam().target == "loops") {
    const int64_t macs = count_macs(w.mod);
    if (macs > kLoopsMacBudget && !std::getenv("WEFT_LOOPS_ALL_MODELS"))
      GTEST_SKIP() << GetParam().spec << " has " << macs << " multiply-accumulates, more than the loop evaluator's budget of "
                   << kLoopsMacBudget << " for a test";
  }
  std::vector<Value> all_args = model_testing::model_args(w);
  Value want = Interpreter(w.mod).run_main(all_args);
  IRModule bound = bind_params(w.mod, {w.params.begin(), w.params.end()});
  check_on_target(GetParam().target, bound, model_testing::data_args(w, all_args), want, CaseKind::kModel);
}

INSTANTIATE_TEST_SUITE_P(Conformance, ZooOnTargets, ::testing::ValuesIn(models_on_targets()), [](const auto& info) {
  return info.param.target + "_" + zoo_test_name(info.param.spec, info.param.index);
});

}  // namespace
}  // namespace weft::testing
