// Automatic differentiation: the `gradient` pass, Relay's
// relay.transform.gradient. Reverse mode, built from the gradients the op
// plugins register in IR form (OpDef::gradient), so the result is an ordinary
// program that runs anywhere the forward one does.
#pragma once

#include <string_view>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/pass.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

enum class GradientMode {
  /// Dataflow graphs only (ops, tuples, lets): one reverse sweep over the
  /// let-normalized graph, adjoints accumulated with `add`. No closures, no
  /// calls of functions, no `if`: each is an error naming the construct.
  kFirstOrder,
  /// Any program the interpreter runs: closures, calls of local and global
  /// functions (a global may call itself, not call back a caller), `if`,
  /// tuples. Every tensor becomes a pair (value, backpropagator), where
  /// the backpropagator is a closure taking the value's gradient to the tuple
  /// of gradients of the function's parameters (see docs/autodiff.md).
  kHigherOrder,
};

/// "first_order" / "higher_order".
std::string_view gradient_mode_name(GradientMode mode);
/// The mode named `name` ("first_order" or "higher_order"); weft::Error otherwise.
GradientMode parse_gradient_mode(std::string_view name);

/// The gradient of `fn`: a function with the same parameters returning
/// (output, (gradient of each parameter)), where the gradients are those of the
/// output seeded with ones_like(output) (for a tuple output, each tensor in it
/// seeded with ones), as Relay's gradient pass returns them.
///
/// `fn` is type-checked first (within `mod`, for its global references; in
/// higher-order mode each global it calls is differentiated too, once, and
/// bound inside the result, as Relay's ReverseAD adds `<name>_grad`); its
/// parameters must be tensors and its output a tensor or a tuple of them. An op
/// with a floating-point output and no registered gradient is a weft::Error
/// naming the op (ops with integer or boolean outputs need none: nothing flows
/// back through them). The result is not type-checked; run InferType on it.
Function gradient(const Function& fn, const IRModule& mod = {}, GradientMode mode = GradientMode::kHigherOrder);

/// "Gradient", a module pass that replaces `main` with its gradient. The mode
/// comes from the PassContext config "weft.gradient.mode" ("higher_order" by
/// default, or "first_order"). Registered in PassRegistry::global().
Pass GradientPass();

}  // namespace weft

#pragma GCC visibility pop
