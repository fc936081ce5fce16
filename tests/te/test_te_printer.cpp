// The TE text form: TVM-like, one stage per line, names made unique.
#include <gtest/gtest.h>

#include "weft/te/printer.h"

namespace weft::te {
namespace {

TEST(TePrinter, ReluIsAMaxWithZero) {
  Tensor x = placeholder({4, 8}, DataType::Float(32), "x");
  Tensor relu = compute(x.shape(), [&](const std::vector<Var>& i) { return max(x(i[0], i[1]), 0.0); }, "relu");
  EXPECT_EQ(print({relu}), "x = placeholder((4, 8), float32)\n"
                           "relu = compute((4, 8), [i, j]): max(x[i, j], 0f)\n");
}

TEST(TePrinter, MatmulIsASumOverTheReduceAxis) {
  Tensor a = placeholder({4, 8}, DataType::Float(32), "a");
  Tensor b = placeholder({8, 3}, DataType::Float(32), "b");
  IterVar k = reduce_axis(8, "k");
  Tensor c = compute({4, 3}, [&](const std::vector<Var>& i) { return sum(a(i[0], k->var) * b(k->var, i[1]), {k}); },
                     "matmul");
  EXPECT_EQ(print({c}), "a = placeholder((4, 8), float32)\n"
                        "b = placeholder((8, 3), float32)\n"
                        "matmul = compute((4, 3), [i, j]): sum(a[i, k] * b[k, j], axis=[k: 8])\n");
}

TEST(TePrinter, ParenthesesFollowPrecedence) {
  Var a = var("a"), b = var("b"), c = var("c");
  EXPECT_EQ(print((a + b) * c), "(a + b) * c");
  EXPECT_EQ(print(a + b * c), "a + b * c");
  EXPECT_EQ(print(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(print((a - b) - c), "a - b - c");
  EXPECT_EQ(print(floordiv(a, 4) + floormod(b, 4)), "floordiv(a, 4) + floormod(b, 4)");
  EXPECT_EQ(print(cast(DataType::Float(32), a) / 2.5), "float32(a) / 2.5f");
  EXPECT_EQ(print(logical_or(a < b, logical_and(b < c, c < a))), "a < b || b < c && c < a");
}

TEST(TePrinter, ImmediatesShowTheirDtype) {
  EXPECT_EQ(print(int_imm(7, DataType::Int(64))), "int64(7)");
  EXPECT_EQ(print(bool_imm(true)), "true");
  EXPECT_EQ(print(float_imm(1.5, DataType::Float(64))), "1.5f64");
  EXPECT_EQ(print(float_imm(1.5, DataType::BFloat(16))), "1.5bf16");
}

TEST(TePrinter, DifferentVariablesOfOneNameAreToldApart) {
  Var k1 = var("k"), k2 = var("k");
  EXPECT_EQ(print(k1 + k2 * k1), "k + k_1 * k");
}

TEST(TePrinter, ACustomReducerIsDefinedBeforeItsFirstUse) {
  Tensor x = placeholder({2, 5}, DataType::Float(32), "x");
  CommReducer argmax = comm_reducer(
      [](const std::vector<Var>& l, const std::vector<Var>& r) {
        return std::vector<PrimExpr>{select(l[1] >= r[1], l[0], r[0]), max(l[1], r[1])};
      },
      {PrimExpr(-1), min_value(DataType::Float(32))}, "argmax");
  IterVar k = reduce_axis(5, "k");
  std::vector<Tensor> out = compute_multi(
      {2}, [&](const std::vector<Var>& i) { return reduce(argmax, {k->var, x(i[0], k->var)}, {k}); }, "am");
  EXPECT_EQ(print({out[0]}),
            "x = placeholder((2, 5), float32)\n"
            "reducer argmax((x0, x1), (y0, y1)) = (select(x1 >= y1, x0, y0), max(x1, y1)), identity (-1, "
            "-3.40282347e+38f)\n"
            "am.0, am.1 = compute((2,), [i]): (argmax.0(k, x[i, k], axis=[k: 5]), argmax.1(k, x[i, k], axis=[k: 5]))\n");
}

}  // namespace
}  // namespace weft::te
