// Internal to the interpreter: which parameters leave an extent to their
// arguments (weft::bind_argument_types, in weft/interpreter.h, re-types them).
#pragma once

#include <string>
#include <vector>

#include "weft/interpreter.h"
#include "weft/module.h"

namespace weft::interpreter {

/// Whether a parameter of type `t` leaves an extent to its argument: a tensor
/// type with a `?` extent, or a tuple holding one.
bool has_dynamic_extent(const Type& t);

}  // namespace weft::interpreter
