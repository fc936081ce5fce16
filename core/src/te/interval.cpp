#include "weft/te/interval.h"

#include <algorithm>

#include "weft/te/functor.h"

namespace weft::te {
namespace {

using Wide = __int128;

int64_t clamp(Wide v) {
  if (v <= Interval::kNegInf) return Interval::kNegInf;
  if (v >= Interval::kPosInf) return Interval::kPosInf;
  return static_cast<int64_t>(v);
}

/// Interval from candidate end points; any unbounded input end makes the
/// result unbounded on both sides (products and quotients of infinities).
Interval hull(std::initializer_list<Wide> ends, bool any_unbounded) {
  if (any_unbounded) return {};
  return {clamp(std::min(ends)), clamp(std::max(ends))};
}

Wide floor_div(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Interval intersect(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)}; }

/// Every value of an integer dtype (unbounded for 64 bits and floats).
Interval dtype_range(DataType dt) {
  if (dt.is_float() || dt.is_bool() || dt.bits >= 64) return dt.is_bool() ? Interval{0, 1} : Interval{};
  if (dt.is_uint()) return {0, (int64_t{1} << dt.bits) - 1};
  return {-(int64_t{1} << (dt.bits - 1)), (int64_t{1} << (dt.bits - 1)) - 1};
}

/// The comparison that holds where `op` does not (`a < b` -> `a >= b`).
bool negated(BinaryOp op, BinaryOp* out) {
  switch (op) {
    case BinaryOp::kLt: *out = BinaryOp::kGe; return true;
    case BinaryOp::kLe: *out = BinaryOp::kGt; return true;
    case BinaryOp::kGt: *out = BinaryOp::kLe; return true;
    case BinaryOp::kGe: *out = BinaryOp::kLt; return true;
    default: return false;
  }
}

Interval combine(BinaryOp op, Interval a, Interval b) {
  const bool unbounded = !a.bounded() || !b.bounded();
  switch (op) {
    case BinaryOp::kAdd:
      return {a.lo == Interval::kNegInf || b.lo == Interval::kNegInf ? Interval::kNegInf : clamp(Wide(a.lo) + b.lo),
              a.hi == Interval::kPosInf || b.hi == Interval::kPosInf ? Interval::kPosInf : clamp(Wide(a.hi) + b.hi)};
    case BinaryOp::kSub:
      return {a.lo == Interval::kNegInf || b.hi == Interval::kPosInf ? Interval::kNegInf : clamp(Wide(a.lo) - b.hi),
              a.hi == Interval::kPosInf || b.lo == Interval::kNegInf ? Interval::kPosInf : clamp(Wide(a.hi) - b.lo)};
    case BinaryOp::kMul:
      return hull({Wide(a.lo) * b.lo, Wide(a.lo) * b.hi, Wide(a.hi) * b.lo, Wide(a.hi) * b.hi}, unbounded);
    case BinaryOp::kFloorDiv:
      if (b.lo != b.hi || b.lo == 0 || unbounded) return {};
      return hull({floor_div(a.lo, b.lo), floor_div(a.hi, b.lo)}, false);
    case BinaryOp::kDiv:
      if (b.lo != b.hi || b.lo == 0 || unbounded) return {};
      return hull({Wide(a.lo) / b.lo, Wide(a.hi) / b.lo}, false);
    case BinaryOp::kFloorMod: {
      if (b.lo != b.hi || b.lo <= 0) return {};
      const Wide c = b.lo;
      if (a.bounded() && floor_div(a.lo, c) == floor_div(a.hi, c)) {
        return {clamp(a.lo - floor_div(a.lo, c) * c), clamp(a.hi - floor_div(a.hi, c) * c)};
      }
      return {0, clamp(c - 1)};
    }
    case BinaryOp::kMin: return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case BinaryOp::kMax: return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    default: return {0, 1};  // predicates
  }
}

}  // namespace

