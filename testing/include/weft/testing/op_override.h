// Temporarily changing a registered operator inside a test, as Relay's
// TempOpAttr does: replace its kernel, gradient, relation, rewrites, ... for
// the lifetime of a scope, and get the original definition back on exit.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "weft/op.h"

namespace weft::testing {

/// Applies `edit` to the registered definition of `op_name` (loading its
/// plugin if needed) and restores the definition as it was when destroyed.
///
///   {
///     ScopedOpOverride wrong("nn.relu", [](OpDef& d) { d.gradient = my_wrong_gradient; });
///     ... check_grad now sees the wrong gradient ...
///   }  // nn.relu's own gradient is back
///
/// The edit must not rename the op (a weft::Error, with nothing changed).
/// Calls built before the override see it too (they point at the one
/// definition). Not thread-safe: nothing may use the op from another thread
/// while the override is made or undone. Overrides of one op nest when
/// destroyed in reverse order of creation, as scopes are.
class ScopedOpOverride {
 public:
  ScopedOpOverride(std::string_view op_name, const std::function<void(OpDef&)>& edit);
  ~ScopedOpOverride();
  ScopedOpOverride(const ScopedOpOverride&) = delete;
  ScopedOpOverride& operator=(const ScopedOpOverride&) = delete;

 private:
  OpDef* def_;
  OpDef saved_;
};

}  // namespace weft::testing
