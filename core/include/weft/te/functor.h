// Traversals of TE expressions: visit or rebuild a node's children, substitute
// variables, compare structurally. TE expressions are an op's formula (tens of
// nodes, a fused chain's few hundred), so these recurse on depth; Relay graphs,
// which can be 100,000 deep, use weft/functor.h's iterative walks instead.
#pragma once

#include <functional>
#include <unordered_map>

#include "weft/te/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// Calls f on each direct child of e (a reduction's sources and condition,
/// not its combiner's formula, which is over the combiner's own variables).
void for_each_child(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f);
/// e with each direct child c replaced by f(c); e itself when none changed.
/// f must keep each child's dtype.
PrimExpr map_children(const PrimExpr& e, const std::function<PrimExpr(const PrimExpr&)>& f);
/// Calls f on every node of e, parents before children.
void walk(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f);

using VarMap = std::unordered_map<const VarNode*, PrimExpr>;
/// e with each variable in `map` replaced by its expression.
PrimExpr substitute(const PrimExpr& e, const VarMap& map);

/// Same node kinds, dtypes, constants and operators, the same Var, tensor and
/// buffer identities.
bool structural_equal(const PrimExpr& a, const PrimExpr& b);

}  // namespace weft::te

#pragma GCC visibility pop
