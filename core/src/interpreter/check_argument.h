// Internal to the executors: a runtime argument checked against its
// parameter's type, as the interpreter and the graph executor check what a
// caller passes to main.
#pragma once

#include <string>

#include "weft/interpreter.h"
#include "weft/type.h"

namespace weft::interpreter {

/// weft::Error "`where` is Tensor[...]" expecting `t` when `v` does not fit it:
/// another dtype, rank or extent (a `?` extent fits any), or a tuple with
/// another number of fields (whose fields are checked as `where`.0, ...).
void check_argument(const Value& v, const Type& t, const std::string& where);

}  // namespace weft::interpreter
