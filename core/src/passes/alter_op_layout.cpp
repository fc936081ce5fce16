// AlterOpLayout (Relay's): the targets' alter hooks rebuild the ops they have
// preferred layouts for (conv2d as NCHW16c with an OIHW16i16o weight, or
// another op altogether), and the rest of the graph follows through the ops'
// infer_layout hooks, as ConvertLayout does for user-chosen layouts.
#include "layout_rewriter.h"
#include "weft/passes.h"
#include "weft/target.h"

namespace weft {

Function alter_op_layout(const Function& fn, const AlterLayouts& alter,
                         std::span<const std::shared_ptr<const Target>> targets) {
  auto rule = [&](const Call& ref) -> Expr {
    // The target that will run the call chooses its layouts: later ones do not
    // get to make it theirs.
    for (const auto& target : targets) {
      if (!target->supports(ref)) continue;
      if (Expr altered = target->alter_layout(ref)) return altered;
      break;
    }
    auto it = alter.find(ref->op.as<OpNode>()->name());
    return it == alter.end() ? Expr() : it->second(ref);
  };
  return layout_rewrite::rewrite_layouts(fn, rule, "AlterOpLayout");
}

Pass AlterOpLayout(AlterLayouts alter) {
  return create_function_pass({"AlterOpLayout", 3, {"InferType"}},
                              [alter = std::move(alter)](Function fn, const IRModule&, const PassContext& ctx) {
                                return alter_op_layout(fn, alter, ctx.targets);
                              });
}

}  // namespace weft
