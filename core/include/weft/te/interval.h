// Integer interval arithmetic over index expressions: what values an index can
// take given the ranges of the loop variables and the conditions known to hold
// where it is evaluated. The simplifier and the bounds check reason with it.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "weft/te/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// [lo, hi]; the int64 extremes stand for unbounded ends.
struct Interval {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;

  bool bounded() const { return lo != kNegInf && hi != kPosInf; }
  bool within(int64_t min, int64_t max) const { return lo >= min && hi <= max; }
  static Interval point(int64_t v) { return {v, v}; }
};

/// What is known where an expression is evaluated: the ranges of variables
/// (loops, lets) and facts `expr in interval` from enclosing conditions.
class IntervalContext {
 public:
  void bind(const Var& v, Interval range) { vars_[v.get()] = range; }
  /// `v` is `value` (a let): v ranges as value does where v is used, facts
  /// learnt later about value included (a guard on j.outer * 3 + j.inner
  /// bounds the j it defines).
  void bind_let(const Var& v, PrimExpr value) { lets_[v.get()] = std::move(value); }
  /// Adds the facts a condition gives where it holds: each `e < c`, `e <= c`,
  /// `e > c`, `e >= c`, `e == c` (c an integer immediate, either side) of a
  /// conjunction. Other conditions give nothing.
  void assume(const PrimExpr& cond);
  /// The facts `cond` gives where it does not hold (a select's else branch):
  /// the negation of a comparison with an immediate, or of each side of `||`.
  void assume_not(const PrimExpr& cond);

  /// The values integer expression e can take here (unbounded when unknown).
  Interval bound(const PrimExpr& e) const;

 private:
  Interval structural_bound(const PrimExpr& e) const;
  std::unordered_map<const VarNode*, Interval> vars_;
  std::unordered_map<const VarNode*, PrimExpr> lets_;
  std::vector<std::pair<PrimExpr, Interval>> facts_;
};

}  // namespace weft::te

#pragma GCC visibility pop
