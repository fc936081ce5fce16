// The machinery ConvertLayout and AlterOpLayout share (Relay's
// transform_layout.h): every op call is rebuilt by the pass's own rule, its
// op's infer_layout hook says which layouts the new call needs its inputs in
// and gives its outputs, and layout_transforms are inserted only where a value
// arrives in another layout than its consumer needs; where a value leaves the
// dataflow (the function's result, a call of a non-op) it goes back to the
// layout it had.
#pragma once

#include <functional>
#include <vector>

#include "weft/expr.h"
#include "weft/op.h"

namespace weft::layout_rewrite {

/// The pass's rule: the call `ref` (typed, with its original arguments)
/// rebuilt in the layouts the pass wants, or a null Expr to keep it as it is.
/// Only the op and attrs of the result count (it must take as many
/// arguments); the rewrite puts the arguments in.
using CallRule = std::function<Expr(const Call& ref)>;

/// `fn` with its calls rebuilt by `rule`. `pass` names the pass in errors: an
/// untyped function, a hook that returns the wrong number of layouts, an op
/// layout_transform that no plugin provides.
Function rewrite_layouts(const Function& fn, const CallRule& rule, const char* pass);

}  // namespace weft::layout_rewrite
