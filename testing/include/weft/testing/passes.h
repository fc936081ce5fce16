// Running passes on a single expression, as tvm.relay.testing's run_opt_pass
// and run_infer_type do: wrap it as `main`, run, unwrap.
#pragma once

#include <vector>

#include "weft/expr.h"
#include "weft/pass.h"

namespace weft::testing {

/// Runs `pass` (under PassContext::current()) on a module whose main is
/// `expr` (a Function as is; anything else as a function of its free
/// variables) and returns the new main, or its body when `expr` was not a
/// Function.
Expr run_opt_pass(const Expr& expr, const Pass& pass);
/// The passes in order, as one sequential (gated by the current context's
/// opt_level and disabled list, as Sequential does).
Expr run_opt_pass(const Expr& expr, const std::vector<Pass>& passes);
/// run_opt_pass(expr, InferType()): the same expression with checked types.
Expr run_infer_type(const Expr& expr);

}  // namespace weft::testing
