// The list of passes -O runs, in relay.build's order (TVM v0.19
// src/relay/backend/utils.cc GetPassPrefix, then build_module.cc OptimizeImpl's
// FuseOps), and the Sequential that runs them.
#include "weft/pipeline.h"

#include "weft/error.h"

namespace weft {

const std::vector<std::string>& optimization_pass_names() {
  // The reference's order, with its passes weft has. Left out, as weft has no
  // such pass (yet): ToBasicBlockNormalForm, qnn and target Legalize,
  // CombineParallelConv2D/Dense/BatchMatmul, CanonicalizeCast,
  // FlattenAtrousConv, FastMath, PlanDevices.
  // A new pass goes here, at its place in the reference's order, when it lands
  // and is registered (the pipeline test checks every name resolves):
  // RemoveUnusedFunctions, SimplifyInference, EliminateCommonSubexpr,
  // FoldConstant, FoldScaleAxis, SimplifyExpr, CanonicalizeOps, InferType,
  // AlterOpLayout, SimplifyExprPostAlterOp, FoldConstant, FuseOps.
  static const std::vector<std::string> names = {
      "RemoveUnusedFunctions",
      "SimplifyInference",
      "EliminateCommonSubexpr",
      "FoldConstant",
      "FoldScaleAxis",  // from the fold_scale_axis pass plugin
      "SimplifyExpr",
      "CanonicalizeOps",
      "InferType",
      "AlterOpLayout",
      "SimplifyExprPostAlterOp",
      "FoldConstant",
      "FuseOps",
  };
  return names;
}

Pass optimization_pipeline(PassRegistry& registry) {
  std::vector<Pass> passes;
  for (const std::string& name : optimization_pass_names()) {
    try {
      passes.push_back(registry.create(name));
    } catch (Error& e) {
      e.note("in the optimization pipeline");
      throw;
    }
  }
  return sequential(std::move(passes), "OptimizationPipeline", 0);
}

}  // namespace weft
