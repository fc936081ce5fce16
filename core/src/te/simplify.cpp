#include "weft/te/simplify.h"

#include <cmath>

#include "te/scalar.h"
#include "weft/te/functor.h"

namespace weft::te {
namespace {

/// An integer expression as sum(coeff * term) + constant, like terms merged.
/// Sums wrap in their dtype, so rearranging them is exact.
struct Linear {
  DataType dtype;
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t constant = 0;

  static int64_t mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
  static int64_t add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }

  void add_term(const PrimExpr& term, int64_t coeff) {
    for (auto& [t, c] : terms) {
      if (structural_equal(t, term)) {
        c = add(c, coeff);
        return;
      }
    }
    terms.emplace_back(term, coeff);
  }

  void collect(const PrimExpr& e, int64_t scale) {
    if (const int64_t* v = as_int_imm(e)) {
      constant = add(constant, mul(scale, *v));
      return;
    }
    if (e->kind == PrimKind::kBinary) {
      const auto& b = *static_cast<const BinaryNode*>(e.get());
      if (b.op == BinaryOp::kAdd || b.op == BinaryOp::kSub) {
        collect(b.a, scale);
        collect(b.b, b.op == BinaryOp::kAdd ? scale : mul(scale, -1));
        return;
      }
      if (b.op == BinaryOp::kMul && (as_int_imm(b.a) || as_int_imm(b.b))) {
        const bool left = as_int_imm(b.a) != nullptr;
        collect(left ? b.b : b.a, mul(scale, *as_int_imm(left ? b.a : b.b)));
        return;
      }
    }
    if (e->kind == PrimKind::kCall && static_cast<const CallNode*>(e.get())->op == Intrinsic::kNeg) {
      collect(static_cast<const CallNode*>(e.get())->args[0], mul(scale, -1));
      return;
    }
    add_term(e, scale);
  }

  /// The sum written readably: positive terms first, then the constant when
  /// nothing positive precedes it ("3 - i"), then the subtracted terms.
  PrimExpr build() const {
    PrimExpr out;
    auto scaled = [&](const PrimExpr& t, int64_t c) { return c == 1 ? t : t * int_imm(c, dtype); };
    for (const auto& [term, c] : terms) {
      if (c > 0) out = out ? out + scaled(term, c) : scaled(term, c);
    }
    const bool constant_first = !out && constant > 0;
    if (constant_first) out = int_imm(constant, dtype);
    for (const auto& [term, c] : terms) {
      if (c < 0) out = out ? out - scaled(term, mul(c, -1)) : scaled(term, c);
    }
    if (!out) return int_imm(constant, dtype);
    if (constant_first || constant == 0) return out;
    return constant > 0 ? out + int_imm(constant, dtype) : out - int_imm(mul(constant, -1), dtype);
  }
};

Linear linear_of(const PrimExpr& e) {
  Linear l;
  l.dtype = e.dtype();
  l.collect(e, 1);
  return l;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0 && ((a < 0) != (b < 0))) ? 1 : 0); }

/// floordiv(a, c) or floormod(a, c) of a sum by a positive constant, split
/// into the multiples of c and the rest when ctx proves the rest's quotient.
PrimExpr divide_sum(BinaryOp op, const PrimExpr& a, int64_t c, const IntervalContext& ctx) {
  if (c == 1) return op == BinaryOp::kFloorDiv ? a : int_imm(0, a.dtype());
  Linear sum = linear_of(a), quotient, rest;
  quotient.dtype = rest.dtype = a.dtype();
  for (const auto& [term, coeff] : sum.terms) {
    if (coeff % c == 0) quotient.add_term(term, coeff / c);
    else rest.add_term(term, coeff);
  }
  quotient.constant = floor_div(sum.constant, c);
  rest.constant = Linear::add(sum.constant, Linear::mul(quotient.constant, -c));
  const PrimExpr remainder = rest.build();
  const Interval r = ctx.bound(remainder);
  if (!r.bounded() || floor_div(r.lo, c) != floor_div(r.hi, c)) return PrimExpr();
  const int64_t m = floor_div(r.lo, c);
  if (op == BinaryOp::kFloorDiv) {
    quotient.constant = Linear::add(quotient.constant, m);
    return quotient.build();
  }
  rest.constant = Linear::add(rest.constant, Linear::mul(m, -c));
  return rest.build();
}

