// Index simplification and the interval arithmetic behind it, on hand-worked
// expressions.
#include <gtest/gtest.h>

#include "weft/te/buffer.h"
#include "weft/te/interval.h"
#include "weft/te/printer.h"
#include "weft/te/simplify.h"

namespace weft::te {
namespace {

class TeSimplify : public ::testing::Test {
 protected:
  Var i = var("i"), j = var("j"), k = var("k");
  IntervalContext ctx;
  void SetUp() override {
    ctx.bind(i, {0, 9});
    ctx.bind(j, {0, 3});
  }
  std::string simplified(const PrimExpr& e) { return print(simplify(e, ctx)); }
};

TEST_F(TeSimplify, IdentitiesAndConstantsFold) {
  EXPECT_EQ(simplified(i * 1 + 0), "i");
  EXPECT_EQ(simplified((i + 2) * 3 - 6), "i * 3");
  EXPECT_EQ(simplified(i + j - i), "j");
  EXPECT_EQ(simplified(3 - i), "3 - i");
  EXPECT_EQ(simplified(exp(PrimExpr(0.0))), "1f");
}

TEST_F(TeSimplify, FloorDivAndModOfASumSplitWhereTheRangesProveIt) {
  // j in [0, 3]: (i * 4 + j) / 4 = i and the remainder is j.
  EXPECT_EQ(simplified(floordiv(i * 4 + j, 4)), "i");
  EXPECT_EQ(simplified(floormod(i * 4 + j, 4)), "j");
  // + 5 = 4 + 1, and j + 1 stays in [1, 4]: not below 4, so nothing is proven...
  EXPECT_EQ(simplified(floordiv(i * 4 + j + 5, 4)), "floordiv(i * 4 + j + 5, 4)");
  // ...but with j in [0, 2] it is: quotient i + 1, remainder j + 1.
  IntervalContext narrow = ctx;
  narrow.bind(j, {0, 2});
  EXPECT_EQ(print(simplify(floordiv(i * 4 + j + 5, 4), narrow)), "i + 1");
  EXPECT_EQ(print(simplify(floormod(i * 4 + j + 5, 4), narrow)), "j + 1");
  // Unknown k: nothing to prove.
  EXPECT_EQ(simplified(floormod(i * 4 + k, 4)), "floormod(i * 4 + k, 4)");
  EXPECT_EQ(simplified(floordiv(i, 1)), "i");
  EXPECT_EQ(simplified(floormod(i, 1)), "0");
}

TEST_F(TeSimplify, ComparisonsAndMinMaxTheRangesDecideFold) {
  EXPECT_EQ(simplified(i < 10), "true");
  EXPECT_EQ(simplified(i >= 10), "false");
  EXPECT_EQ(simplified(i < 5), "i < 5");
  EXPECT_EQ(simplified(min(j, 3)), "j");
  EXPECT_EQ(simplified(max(i, j + 10)), "j + 10");
}

TEST_F(TeSimplify, FloatRewritesAreOnlyTheExactOnes) {
  Var x = var("x", DataType::Float(32));
  EXPECT_EQ(simplified(x * 1.0), "x");
  EXPECT_EQ(simplified(x - 0.0), "x");
  // -0 + 0 is +0: x + 0 is not x.
  EXPECT_EQ(simplified(x + 0.0), "x + 0f");
}

TEST_F(TeSimplify, IntervalsFollowFloorSemanticsAndConditions) {
  Interval d = ctx.bound(floordiv(i - 5, 2));  // (i - 5) in [-5, 4] -> [-3, 2]
  EXPECT_EQ(d.lo, -3);
  EXPECT_EQ(d.hi, 2);
  Interval m = ctx.bound(floormod(i - 5, 4));
  EXPECT_EQ(m.lo, 0);
  EXPECT_EQ(m.hi, 3);
  EXPECT_FALSE(ctx.bound(i + k).bounded());
  IntervalContext guarded = ctx;
  guarded.assume(logical_and(i - 1 >= 0, i - 1 < 4));
  Interval g = guarded.bound(i - 1);
  EXPECT_EQ(g.lo, 0);
  EXPECT_EQ(g.hi, 3);
}

TEST_F(TeSimplify, ClampsOfLoadedIndicesAndNarrowingCastsAreBounded) {
  // An index read from a tensor: any int32, which min/max clamp into [0, 9].
  Buffer idx = make_buffer("idx", DataType::Int(32), {4});
  PrimExpr loaded = buffer_load(idx, {j});
  Interval any = ctx.bound(loaded);
  EXPECT_EQ(any.lo, -2147483648);
  EXPECT_EQ(any.hi, 2147483647);
  Interval clamped = ctx.bound(min(max(loaded, 0), 9));
  EXPECT_EQ(clamped.lo, 0);
  EXPECT_EQ(clamped.hi, 9);
  // An int64 index cast down to int32 keeps its range where it fits, and
  // loses it where it would wrap.
  Interval narrowed = ctx.bound(cast(DataType::Int(32), cast(DataType::Int(64), i) * 2));
  EXPECT_EQ(narrowed.lo, 0);
  EXPECT_EQ(narrowed.hi, 18);
  EXPECT_FALSE(ctx.bound(cast(DataType::Int(8), i * 100)).bounded());
}

TEST_F(TeSimplify, ASelectsElseBranchKnowsItsConditionFailed) {
  // i < 5 ? i : i - 5 is in [0, 4]: the else branch sees i >= 5.
  Interval r = ctx.bound(select(i < 5, PrimExpr(i), i - 5));
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 4);
  // Where neither side of || holds: i >= 2 && i <= 7.
  Interval s = ctx.bound(select(logical_or(i < 2, i > 7), PrimExpr(0), i - 2));
  EXPECT_EQ(s.lo, 0);
  EXPECT_EQ(s.hi, 5);
}

TEST_F(TeSimplify, AnIfWhoseConditionTheLoopsDecideIsRemoved) {
  Buffer out = make_buffer("out", DataType::Int(32), {10});
  Stmt s = for_loop(i, 0, 10, ForKind::kSerial, if_then_else(i < 10, buffer_store(out, {i}, i * 1)));
  EXPECT_EQ(print(simplify(s)), "for i in range(10):\n  out[i] = i\n");
}

}  // namespace
}  // namespace weft::te
