// Short printed forms of expressions, for error messages that must stay
// readable when the expression heads a 100,000-node graph.
#pragma once

#include <string>

#include "weft/expr.h"

namespace weft::detail {

/// The Relay text of `e` (free variables declared, no types) when its graph is
/// small; otherwise a one-line form with its direct operands abbreviated, such
/// as "test.add(%x, test.relu(...))".
std::string expr_snippet(const Expr& e);

}  // namespace weft::detail