/// The truth of an integer comparison when the operands' ranges decide it.
const int64_t* decided(BinaryOp op, Interval a, Interval b) {
  static const int64_t kTrue = 1, kFalse = 0;
  auto answer = [&](bool always, bool never) -> const int64_t* { return always ? &kTrue : never ? &kFalse : nullptr; };
  switch (op) {
    case BinaryOp::kLt: return answer(a.hi < b.lo, a.lo >= b.hi);
    case BinaryOp::kLe: return answer(a.hi <= b.lo, a.lo > b.hi);
    case BinaryOp::kGt: return answer(a.lo > b.hi, a.hi <= b.lo);
    case BinaryOp::kGe: return answer(a.lo >= b.hi, a.hi < b.lo);
    case BinaryOp::kEq: return answer(a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, a.hi < b.lo || b.hi < a.lo);
    case BinaryOp::kNe: return answer(a.hi < b.lo || b.hi < a.lo, a.lo == a.hi && b.lo == b.hi && a.lo == b.lo);
    default: return nullptr;
  }
}

PrimExpr simplify_int_binary(BinaryOp op, const PrimExpr& a, const PrimExpr& b, const IntervalContext& ctx) {
  const int64_t* cb = as_int_imm(b);
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul: return linear_of(binary(op, a, b)).build();
    case BinaryOp::kDiv:  // truncation is floor division for a non-negative dividend
      if (!cb || *cb <= 0 || ctx.bound(a).lo < 0) break;
      [[fallthrough]];
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      if (cb && *cb > 0) {
        if (PrimExpr split = divide_sum(op == BinaryOp::kFloorMod ? op : BinaryOp::kFloorDiv, a, *cb, ctx)) return split;
      }
      break;
    case BinaryOp::kMin:
    case BinaryOp::kMax: {
      const Interval ia = ctx.bound(a), ib = ctx.bound(b);
      if (ia.hi <= ib.lo) return op == BinaryOp::kMin ? a : b;
      if (ib.hi <= ia.lo) return op == BinaryOp::kMin ? b : a;
      break;
    }
    default:
      if (const int64_t* truth = decided(op, ctx.bound(a), ctx.bound(b))) return bool_imm(*truth != 0);
      break;
  }
  return binary(op, a, b);
}

bool is_float_constant(const PrimExpr& e, double v) {
  return e->kind == PrimKind::kFloatImm && static_cast<const FloatImmNode*>(e.get())->value == v;
}

PrimExpr simplify_binary(const BinaryNode& n, const IntervalContext& ctx) {
  const PrimExpr a = simplify(n.a, ctx), b = simplify(n.b, ctx);
  const DataType dt = a.dtype();
  if (!dt.is_float() && !dt.is_bool()) return simplify_int_binary(n.op, a, b, ctx);
  if (dt.is_float()) {
    // Exact for every float (signed zeros and NaN included); x + 0 is not (-0 + 0 = +0).
    if ((n.op == BinaryOp::kMul || n.op == BinaryOp::kDiv) && is_float_constant(b, 1)) return a;
    if (n.op == BinaryOp::kMul && is_float_constant(a, 1)) return b;
    if (n.op == BinaryOp::kSub && is_float_constant(b, 0) && !std::signbit(static_cast<const FloatImmNode*>(b.get())->value)) return a;
  }
  return binary(n.op, a, b);
}

}  // namespace

