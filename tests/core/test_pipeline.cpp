// The -O pipeline: its passes resolve by name, run in relay.build's order and
// are gated by the context's opt_level and disabled list.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_ops.h"
#include "weft/error.h"
#include "weft/pipeline.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }

  // main(x) = add(relu(x), relu(x)): one common subexpression.
  static IRModule twice_relu() {
    Var x = var("x", tensor_type({2}));
    return IRModule::from_function(function({x}, call("test.add", {call("test.relu", {x}), call("test.relu", {x})})));
  }
  // Whether the add's operands are one node (inside the function FuseOps made of it, if any).
  static bool relus_merged(const IRModule& mod) {
    const auto* add = mod.main()->body.as<CallNode>();
    if (add->op->kind == ExprKind::kFunction) add = static_cast<const FunctionNode&>(*add->op).body.as<CallNode>();
    return add->args[0].same_as(add->args[1]);
  }
  static IRModule optimize(const IRModule& mod, int opt_level, std::vector<std::string> disabled = {}) {
    PassContext ctx;
    ctx.opt_level = opt_level;
    ctx.disabled_passes = std::move(disabled);
    return optimization_pipeline()(mod, ctx);
  }
};

TEST_F(PipelineTest, EveryListedPassResolvesToAPassOfThatName) {
  ASSERT_FALSE(optimization_pass_names().empty());
  for (const std::string& name : optimization_pass_names()) {
    Pass pass = PassRegistry::global().create(name);
    EXPECT_EQ(pass.info().name, name);  // gating by name (disabled_passes) sees the listed name
  }
  EXPECT_NO_THROW(optimization_pipeline());
}

TEST_F(PipelineTest, PassesRunInTheReferencesOrder) {
  // TVM v0.19: GetPassPrefix(is_homogeneous=true, is_vm=false) in
  // src/relay/backend/utils.cc, then PlanDevices and FuseOps (build_module.cc).
  const std::vector<std::string> reference = {
      "RemoveUnusedFunctions", "ToBasicBlockNormalForm", "Legalize", "Legalize", "SimplifyInference",
      "EliminateCommonSubexpr", "CombineParallelConv2D", "CombineParallelDense", "CombineParallelBatchMatmul",
      "FoldConstant", "FoldScaleAxis", "SimplifyExpr", "CanonicalizeCast", "CanonicalizeOps", "FlattenAtrousConv",
      "InferType", "AlterOpLayout", "SimplifyExprPostAlterOp", "FastMath", "FoldConstant", "PlanDevices", "FuseOps"};
  // weft's list is the reference's with passes left out: a subsequence of it.
  size_t at = 0;
  for (const std::string& name : optimization_pass_names()) {
    while (at < reference.size() && reference[at] != name) ++at;
    ASSERT_LT(at, reference.size()) << name << " is out of the reference's order (or not one of its passes)";
    ++at;
  }
}

TEST_F(PipelineTest, OptLevelAndDisabledListGateThePasses) {
  // EliminateCommonSubexpr is opt_level 3, as in the reference.
  EXPECT_FALSE(relus_merged(optimize(twice_relu(), 2)));
  IRModule o3 = optimize(twice_relu(), 3);
  EXPECT_TRUE(relus_merged(o3));
  EXPECT_TRUE(o3.main()->body->has_type()) << to_text(o3);  // InferType ran (opt_level 0)
  EXPECT_FALSE(relus_merged(optimize(twice_relu(), 3, {"EliminateCommonSubexpr"})));
  PassContext required;
  required.opt_level = 0;
  required.required_passes = {"EliminateCommonSubexpr"};
  EXPECT_TRUE(relus_merged(optimization_pipeline()(twice_relu(), required)));
}

TEST_F(PipelineTest, AListedPassNobodyProvidesIsAnErrorNamingIt) {
  PassRegistry empty;  // none of the core passes
  try {
    optimization_pipeline(empty);
    FAIL() << "the pipeline was built without its passes";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("unknown pass '" + optimization_pass_names().front() + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("in the optimization pipeline"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace weft
