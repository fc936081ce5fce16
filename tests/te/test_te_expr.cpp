// TE expressions: dtype rules and folding as TVM's (python/tvm/tir/op.py,
// src/arith/const_fold.h), errors for what cannot be built.
#include <gtest/gtest.h>

#include "weft/te/expr.h"
#include "weft/te/printer.h"
#include "weft/te/reduce.h"
#include "weft/te/tensor.h"

namespace weft::te {
namespace {

int64_t int_value(const PrimExpr& e) {
  const int64_t* v = as_int_imm(e);
  EXPECT_NE(v, nullptr) << print(e);
  return v ? *v : 0;
}

double float_value(const PrimExpr& e) {
  EXPECT_EQ(e->kind, PrimKind::kFloatImm) << print(e);
  return static_cast<const FloatImmNode*>(e.get())->value;
}

TEST(TeExpr, LiteralsAreInt32AndFloat32AsInTvm) {
  EXPECT_EQ(PrimExpr(3).dtype(), DataType::Int(32));
  EXPECT_EQ(PrimExpr(int64_t{1} << 40).dtype(), DataType::Int(64));
  EXPECT_EQ(PrimExpr(0.5).dtype(), DataType::Float(32));
}

TEST(TeExpr, AnImmediateTakesTheOtherOperandsDtype) {
  Var x = var("x", DataType::Float(16));
  EXPECT_EQ((x + 1).dtype(), DataType::Float(16));
  Var n = var("n", DataType::Int(64));
  EXPECT_EQ((n * 2).dtype(), DataType::Int(64));
  // An integer meets a float as that float; a narrow int meets a wide one widened.
  EXPECT_EQ((var("i") + var("f", DataType::Float(32))).dtype(), DataType::Float(32));
  EXPECT_EQ((var("i") + n).dtype(), DataType::Int(64));
  EXPECT_EQ((var("i") < 3).dtype(), DataType::Bool());
}

TEST(TeExpr, IrreconcilableDtypesAreAnErrorNamingBoth) {
  Var b = var("b", DataType::Bool());
  try {
    (void)(b + var("i"));
    FAIL() << "bool + int32 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bool and int32"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)logical_and(var("i"), b), Error);
  EXPECT_THROW((void)exp(var("i")), Error);  // math intrinsics take floats
  EXPECT_THROW((void)select(var("i"), 1, 2), Error);
}

TEST(TeExpr, FloorDivisionAndModuloRoundTowardMinusInfinityAsTvm) {
  // Hand-worked: floordiv(-7, 2) = floor(-3.5) = -4, floormod = -7 - (-4 * 2) = 1.
  EXPECT_EQ(int_value(floordiv(-7, 2)), -4);
  EXPECT_EQ(int_value(floormod(-7, 2)), 1);
  EXPECT_EQ(int_value(floordiv(7, -2)), -4);
  EXPECT_EQ(int_value(floormod(7, -2)), -1);
  EXPECT_EQ(int_value(floordiv(-8, 2)), -4);
  EXPECT_EQ(int_value(floormod(-8, 2)), 0);
  EXPECT_EQ(int_value(floordiv(-1, 3)), -1);
  EXPECT_EQ(int_value(floormod(-1, 3)), 2);
  // `/` on integers truncates (C's division, TVM's truncdiv).
  EXPECT_EQ(int_value(PrimExpr(-7) / 2), -3);
}

TEST(TeExpr, IntegerArithmeticWrapsInItsDtype) {
  const PrimExpr big = int_imm(2147483647);
  EXPECT_EQ(int_value(big + 1), -2147483648LL);
  EXPECT_EQ(int_value(int_imm(200, DataType::UInt(8)) + 100), 44);
  // NumPy: np.floor_divide(np.int32(-2**31), np.int32(-1)) wraps to -2**31.
  EXPECT_EQ(int_value(floordiv(int_imm(-2147483648LL), -1)), -2147483648LL);
  EXPECT_EQ(int_value(floormod(int_imm(-2147483648LL), -1)), 0);
}

TEST(TeExpr, FloatImmediatesAreRoundedToTheirDtypeOnce) {
  // np.float16(0.1) == 0.0999755859375; bfloat16(0.1) rounds to 0x3dcd = 0.10009765625.
  EXPECT_EQ(float_value(float_imm(0.1, DataType::Float(16))), 0.0999755859375);
  EXPECT_EQ(float_value(float_imm(0.1, DataType::BFloat(16))), 0.10009765625);
  EXPECT_EQ(float_value(float_imm(0.1)), static_cast<double>(0.1f));
  // Folding computes in float32: 0.1f + 0.2f is not 0.1 + 0.2.
  EXPECT_EQ(float_value(PrimExpr(0.1) + PrimExpr(0.2)), static_cast<double>(0.1f + 0.2f));
}

TEST(TeExpr, FloatToInt64CastsSaturateAtTheLargestValue) {
  EXPECT_EQ(int_value(cast(DataType::Int(64), PrimExpr(1e30))), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(int_value(cast(DataType::Int(64), PrimExpr(-1e30))), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(int_value(cast(DataType::UInt(32), PrimExpr(1e30))), 4294967295LL);
}

TEST(TeExpr, LogicWithAConstantFolds) {
  Var i = var("i");
  PrimExpr c = i < 3;
  EXPECT_TRUE(logical_and(bool_imm(true), c).same_as(c));
  EXPECT_EQ(int_value(logical_and(bool_imm(false), c)), 0);
  EXPECT_TRUE(logical_or(c, bool_imm(false)).same_as(c));
  EXPECT_TRUE(select(bool_imm(true), i, 0).same_as(i));
}

TEST(TeExpr, ExtremesOfEachDtype) {
  EXPECT_EQ(float_value(max_value(DataType::Float(16))), 65504.0);
  EXPECT_EQ(float_value(min_value(DataType::Float(32))), -static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(int_value(min_value(DataType::Int(8))), -128);
  EXPECT_EQ(int_value(max_value(DataType::UInt(8))), 255);
}

TEST(TeTensor, ComputeNamesItsAxesAndKeepsShapeAndDtype) {
  Tensor x = placeholder({2, 3, 4}, DataType::Float(16), "x");
  Tensor y = compute(x.shape(), [&](const std::vector<Var>& i) { return x(i[0], i[1], i[2]) * 2; }, "double");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(y.dtype(), DataType::Float(16));
  EXPECT_EQ(print({y}), "x = placeholder((2, 3, 4), float16)\n"
                        "double = compute((2, 3, 4), [i0, i1, i2]): x[i0, i1, i2] * 2f16\n");
}

TEST(TeTensor, AReadWithTheWrongRankOrAFloatIndexIsAnError) {
  Tensor x = placeholder({4, 4}, DataType::Float(32), "x");
  EXPECT_THROW((void)x(1), Error);
  EXPECT_THROW((void)x(1, 0.5), Error);
  EXPECT_THROW((void)placeholder({-1}), Error);
}

TEST(TeTensor, AReductionMustBeTheWholeBody) {
  Tensor x = placeholder({4, 8}, DataType::Float(32), "x");
  IterVar k = reduce_axis(8, "k");
  try {
    (void)compute({4}, [&](const std::vector<Var>& i) { return sum(x(i[0], k->var), {k}) + 1; }, "bad");
    FAIL() << "a nested reduction was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'bad'"), std::string::npos) << e.what();
  }
  // Only reduce axes may be reduced over.
  IterVar d = data_axis(8, "d");
  EXPECT_THROW((void)sum(x(0, d->var), {d}), Error);
}

TEST(TeTensor, ACombinerMustMatchItsIdentity) {
  EXPECT_THROW((void)comm_reducer([](const std::vector<Var>& l, const std::vector<Var>&) {
    return std::vector<PrimExpr>{l[0], l[0]};
  }, {PrimExpr(0.0)}),
               Error);
}

TEST(TeTensor, OperationsAreCollectedProducersFirstEachOnce) {
  Tensor x = placeholder({4}, DataType::Float(32), "x");
  Tensor a = compute({4}, [&](const std::vector<Var>& i) { return x(i[0]) + 1; }, "a");
  Tensor b = compute({4}, [&](const std::vector<Var>& i) { return a(i[0]) * x(i[0]); }, "b");
  Tensor c = compute({4}, [&](const std::vector<Var>& i) { return a(i[0]) - b(i[0]); }, "c");
  std::vector<std::string> names;
  for (const Operation& op : collect_operations({c})) names.push_back(op->name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "a", "b", "c"}));
}

TEST(TeTensor, PadIsASelectOnTheInputBounds) {
  Tensor x = placeholder({3, 4}, DataType::Float(32), "x");
  Tensor p = pad(x, {0, 1}, {0, 2}, 0.0);
  EXPECT_EQ(p.shape(), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(print({p}), "x = placeholder((3, 4), float32)\n"
                        "pad = compute((3, 7), [i, j]): select(j - 1 >= 0 && j - 1 < 4, x[i, j - 1], 0f)\n");
  EXPECT_THROW((void)pad(x, {0}, {0, 1}), Error);
}

}  // namespace
}  // namespace weft::te
