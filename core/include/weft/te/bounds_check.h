// The proof that lowered code stays inside its buffers: every index of every
// load and store is bounded, by interval arithmetic over the loop ranges, the
// lets and the conditions of the ifs and selects around it, within its axis.
// A lowering that cannot be proven in bounds is a bug in weft (or in an op's
// TE compute), so it is reported as an InternalError before anything runs.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "weft/te/loop_ir.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// One message per access that could not be proven in bounds: the buffer,
/// the index, its range and the axis extent. Empty when all are proven.
std::vector<std::string> unproven_accesses(const LoweredFunc& f);
/// InternalError listing unproven_accesses(f), if there are any.
void check_bounds(const LoweredFunc& f);

/// The selects of `f` whose two operands are safe to evaluate whichever one
/// is chosen: every load in them is in bounds without the select's
/// condition, and no integer division in them has a divisor that may be
/// zero. A code generator may compute both and pick one (a vector select);
/// the others guard a read with their condition (padding) and must branch.
std::unordered_set<const SelectNode*> speculatable_selects(const LoweredFunc& f);

}  // namespace weft::te

#pragma GCC visibility pop
