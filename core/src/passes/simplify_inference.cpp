// SimplifyInference: ops that behave differently at inference (batch_norm,
// dropout, the normalizations) become plain arithmetic, through each op's
// "simplify_inference" rewrite (the core names no op).
#include "weft/call_rewrites.h"
#include "weft/passes.h"

namespace weft {

Pass SimplifyInference() {
  return create_call_rewrite_pass({"SimplifyInference", 0, {"InferType"}}, "simplify_inference");
}

}  // namespace weft
