// The memory plan of whole -O3 fused models (their parameters bound, as
// weft::build binds them): sound by plan_problems, and within the issue's
// memory goal, an arena of at most half the bytes of all intermediates, and
// close to the least any plan could take.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "fused_schedule.h"
#include "model_run_util.h"
#include "plan_checker.h"
#include "weft/memory_plan.h"
#include "weft/passes.h"
#include "weft/pipeline.h"
#include "weft/workload.h"

namespace weft::testing {
namespace {

IRModule fused_o3(const std::string& spec) {
  Workload w = create_workload(build_model(parse_model_spec(spec)), "xavier");
  std::map<std::string, Tensor> params(w.params.begin(), w.params.end());
  PassContext ctx;
  ctx.opt_level = 3;
  return optimization_pipeline()(bind_params(w.mod, params), ctx);
}

class ModelMemoryPlan : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelMemoryPlan, NeedsAtMostHalfTheBytesOfAllIntermediatesAndLittleOverTheLivePeak) {
  std::vector<PlannedValue> values = fused_schedule(fused_o3(GetParam()).main());
  ASSERT_GT(values.size(), 50u);
  MemoryPlan plan = plan_memory(values);
  EXPECT_THAT(plan_problems(values, plan), ::testing::IsEmpty());
  ASSERT_EQ(plan.arena_bytes.size(), 1u);
  const size_t arena = plan.arena_bytes[0], peak = peak_live_bytes(values);
  std::cout << GetParam() << ": " << values.size() << " intermediates of " << plan.intermediate_bytes
            << " bytes in all, arena " << arena << " bytes (" << 100.0 * arena / plan.intermediate_bytes
            << "%), live peak " << peak << " bytes\n";
  EXPECT_LE(arena, plan.intermediate_bytes / 2);  // the goal
  EXPECT_LE(arena, peak + peak / 5);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ModelMemoryPlan, ::testing::Values("resnet-50", "densenet-121:batch_size=1"),
                         [](const auto& info) { return info.index == 0 ? "resnet_50" : "densenet_121"; });

}  // namespace
}  // namespace weft::testing
