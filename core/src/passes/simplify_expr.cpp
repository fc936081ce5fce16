// SimplifyExpr: chains of shape ops, casts and arithmetic by identities
// become simpler, through each op's "simplify_expr" rewrite; the constants a
// rewrite combines ((x * c1) * c2 -> x * (c1 * c2)) are folded as it builds them.
// SimplifyExprPostAlterOp: the few of those rewrites relay.build runs again
// after AlterOpLayout, each op's "simplify_expr_post_alter_op".
#include "weft/call_rewrites.h"
#include "weft/passes.h"

namespace weft {

Pass SimplifyExpr() {
  return create_call_rewrite_pass({"SimplifyExpr", 0, {"InferType"}}, "simplify_expr", /*fold_built_constants=*/true);
}

Pass SimplifyExprPostAlterOp() {
  // Its rewrites combine no constants: nothing to fold.
  return create_call_rewrite_pass({"SimplifyExprPostAlterOp", 0, {"InferType"}}, "simplify_expr_post_alter_op");
}

}  // namespace weft
