// AlterOpLayout (Relay's): a target's alter hooks rebuild the ops it has
// preferred layouts for (conv2d as NCHW16c with an OIHW16i16o weight, or
// another op altogether), and the rest of the graph follows through the ops'
// infer_layout hooks, as ConvertLayout does for user-chosen layouts.
#include "layout_rewriter.h"
#include "weft/passes.h"

namespace weft {

Function alter_op_layout(const Function& fn, const AlterLayouts& alter) {
  auto rule = [&](const Call& ref) -> Expr {
    auto it = alter.find(ref->op.as<OpNode>()->name());
    return it == alter.end() ? Expr() : it->second(ref);
  };
  return layout_rewrite::rewrite_layouts(fn, rule, "AlterOpLayout");
}

Pass AlterOpLayout(AlterLayouts alter) {
  return create_function_pass({"AlterOpLayout", 3, {"InferType"}},
                              [alter = std::move(alter)](Function fn, const IRModule&, const PassContext&) {
                                return alter_op_layout(fn, alter);
                              });
}

}  // namespace weft