void IntervalContext::assume(const PrimExpr& cond) {
  if (cond->kind != PrimKind::kBinary) return;
  const auto& b = *static_cast<const BinaryNode*>(cond.get());
  if (b.op == BinaryOp::kAnd) {
    assume(b.a);
    assume(b.b);
    return;
  }
  if (b.a.dtype().is_float()) return;
  PrimExpr e = b.a;
  const int64_t* c = as_int_imm(b.b);
  BinaryOp op = b.op;
  if (!c) {  // `c OP e`: mirror the comparison
    c = as_int_imm(b.a);
    e = b.b;
    if (!c) return;
    switch (op) {
      case BinaryOp::kLt: op = BinaryOp::kGt; break;
      case BinaryOp::kLe: op = BinaryOp::kGe; break;
      case BinaryOp::kGt: op = BinaryOp::kLt; break;
      case BinaryOp::kGe: op = BinaryOp::kLe; break;
      default: break;
    }
  }
  const Wide v = *c;
  Interval fact;
  switch (op) {
    case BinaryOp::kLt: fact.hi = clamp(v - 1); break;
    case BinaryOp::kLe: fact.hi = clamp(v); break;
    case BinaryOp::kGt: fact.lo = clamp(v + 1); break;
    case BinaryOp::kGe: fact.lo = clamp(v); break;
    case BinaryOp::kEq: fact = Interval::point(*c); break;
    default: return;
  }
  facts_.emplace_back(e, fact);
}

void IntervalContext::assume_not(const PrimExpr& cond) {
  if (cond->kind != PrimKind::kBinary) return;
  const auto& b = *static_cast<const BinaryNode*>(cond.get());
  if (b.op == BinaryOp::kOr) {  // neither holds
    assume_not(b.a);
    assume_not(b.b);
    return;
  }
  BinaryOp op;
  if (negated(b.op, &op)) assume(make_ref<BinaryNode>(op, DataType::Bool(), b.a, b.b));
}

Interval IntervalContext::bound(const PrimExpr& e) const {
  Interval r = structural_bound(e);
  // Past its dtype's range an integer wraps: nothing is known then.
  const DataType dt = e.dtype();
  if (!dt.is_float() && !dt.is_bool() && dt.bits < 64) {
    const Interval range = dtype_range(dt);
    if (!r.within(range.lo, range.hi)) r = Interval();
  }
  for (const auto& [expr, fact] : facts_) {
    if (structural_equal(expr, e)) r = intersect(r, fact);
  }
  return r;
}

Interval IntervalContext::structural_bound(const PrimExpr& e) const {
  switch (e->kind) {
    case PrimKind::kIntImm: return Interval::point(*as_int_imm(e));
    case PrimKind::kVar: {
      const auto* v = static_cast<const VarNode*>(e.get());
      if (auto let = lets_.find(v); let != lets_.end()) return bound(let->second);
      auto it = vars_.find(v);
      return it == vars_.end() ? Interval() : it->second;
    }
    case PrimKind::kBinary: {
      const auto& b = *static_cast<const BinaryNode*>(e.get());
      if (b.a.dtype().is_float()) return is_predicate(b.op) ? Interval{0, 1} : Interval();
      return combine(b.op, bound(b.a), bound(b.b));
    }
    case PrimKind::kSelect: {
      const auto& s = *static_cast<const SelectNode*>(e.get());
      IntervalContext then_ctx = *this, else_ctx = *this;
      then_ctx.assume(s.cond);
      else_ctx.assume_not(s.cond);
      const Interval t = then_ctx.bound(s.then_value), f = else_ctx.bound(s.else_value);
      return {std::min(t.lo, f.lo), std::max(t.hi, f.hi)};
    }
    case PrimKind::kCast: {
      const auto& c = *static_cast<const CastNode*>(e.get());
      if (c.value.dtype().is_float()) return {};
      if (c.dtype.is_bool()) return {0, 1};
      // A narrowing cast keeps the value where it fits (bound() drops it otherwise).
      return bound(c.value);
    }
    case PrimKind::kBufferLoad:
    case PrimKind::kTensorRead:
      return dtype_range(e.dtype());  // any value of its dtype
    case PrimKind::kCall: {
      const auto& c = *static_cast<const CallNode*>(e.get());
      if (c.op != Intrinsic::kNeg || c.dtype.is_float()) return {};
      return combine(BinaryOp::kSub, Interval::point(0), bound(c.args[0]));
    }
    default: return {};
  }
}

}  // namespace weft::te
