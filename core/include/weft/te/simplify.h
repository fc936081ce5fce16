// Simplification of index and value arithmetic: constant folding (in the
// expression's dtype), x * 1, x + 0 and like terms collected in integer sums,
// floordiv/floormod of a sum by a constant where the ranges prove how it
// splits (floordiv(i * 4 + j, 4) = i when j is in [0, 4)), min/max and
// comparisons the ranges decide, and branches on constant conditions.
#pragma once

#include "weft/te/interval.h"
#include "weft/te/loop_ir.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// e simplified where `ctx` holds (unknown variables are unbounded).
PrimExpr simplify(const PrimExpr& e, const IntervalContext& ctx = IntervalContext());
/// Every expression of s simplified with the ranges of the loops and lets
/// around it and the conditions of the ifs it is in; ifs whose condition
/// becomes true or false are replaced by their branch.
Stmt simplify(const Stmt& s, const IntervalContext& ctx = IntervalContext());

}  // namespace weft::te

#pragma GCC visibility pop
