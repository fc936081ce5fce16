// The compute a model costs, counted as multiply-accumulates of its
// convolutions and matrix products (what published GMAC figures count):
// `weft models --table` and `weft bench` report it, and tests size their
// work by it.
#pragma once

#include <cstdint>

#include "weft/module.h"

namespace weft::testing {

/// Multiply-accumulates of every conv (1-3d, transposed or not), dense,
/// matmul and batch_matmul call reachable from main, each call node once.
/// `typed_mod` must have gone through type inference. Other ops count 0.
int64_t count_macs(const IRModule& typed_mod);
/// The same over one typed expression, such as a fused group's Primitive
/// function (whose layouts may be blocked: NCHW16c counts C as its blocks).
int64_t count_macs(const Expr& typed_expr);

}  // namespace weft::testing
