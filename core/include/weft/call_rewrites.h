// The driver behind the passes that apply ops' named rewrites (OpDef::rewrites):
// SimplifyInference applies each op's "simplify_inference", CanonicalizeOps its
// "canonicalize", SimplifyExpr its "simplify_expr", SimplifyExprPostAlterOp its
// "simplify_expr_post_alter_op". The driver knows no op; an
// op that has no rewrite of that name is left alone.
#pragma once

#include <string>
#include <string_view>

#include "weft/expr.h"
#include "weft/pass.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Rewrites `expr` bottom-up with the ops' rewrite `rewrite_name`: each op call,
/// once its arguments are rewritten, goes to its op's rewrite; the replacement
/// is offered to its own op's rewrite again, until a rewrite declines (returns a
/// null Expr). The calls a rewrite builds below the root of its replacement
/// are offered to their own ops' rewrites first, children first (so patterns
/// nested in a replacement fire in one pass, as the reference's rewrites run
/// to a fixed point); with `fold_built_constants`, a call it builds whose
/// arguments are all constants is evaluated on its reference kernel instead
/// (as the reference's rewrites fold the constants they combine). A TupleGetItem of a Tuple a rewrite returned becomes that field,
/// so a rewrite of a tuple-valued op (nn.batch_norm) replaces the projections
/// of its call (keep an output as `call[i]` in the tuple to leave its uses on
/// the original call). Iterative and memoized: shared nodes are rewritten once
/// and depth costs no stack.
///
/// Types: `expr` must be typed (InferType) and rewrites must preserve types.
/// The result is typed throughout without another InferType: a rebuilt node
/// keeps its original's type, and the nodes a rewrite creates are typed from
/// their operands (op relations, tuples, projections, constants).
///
/// Throws weft::Error naming `pass_name` for an untyped call; naming the op and
/// the rewrite when a rewrite fails, returns a replacement of another type, one
/// that cannot be typed, or keeps rewriting without end.
Expr rewrite_calls(const Expr& expr, std::string_view rewrite_name, std::string_view pass_name,
                   bool fold_built_constants = false);

/// A function pass named info.name applying rewrite_calls(fn, rewrite_name)
/// to each function meant for optimization.
Pass create_call_rewrite_pass(PassInfo info, std::string rewrite_name, bool fold_built_constants = false);

}  // namespace weft

#pragma GCC visibility pop