PrimExpr simplify(const PrimExpr& e, const IntervalContext& ctx) {
  switch (e->kind) {
    case PrimKind::kIntImm:
    case PrimKind::kFloatImm: return e;
    case PrimKind::kVar: {
      if (e.dtype().is_float() || e.dtype().is_bool()) return e;
      const Interval r = ctx.bound(e);
      return r.lo == r.hi ? int_imm(r.lo, e.dtype()) : e;
    }
    case PrimKind::kBinary: return simplify_binary(*static_cast<const BinaryNode*>(e.get()), ctx);
    case PrimKind::kSelect: {
      const auto& s = *static_cast<const SelectNode*>(e.get());
      const PrimExpr cond = simplify(s.cond, ctx);
      if (const int64_t* c = as_int_imm(cond)) return simplify(*c ? s.then_value : s.else_value, ctx);
      IntervalContext then_ctx = ctx;
      then_ctx.assume(cond);
      return select(cond, simplify(s.then_value, then_ctx), simplify(s.else_value, ctx));
    }
    case PrimKind::kCast: return cast(e.dtype(), simplify(static_cast<const CastNode*>(e.get())->value, ctx));
    case PrimKind::kCall: {
      const PrimExpr c = map_children(e, [&](const PrimExpr& x) { return simplify(x, ctx); });
      const auto& call = *static_cast<const CallNode*>(c.get());
      std::vector<Scalar> args;
      for (const PrimExpr& a : call.args) {
        if (a->kind == PrimKind::kIntImm) args.push_back(Scalar::of_int(a.dtype(), *as_int_imm(a)));
        else if (a->kind == PrimKind::kFloatImm) args.push_back(Scalar::of_float(a.dtype(), static_cast<const FloatImmNode*>(a.get())->value));
        else return c;
      }
      const Scalar r = apply_intrinsic(call.op, args);
      return r.dtype.is_float() ? float_imm(r.f, r.dtype) : int_imm(r.i, r.dtype);
    }
    default: return map_children(e, [&](const PrimExpr& x) { return simplify(x, ctx); });
  }
}

Stmt simplify(const Stmt& s, const IntervalContext& ctx) {
  switch (s->kind) {
    case StmtKind::kFor: {
      const auto& f = *static_cast<const ForNode*>(s.get());
      IntervalContext inner = ctx;
      inner.bind(f.var, {f.min, f.min + f.extent - 1});
      return for_loop(f.var, f.min, f.extent, f.for_kind, simplify(f.body, inner));
    }
    case StmtKind::kStore: {
      const auto& st = *static_cast<const BufferStoreNode*>(s.get());
      std::vector<PrimExpr> indices;
      for (const PrimExpr& i : st.indices) indices.push_back(simplify(i, ctx));
      return buffer_store(st.buffer, std::move(indices), simplify(st.value, ctx));
    }
    case StmtKind::kAllocate: {
      const auto& a = *static_cast<const AllocateNode*>(s.get());
      return allocate(a.buffer, simplify(a.body, ctx));
    }
    case StmtKind::kIfThenElse: {
      const auto& i = *static_cast<const IfThenElseNode*>(s.get());
      const PrimExpr cond = simplify(i.cond, ctx);
      if (const int64_t* c = as_int_imm(cond)) {
        const Stmt& taken = *c ? i.then_case : i.else_case;
        return taken ? simplify(taken, ctx) : seq({});
      }
      IntervalContext then_ctx = ctx;
      then_ctx.assume(cond);
      return if_then_else(cond, simplify(i.then_case, then_ctx), i.else_case ? simplify(i.else_case, ctx) : Stmt());
    }
    case StmtKind::kLet: {
      const auto& l = *static_cast<const LetStmtNode*>(s.get());
      const PrimExpr value = simplify(l.value, ctx);
      IntervalContext inner = ctx;
      if (!value.dtype().is_float()) inner.bind_let(l.var, value);
      return let_stmt(l.var, value, simplify(l.body, inner));
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> stmts;
      for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->stmts) stmts.push_back(simplify(c, ctx));
      return seq(std::move(stmts));
    }
  }
  WEFT_ICHECK(false, "unknown statement kind");
}

}  // namespace weft::te
