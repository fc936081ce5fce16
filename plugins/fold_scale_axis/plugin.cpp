// The fold_scale_axis plugin: Relay's BackwardFoldScaleAxis and
// ForwardFoldScaleAxis (opt level 3, after InferType), and FoldScaleAxis,
// which runs both and then FoldConstant, as Relay's Sequential does.
#include <algorithm>

#include "graph.h"
#include "passes.h"

namespace weft::fold_scale_axis {

namespace {

using sdk::Module;

// The module typed, or an error naming the pass that needed the types.
Module typed(const Module& mod, const std::string& pass) {
  try {
    return mod.infer_type();
  } catch (const sdk::Error& e) {
    throw sdk::Error(pass + " needs a well-typed program, and type inference failed: " + e.what());
  }
}

// Each function meant for optimization folded by `fold`, over the typed module.
Module fold_functions(const Module& mod, const std::string& pass, Expr (*fold)(const Expr&)) {
  std::vector<std::pair<std::string, Expr>> functions;
  for (auto& [name, fn] : typed(mod, pass).functions())
    functions.emplace_back(name, skips_optimization(fn) ? fn : fold(fn));
  return Module::make(functions);
}

Module backward(const Module& mod) { return fold_functions(mod, "BackwardFoldScaleAxis", backward_fold); }
Module forward(const Module& mod) { return fold_functions(mod, "ForwardFoldScaleAxis", forward_fold); }

}  // namespace

}  // namespace weft::fold_scale_axis

WEFT_PLUGIN(reg) {
  using namespace weft::fold_scale_axis;
  // CreateFunctionPass(..., 3, "BackwardFoldScaleAxis", {"InferType"}) and its forward twin.
  reg.pass("BackwardFoldScaleAxis").opt_level(3).requires_pass("InferType").run(backward);
  reg.pass("ForwardFoldScaleAxis").opt_level(3).requires_pass("InferType").run(forward);
  // Sequential({Backward, Forward, FoldConstant}, "FoldScaleAxis"): each member runs as a pass
  // under the caller's context (its instruments and statistics see it) unless the context disables
  // it. Relay's Sequential also gates members by their opt level; here the composite's own gate
  // (level 3, or required) stands for theirs, so a required FoldScaleAxis folds at -O2 too.
  reg.pass("FoldScaleAxis").opt_level(3).requires_pass("InferType").run(
      [](const Module& mod, const weft::sdk::PassContext& ctx) {
        std::vector<std::string> disabled = ctx.disabled_passes();
        Module out = mod;
        for (const char* member : {"BackwardFoldScaleAxis", "ForwardFoldScaleAxis", "FoldConstant"})
          if (std::find(disabled.begin(), disabled.end(), member) == disabled.end()) out = ctx.run_pass(out, member);
        return out;
      });
}
