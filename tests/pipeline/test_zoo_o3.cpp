// Every zoo model, its workload's parameters bound as relay.build(params=...)
// binds them, gives the same outputs after -O3 as unoptimized on the
// interpreter (the semantics goal), at the zoo's test sizes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_run_util.h"
#include "o3.h"
#include "support/zoo_test_sizes.h"

namespace weft::testing {
namespace {

class ZooAtO3 : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooAtO3, GivesTheUnoptimizedOutputsWithItsParametersBound) {
  Workload w = create_workload(build_model(parse_model_spec(GetParam())), "xavier");
  std::vector<Value> all_args = model_testing::model_args(w);
  Value want = Interpreter(w.mod).run_main(all_args);

  IRModule optimized = optimize_o3(bind_params(w.mod, param_map(w.params)));
  std::vector<Value> data_args = model_testing::data_args(w, all_args);
  ASSERT_EQ(optimized.main()->params.size(), data_args.size());
  expect_same_values(Interpreter(optimized).run_main(data_args), want);
}

INSTANTIATE_TEST_SUITE_P(Models, ZooAtO3, ::testing::ValuesIn(zoo_test_specs()),
                         [](const auto& info) { return zoo_test_name(info.param, info.index); });

}  // namespace
}  // namespace weft::testing
