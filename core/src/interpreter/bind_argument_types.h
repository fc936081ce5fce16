// Internal to the interpreter: a function whose parameters have `?` extents,
// re-typed for the arguments of one call. Kernels need every output shape, and
// Relay's output shapes follow from its argument types only, so the concrete
// shapes go into the parameter types and type inference runs again.
#pragma once

#include <string>
#include <vector>

#include "weft/interpreter.h"
#include "weft/module.h"

namespace weft::interpreter {

/// Whether a parameter of type `t` leaves an extent to its argument: a tensor
/// type with a `?` extent, or a tuple holding one.
bool has_dynamic_extent(const Type& t);

/// `mod` (type-inferred) with its function `name` re-typed for `args` (one per
/// parameter, in order, already checked against the parameter types): each
/// parameter whose type has a `?` extent takes the argument's type, and a
/// return annotation with `?` is dropped so that inference derives it. The
/// result still needs type inference (an Interpreter over it runs it), which
/// fails with a weft::Error where the bound shapes do not fit the program.
IRModule bind_argument_types(const IRModule& mod, const std::string& name, const std::vector<Value>& args);

}  // namespace weft::interpreter
