// The passes that need no knowledge of particular ops, and the checks they use.
#pragma once

#include <optional>
#include <string>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/pass.h"

namespace weft {

/// Infers the type of every expression of every function, Relay-style: each op
/// call's type comes from its op's relation once its argument types are known;
/// everything else (variables, functions, lets, ifs, tuples, calls of functions
/// and closures, calls between module functions in any order) by unification.
///
/// Fills checked_type on every expression but Op nodes (an op is polymorphic:
/// its instance type is the call's business) and on each function's GlobalVar.
/// As Relay does, it also writes what it inferred where annotations are missing:
/// an unannotated Var becomes an annotated one and a Function without a return
/// type gets one, so those functions come back rebuilt (the original nodes get
/// checked types too).
///
/// Throws weft::Error printing the offending expression (its position when
/// parsed) and the mismatching types; a relation's own error keeps its message
/// and gains the op name and the call. A type that nothing determines is an
/// error naming the variable.
IRModule infer_type(const IRModule& mod);
/// Infers types in a standalone expression; its free variables are typed by
/// their annotations or by their uses. GlobalVars need a module: an error here.
Expr infer_type(const Expr& expr);

/// Why `mod` is not well formed, or nullopt if it is: a variable bound twice,
/// a variable used outside the scope that binds it, a free variable in a module
/// function, a reference to a global the module does not define, a tuple index
/// out of range of a literal tuple or of a tuple whose type is known.
std::optional<std::string> well_formed_violation(const IRModule& mod);
/// As above for an expression, whose free variables are allowed (as Relay).
std::optional<std::string> well_formed_violation(const Expr& expr);

// Registered passes (also available by name through PassRegistry).

/// "InferType", opt_level 0: infer_type on the module.
Pass InferType();
/// "DeadCodeElimination", opt_level 1: drops let bindings whose variable is
/// never used (transitively: a binding used only by dead bindings is dead too)
/// and whose value is pure. The purity rule knows no op by name: every op is
/// pure (no op in weft has hidden state, as almost all of Relay's), so is a call
/// of a function whose body is pure (a literal, a global or a let-bound one);
/// a call of any other callee (a parameter, a tuple field, a call's result)
/// may do anything, so its binding stays. Needs no types, so unlike Relay's it
/// requires no InferType before it.
Pass DeadCodeElimination();
/// "EliminateCommonSubexpr", opt_level 3, as Relay's: a call of an op (of any
/// fusion pattern, opaque included: Relay skips only stateful ops, and weft has
/// none) with at least one argument is replaced by an earlier call of the same
/// op with equal attrs and the same (already merged) arguments, where scalar
/// constants of equal value and tuples of the same fields count as the same;
/// likewise a TupleGetItem of the same tuple and index. Unlike Relay, a call is
/// merged only with one in the same function (never across a closure's
/// boundary), so no closure body comes to share nodes with its enclosing
/// function. Needs no types (no InferType required).
Pass EliminateCommonSubexpr();
/// "WellFormedCheck", opt_level 0: a weft::Error if the module is not well formed.
Pass WellFormedCheck();

/// Registers the passes above with `registry` under their names, skipping names
/// already there. PassRegistry::global() does this on first use, so the core
/// passes are always available by name.
void register_core_passes(PassRegistry& registry = PassRegistry::global());

}  // namespace weft
