// Registration of the core passes by name.
#include <string>
#include <utility>
#include <vector>

#include "weft/gradient.h"
#include "weft/passes.h"

namespace weft {

void register_core_passes(PassRegistry& registry) {
  const std::vector<std::pair<std::string, PassRegistry::Factory>> passes = {
      {"InferType", InferType},
      {"DeadCodeElimination", DeadCodeElimination},
      {"EliminateCommonSubexpr", EliminateCommonSubexpr},
      {"WellFormedCheck", WellFormedCheck},
      {"FoldConstant", FoldConstant},
      {"FuseOps", [] { return FuseOps(); }},
      {"Gradient", GradientPass},
      {"RemoveUnusedFunctions", [] { return RemoveUnusedFunctions(); }},
      {"InlineLocalFunctions", InlineLocalFunctions},
      {"SimplifyInference", SimplifyInference},
      {"ConvertLayout", [] { return ConvertLayout(); }},
      {"AlterOpLayout", [] { return AlterOpLayout(); }},
      {"SimplifyExpr", SimplifyExpr},
      {"SimplifyExprPostAlterOp", SimplifyExprPostAlterOp},
      {"CanonicalizeOps", CanonicalizeOps},
      {"ToANormalForm", ToANormalForm},
      {"ToGraphNormalForm", ToGraphNormalForm},
  };
  for (const auto& [name, factory] : passes)
    if (!registry.contains(name)) registry.add(name, factory);
}

}  // namespace weft
