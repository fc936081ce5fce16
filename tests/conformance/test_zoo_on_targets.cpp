// Every zoo model at its test size on every target, its workload's parameters
// bound as relay.build(params=...) binds them (so targets see constant
// weights to pack at compile): the graph executor's outputs against the
// unoptimized model on the interpreter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conformance_check.h"
#include "model_run_util.h"
#include "support/zoo_test_sizes.h"
#include "weft/passes.h"

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

TEST_P(ZooOnTargets, MatchesTheUnoptimizedModelOnTheInterpreter) {
  Workload w = create_workload(build_model(parse_model_spec(GetParam().spec)), "xavier");
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
