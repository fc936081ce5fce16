// CanonicalizeOps: ops that have a plainer equivalent become it (nn.bias_add
// into add with expand_dims), through each op's "canonicalize" rewrite.
#include "weft/call_rewrites.h"
#include "weft/passes.h"

namespace weft {

Pass CanonicalizeOps() { return create_call_rewrite_pass({"CanonicalizeOps", 3, {"InferType"}}, "canonicalize"); }

}  // namespace weft
