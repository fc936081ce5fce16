// Pieces both gradient modes share: typed let lists, the few ops AD itself
// uses (add, zeros_like, ones_like), and the checks on ops and types.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/op.h"
#include "weft/type.h"

namespace weft::gradient_detail {

/// `e` with its checked type set (gradient functions read the types of the
/// call, its arguments and the output gradient they are given).
Expr typed(Expr e, const Type& t);
/// A variable annotated with, and typed as, `t`.
Var typed_var(const std::string& name, const Type& t);

/// Bindings built in order and wrapped around a body at the end, without
/// recursion however many there are.
class LetList {
 public:
  /// Binds `value` (of type t) to a fresh typed variable and returns it.
  Var push(Expr value, const Type& t, const std::string& name = "v");
  /// Binds `value` to `var`, made beforehand (so that the value may use it).
  void bind(const Var& var, Expr value);
  /// A nested let chain ending in `body`.
  Expr wrap(Expr body) const;

 private:
  std::vector<std::pair<Var, Expr>> bindings_;
};

Expr add(const Expr& a, const Expr& b);
Expr zeros_like(const Expr& e);
Expr ones_like(const Expr& e);

/// Whether `t` holds a floating-point tensor: only those carry gradients.
bool carries_gradient(const Type& t);

/// The gradient of `def`, or a weft::Error naming the op when it has none.
const Gradient& op_gradient(const OpDef& def);
/// Calls the op's gradient for `call` and checks it returned one expression
/// per argument.
std::vector<Expr> call_gradient(const OpDef& def, const Call& call, const Expr& output_grad);

/// The function to differentiate, type-checked within its module, and that
/// module typed too (it holds the global functions `fn` calls).
struct TypedInput {
  Function fn;
  IRModule mod;
};

/// `fn` type-checked within `mod`, with tensor parameters and an output that
/// is a tensor or (nested) tuple of tensors; a weft::Error otherwise.
TypedInput typed_function(const Function& fn, const IRModule& mod, std::string_view mode);

}  // namespace weft::gradient_detail
