// The proof that lowered code stays inside its buffers: every index of every
// load and store is bounded, by interval arithmetic over the loop ranges, the
// lets and the conditions of the ifs and selects around it, within its axis.
// A lowering that cannot be proven in bounds is a bug in weft (or in an op's
// TE compute), so it is reported as an InternalError before anything runs.
#pragma once

#include <string>
#include <vector>

#include "weft/te/loop_ir.h"

namespace weft::te {

/// One message per access that could not be proven in bounds: the buffer,
/// the index, its range and the axis extent. Empty when all are proven.
std::vector<std::string> unproven_accesses(const LoweredFunc& f);
/// InternalError listing unproven_accesses(f), if there are any.
void check_bounds(const LoweredFunc& f);

}  // namespace weft::te
