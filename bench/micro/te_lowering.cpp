// Lowering a model's fused groups to loop IR (issue 15's goal: all of
// resnet-50's groups at -O3 in <= 0.5 s): each group's TE (function_te), its
// default schedule and lower(), the bounds proof included, for every group
// whose ops all have TE computes. Counters: groups lowered, and groups left
// out for an op without TE.
// Run: build/bin/weft_bench_te_lowering [--benchmark_filter=resnet-50].
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/model.h"
#include "weft/model_spec.h"
#include "weft/passes.h"
#include "weft/te/default_schedule.h"
#include "weft/te/function_te.h"
#include "weft/te/lower.h"
#include "weft/workload.h"

namespace weft {
namespace {

/// The model's fused groups at -O3, built for loops (fallback warn), its
/// weights bound as `weft run` binds them.
std::vector<Function> fused_groups(const std::string& spec) {
  Workload w = create_workload(build_model(parse_model_spec(spec)), "xavier");
  std::map<std::string, Tensor> weights(w.params.begin(), w.params.end());
  RunConfig config;
  config.targets = {"loops"};
  config.opt_level = 3;
  std::shared_ptr<const CompiledModule> compiled = build(bind_params(w.mod, weights), config);
  std::vector<Function> groups;
  for (const CompiledGroup& g : compiled->groups) groups.push_back(g.primitive);
  return groups;
}

void BM_LowerAllGroups(benchmark::State& state, const std::string& spec) {
  const std::vector<Function> groups = fused_groups(spec);
  const te::TargetTraits traits{8, 2};
  int64_t lowered = 0, without_te = 0;
  for (auto _ : state) {
    lowered = without_te = 0;
    for (const Function& fn : groups) {
      te::FunctionTe fte;
      try {
        fte = te::function_te(fn);
      } catch (const Error&) {
        ++without_te;
        continue;
      }
      benchmark::DoNotOptimize(te::lower(te::default_schedule(fte.outputs, traits), "group", fte.inputs()));
      ++lowered;
    }
  }
  state.counters["groups_lowered"] = static_cast<double>(lowered);
  state.counters["groups_without_te"] = static_cast<double>(without_te);
}

BENCHMARK_CAPTURE(BM_LowerAllGroups, resnet-50, std::string("resnet-50"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LowerAllGroups, mobilenet, std::string("mobilenet"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace weft

BENCHMARK_MAIN();
