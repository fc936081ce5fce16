// SimplifyExpr: chains of shape ops, casts and arithmetic by identities
// become simpler, through each op's "simplify_expr" rewrite.
#include "weft/call_rewrites.h"
#include "weft/passes.h"

namespace weft {

Pass SimplifyExpr() { return create_call_rewrite_pass({"SimplifyExpr", 0, {"InferType"}}, "simplify_expr"); }

}  // namespace weft
