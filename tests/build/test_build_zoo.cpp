// Every zoo model, at the small sizes the -O3 suite runs them, builds on the
// default config (no targets listed): each FuseOps group whole on `ref`.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "weft/build.h"
#include "weft/model_spec.h"
#include "weft/passes.h"
#include "weft/pipeline.h"
#include "weft/functor.h"
#include "weft/workload.h"
#include "support/zoo_test_sizes.h"

namespace weft {
namespace {

/// The calls of Primitive functions anywhere in `fn` (the LSTM's are inside
/// the closures of its steps).
size_t group_calls(const Function& fn) {
  size_t n = 0;
  post_order_visit(fn->body, [&](const Expr& e) {
    auto c = e.as<CallNode>();
    auto callee = c ? c->op.as<FunctionNode>() : nullptr;
    if (callee && callee->attrs && callee->attrs->find("Primitive")) ++n;
  });
  return n;
}

class ZooBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooBuild, BuildsOnTheDefaultConfigWithEveryFusedGroupOnRef) {
  Workload w = create_workload(build_model(parse_model_spec(GetParam())), "xavier");
  IRModule mod = bind_params(w.mod, std::map<std::string, Tensor>(w.params.begin(), w.params.end()));
  auto compiled = build(mod, RunConfig());
  // The groups are FuseOps' at -O3, as the pipeline alone makes them.
  PassContext ctx;
  ctx.opt_level = 3;
  ASSERT_GT(compiled->groups.size(), 0u);
  EXPECT_EQ(compiled->groups.size(), group_calls(optimization_pipeline()(mod, ctx).main()));
  EXPECT_EQ(group_calls(compiled->main), compiled->groups.size());
  for (const CompiledGroup& g : compiled->groups) {
    EXPECT_EQ(g.target, "ref");
    EXPECT_NE(g.kernel, nullptr);
  }
  EXPECT_TRUE(compiled->fallback_ops.empty());
}

/// The zoo at its test sizes, and inception_v3 too: building runs no kernel,
/// so its 299x299 images cost nothing here.
std::vector<std::string> zoo_to_build() {
  std::vector<std::string> specs = testing::zoo_test_specs();
  specs.push_back("inception_v3:batch_size=1,num_classes=10");
  return specs;
}

INSTANTIATE_TEST_SUITE_P(Models, ZooBuild, ::testing::ValuesIn(zoo_to_build()),
                         [](const auto& info) { return testing::zoo_test_name(info.param, info.index); });

}  // namespace
}  // namespace weft
