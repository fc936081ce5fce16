// Unification of Relay types whose holes (IncompleteTypes) are union-find
// variables: the engine under type inference. Internal to the core.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>

#include "weft/type.h"

namespace weft::detail {

/// Thrown by TypeSolver::unify: what differs, innermost first ("3 vs 4 in
/// dimension 1 of Tensor[(2, 3), float32] and Tensor[(2, 4), float32]").
struct UnifyFailure {
  std::string detail;
};

class TypeSolver {
 public:
  /// Called with each hole as it gets bound, so constraints waiting on it can retry.
  std::function<void(const IncompleteTypeNode*)> on_bind;

  /// t, following the bindings of a hole at its top (not inside).
  Type find(const Type& t);
  /// t with every bound hole replaced by its binding, at any depth.
  Type resolve(const Type& t);
  /// An unbound hole somewhere in t, or nullptr when t resolves to a complete type.
  const IncompleteTypeNode* first_hole(const Type& t);
  /// Makes a and b the same type by binding holes, and returns it. Dims unify
  /// when equal or when either is `?` (which gives `?`), as in Relay's solver.
  /// Throws UnifyFailure; bindings made before the failure stay.
  Type unify(const Type& a, const Type& b);

 private:
  struct Binding {
    IncompleteType hole;  // keeps the key's address from being reused
    Type to;
  };
  bool occurs(const IncompleteTypeNode* hole, const Type& t);
  void bind(const Type& hole, const Type& to);

  std::unordered_map<const IncompleteTypeNode*, Binding> bound_;
};

}  // namespace weft::detail
