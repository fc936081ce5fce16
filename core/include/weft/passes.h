// The passes that need no knowledge of particular ops, and the checks they use.
#pragma once

#include <optional>
#include <string>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/pass.h"

namespace weft {

/// Infers the type of every expression of every function, filling checked_type.
/// Throws weft::Error printing the offending call and the mismatching types.
IRModule infer_type(const IRModule& mod);
/// Infers types in a standalone expression (wrapped in a module as main).
Expr infer_type(const Expr& expr);

/// Why `mod` is not well formed (a variable bound twice, a variable used
/// outside its scope, a call to an unknown global, a tuple index out of range
/// of a known type), or nullopt if it is.
std::optional<std::string> well_formed_violation(const IRModule& mod);
std::optional<std::string> well_formed_violation(const Expr& expr);

// Registered passes (also available by name through PassRegistry).
Pass InferType();                 // "InferType", opt_level 0
Pass DeadCodeElimination();       // "DeadCodeElimination", opt_level 1: drops unused let bindings
Pass EliminateCommonSubexpr();    // "EliminateCommonSubexpr", opt_level 3: merges equal calls
/// Fails with weft::Error if the module is not well formed.
Pass WellFormedCheck();           // "WellFormedCheck", opt_level 0

/// Registers the core passes above with PassRegistry::global() (idempotent).
void register_core_passes();

}  // namespace weft
