// The fold_scale_axis plugin: Relay's BackwardFoldScaleAxis and
// ForwardFoldScaleAxis (opt level 3, after InferType), and FoldScaleAxis,
// which runs both and then FoldConstant, as Relay's Sequential does.
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
  // Sequential({Backward, Forward, FoldConstant}, "FoldScaleAxis"): a Sequential's opt level is 0,
  // its members' 3 gate them; here the whole runs at 3.
  reg.pass("FoldScaleAxis").opt_level(3).requires_pass("InferType").run([](const Module& mod) {
    return forward(backward(mod)).run_pass("FoldConstant");
  });
}
