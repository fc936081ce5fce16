// IRModule: global functions by name, with `main` as the entry.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// A value type: copying shares the functions (which are immutable). Passes take
/// a module and return a new one.
class IRModule {
 public:
  IRModule() = default;
  /// A module whose `main` is `fn`.
  static IRModule from_function(Function fn);
  /// Wraps an expression as `main`: a Function stays as is; anything else becomes
  /// a function of its free variables.
  static IRModule from_expr(const Expr& expr);

  /// Adds or replaces the function for `gv`'s name (keeping definition order).
  void add(const GlobalVar& gv, Function fn);
  /// Adds under `name`, reusing the module's GlobalVar for it when there is one.
  GlobalVar add(std::string_view name, Function fn);

  bool contains(std::string_view name) const;
  /// The GlobalVar the module uses for `name`; weft::Error if absent.
  GlobalVar global_var(std::string_view name) const;
  /// The function named `name`; weft::Error if absent.
  Function lookup(std::string_view name) const;
  Function main() const { return lookup("main"); }

  /// Definitions in order.
  const std::vector<std::pair<GlobalVar, Function>>& functions() const { return defs_; }

 private:
  std::vector<std::pair<GlobalVar, Function>> defs_;
};

/// Variables used in `expr` that it does not bind, in first-use order.
std::vector<Var> free_vars(const Expr& expr);

}  // namespace weft

#pragma GCC visibility pop
