// Structural equality and hashing of IR, with variable mapping: two functions
// that differ only in the names or identities of their bound variables are
// equal (alpha-equivalence). Both run iteratively, so deep graphs are safe, and
// visit each shared node pair once, so DAGs do not blow up.
#pragma once

#include <cstddef>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/type.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// True when a and b are the same program up to renaming of bound variables.
/// Free variables must be the same Var unless map_free_vars, which maps them in
/// order of first use. Attrs, constants' bytes and annotations are compared.
bool structural_equal(const Expr& a, const Expr& b, bool map_free_vars = false);
/// Modules are equal when they define the same names with equal functions
/// (GlobalVars map by name).
bool structural_equal(const IRModule& a, const IRModule& b);

/// Consistent with structural_equal(a, b, map_free_vars=true): equal
/// expressions hash equally (bound and free variables hash by position).
size_t structural_hash(const Expr& e);
size_t structural_hash(const IRModule& m);

}  // namespace weft

#pragma GCC visibility pop
