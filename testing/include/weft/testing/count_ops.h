// Operator counts of a program, as Relay's list_op_freqs (ExtractOperators).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "weft/expr.h"
#include "weft/module.h"

namespace weft::testing {

/// Op name -> number of distinct call nodes calling it, over everything
/// reachable from `expr`, bodies of nested and fused (Primitive) functions
/// included. A call node shared by several users counts once, as a DAG node
/// does; calls of functions, globals or closures are not counted, and the
/// functions that global calls name are not entered. Iterative: safe on deep
/// graphs.
std::map<std::string, int> count_ops(const Expr& expr);
/// count_ops of the module's main, as Relay's list_op_freqs(mod).
std::map<std::string, int> count_ops(const IRModule& mod);

/// The calls `fn`'s body makes itself, children first, leaving out those
/// inside the functions it holds (fused Primitive functions, closures): after
/// FuseOps, one call per fused group. Iterative.
std::vector<const CallNode*> own_calls(const Function& fn);

}  // namespace weft::testing
