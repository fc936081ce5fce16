// Walking and rebuilding expression graphs through the host API, without
// recursion on depth: nodes are keyed by handle (the host hands out the node
// itself, so one node is one pointer), visited in post-order from an explicit
// stack, and rebuilt from their rewritten children.
#pragma once

#include <weft/plugin.hpp>

#include <unordered_map>
#include <vector>

namespace weft::fold_scale_axis {

using sdk::Expr;
using sdk::Type;
using sdk::operator==;
using sdk::operator!=;

/// A node's identity: equal for every handle to the same node.
inline const weft_expr_t* key(const Expr& e) { return e.get(); }

/// The direct sub-expressions of e, in evaluation order (the SDK's).
using sdk::children;

/// Every node reachable from root, each once, children before parents.
std::vector<Expr> post_order(const Expr& root);

/// How many edges of the graph under root point at each node (Relay's
/// GetExprRefCount): a node used twice by one call counts twice.
std::unordered_map<const weft_expr_t*, size_t> use_counts(const std::vector<Expr>& nodes);

/// e with its children replaced by `new_children` (in children()'s order);
/// e itself when none changed.
Expr rebuild(const Expr& e, const std::vector<Expr>& new_children);

/// The op a call calls, or "" when the callee is not an op (or e not a call).
std::string op_name(const Expr& e);

/// Whether a function is not meant for optimization (nonzero Primitive,
/// Extern or SkipOptimization, or a Compiler set), as the core's function passes skip.
bool skips_optimization(const Expr& function);

/// The body of a function.
Expr function_body(const Expr& function);

}  // namespace weft::fold_scale_axis
