#include "weft/te/bounds_check.h"

#include "weft/te/functor.h"
#include "weft/te/interval.h"
#include "weft/te/printer.h"

namespace weft::te {
namespace {

std::string interval_text(Interval r) {
  auto end = [](int64_t v) {
    return v == Interval::kNegInf ? std::string("-inf") : v == Interval::kPosInf ? std::string("+inf") : std::to_string(v);
  };
  return "[" + end(r.lo) + ", " + end(r.hi) + "]";
}

/// Whether e divides integers by something that may be zero.
bool divides_by_a_variable(const PrimExpr& e) {
  bool found = false;
  walk(e, [&](const PrimExpr& x) {
    if (x->kind != PrimKind::kBinary || x.dtype().is_float()) return;
    const auto& b = static_cast<const BinaryNode&>(*x);
    if (b.op != BinaryOp::kDiv && b.op != BinaryOp::kFloorDiv && b.op != BinaryOp::kFloorMod) return;
    const int64_t* divisor = as_int_imm(b.b);
    found |= !divisor || *divisor == 0;
  });
  return found;
}

class BoundsChecker {
 public:
  std::vector<std::string> problems;
  /// Where given, collects the selects safe to evaluate on both sides.
  std::unordered_set<const SelectNode*>* speculatable = nullptr;

  void stmt(const Stmt& s, const IntervalContext& ctx) {
    switch (s->kind) {
      case StmtKind::kFor: {
        const auto& f = *static_cast<const ForNode*>(s.get());
        IntervalContext inner = ctx;
        inner.bind(f.var, {f.min, f.min + f.extent - 1});
        if (f.extent > 0) stmt(f.body, inner);
        return;
      }
      case StmtKind::kStore: {
        const auto& st = *static_cast<const BufferStoreNode*>(s.get());
        access("store to", st.buffer, st.indices, ctx);
        expr(st.value, ctx);
        return;
      }
      case StmtKind::kAllocate: stmt(static_cast<const AllocateNode*>(s.get())->body, ctx); return;
      case StmtKind::kIfThenElse: {
        const auto& i = *static_cast<const IfThenElseNode*>(s.get());
        expr(i.cond, ctx);
        IntervalContext then_ctx = ctx;
        then_ctx.assume(i.cond);
        stmt(i.then_case, then_ctx);
        if (i.else_case) stmt(i.else_case, ctx);
        return;
      }
      case StmtKind::kLet: {
        const auto& l = *static_cast<const LetStmtNode*>(s.get());
        expr(l.value, ctx);
        IntervalContext inner = ctx;
        if (!l.value.dtype().is_float()) inner.bind_let(l.var, l.value);
        stmt(l.body, inner);
        return;
      }
      case StmtKind::kSeq:
        for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->stmts) stmt(c, ctx);
        return;
    }
  }

 private:
  void expr(const PrimExpr& e, const IntervalContext& ctx) {
    if (e->kind == PrimKind::kSelect) {
      // Only the taken side is evaluated: its loads may rely on the condition.
      const auto& s = *static_cast<const SelectNode*>(e.get());
      expr(s.cond, ctx);
      IntervalContext then_ctx = ctx;
      then_ctx.assume(s.cond);
      expr(s.then_value, then_ctx);
      expr(s.else_value, ctx);
      if (speculatable && safe_anywhere(s.then_value, ctx) && safe_anywhere(s.else_value, ctx))
        speculatable->insert(&s);
      return;
    }
    if (e->kind == PrimKind::kBufferLoad) {
      const auto& l = *static_cast<const BufferLoadNode*>(e.get());
      access("load from", l.buffer, l.indices, ctx);
    }
    for_each_child(e, [&](const PrimExpr& c) { expr(c, ctx); });
  }

  /// Whether e's loads are in bounds and its divisions safe where the
  /// select around it is evaluated, whatever the select's condition.
  static bool safe_anywhere(const PrimExpr& e, const IntervalContext& ctx) {
    if (divides_by_a_variable(e)) return false;
    BoundsChecker check;
    check.expr(e, ctx);
    return check.problems.empty();
  }

  void access(const char* what, const Buffer& b, const std::vector<PrimExpr>& indices, const IntervalContext& ctx) {
    for (size_t d = 0; d < indices.size(); ++d) {
      const Interval r = ctx.bound(indices[d]);
      if (!r.within(0, b->shape[d] - 1)) {
        problems.push_back(std::string(what) + " '" + b->name + "' axis " + std::to_string(d) + ": index " +
                           print(indices[d]) + " ranges over " + interval_text(r) + ", the axis over [0, " +
                           std::to_string(b->shape[d] - 1) + "]");
      }
    }
  }
};

}  // namespace

std::vector<std::string> unproven_accesses(const LoweredFunc& f) {
  BoundsChecker checker;
  checker.stmt(f.body, IntervalContext());
  return checker.problems;
}

std::unordered_set<const SelectNode*> speculatable_selects(const LoweredFunc& f) {
  std::unordered_set<const SelectNode*> found;
  BoundsChecker checker;
  checker.speculatable = &found;
  checker.stmt(f.body, IntervalContext());
  return found;
}

void check_bounds(const LoweredFunc& f) {
  std::vector<std::string> problems = unproven_accesses(f);
  if (problems.empty()) return;
  std::string message = "lowering of '" + f.name + "' cannot be proven in bounds:";
  for (const std::string& p : problems) message += "\n  " + p;
  throw InternalError(__FILE__, __LINE__, message + "\nin\n" + print(f));
}

}  // namespace weft::te
