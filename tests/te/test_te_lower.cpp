// Lowering to loop IR with the default schedule: the loop nests it prints,
// and the bounds check that rejects a lowering reading out of bounds.
#include <gtest/gtest.h>

#include "te_cases.h"
#include "weft/te/bounds_check.h"

namespace weft::te {
namespace {

TEST(TeLower, MatmulIsALoopNestWithTheInitOutsideTheReduceLoop) {
  Tensor a = placeholder({5, 7}, DataType::Float(32), "a"), b = placeholder({7, 6}, DataType::Float(32), "b");
  EXPECT_EQ(print(lower({cases::matmul(a, b)}, "matmul")),
            "func matmul(a: float32(5, 7), b: float32(7, 6), matmul: float32(5, 6))\n"
            "  for i in range(5):\n"
            "    for j in range(6):\n"
            "      matmul[i, j] = 0f\n"
            "      for k in range(7):\n"
            "        matmul[i, j] = matmul[i, j] + a[i, k] * b[k, j]\n");
}

TEST(TeLower, AnInlinedStageIsSubstitutedIntoItsConsumer) {
  Tensor x = placeholder({4}, DataType::Float(32), "x");
  Tensor a = compute({4}, [&](const std::vector<Var>& i) { return x(i[0]) * 2.0; }, "a");
  Tensor b = compute({4}, [&](const std::vector<Var>& i) { return exp(a(3 - i[0])); }, "b");
  Schedule s({b});
  s[a].compute_inline();
  EXPECT_EQ(print(lower(s, "f")),
            "func f(x: float32(4,), b: float32(4,))\n"
            "  for i in range(4):\n"
            "    b[i] = exp(x[3 - i] * 2f)\n");
}

TEST(TeLower, InliningAnOutputIsAnError) {
  Tensor y = cases::relu(placeholder({4, 4}, DataType::Float(32), "x"));
  Schedule s({y});
  s[y].compute_inline();
  EXPECT_THROW((void)lower(s), Error);
  // A reduction cannot be inlined.
  Tensor m = cases::matmul(placeholder({2, 2}, DataType::Float(32), "a"), placeholder({2, 2}, DataType::Float(32), "b"));
  Schedule sm({m});
  EXPECT_THROW(sm[m].compute_inline(), Error);
}

TEST(TeLower, SchedulingATensorOutsideTheGraphIsAnError) {
  Tensor x = placeholder({4, 4}, DataType::Float(32), "x");
  Schedule s({cases::relu(x)});
  EXPECT_THROW((void)s[cases::relu(x)], Error);
}

TEST(TeLower, AReadPastTheEndOfItsInputIsAnInternalError) {
  Tensor x = placeholder({4}, DataType::Float(32), "x");
  Tensor y = compute({4}, [&](const std::vector<Var>& i) { return x(i[0] + 1); }, "shift");
  try {
    (void)lower({y});
    FAIL() << "x[i + 1] over i in [0, 3] was lowered";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("load from 'x' axis 0: index i + 1 ranges over [1, 4], the axis over [0, 3]"),
              std::string::npos)
        << e.what();
  }
}

TEST(TeLower, PaddingWithoutTheSelectOnTheBoundsIsAnInternalError) {
  // conv2d reading its input at h - 1 directly, as a pad without the select would.
  Tensor x = placeholder({1, 1, 4, 4}, DataType::Float(32), "x");
  IterVar ry = reduce_axis(3, "ry");
  Tensor y = compute({1, 1, 4, 4}, [&](const std::vector<Var>& i) {
    return sum(x(i[0], i[1], i[2] + ry->var - 1, i[3]), {ry});
  }, "unpadded");
  EXPECT_THROW((void)lower({y}), InternalError);
  EXPECT_NO_THROW((void)lower({cases::conv2d(x, placeholder({1, 1, 3, 1}, DataType::Float(32), "w"), 1, 1)}));
}

TEST(TeLower, TheBoundsCheckSeesALoopRunningPastItsBuffer) {
  Buffer buf = make_buffer("out", DataType::Float(32), {8});
  Var i = var("i");
  LoweredFunc f{"hand", {}, {buf}, for_loop(i, 0, 9, ForKind::kSerial, buffer_store(buf, {i}, float_imm(1)))};
  std::vector<std::string> problems = unproven_accesses(f);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "store to 'out' axis 0: index i ranges over [0, 8], the axis over [0, 7]");
  EXPECT_THROW(check_bounds(f), InternalError);
  // A guard on the index is a proof.
  LoweredFunc guarded{"hand", {}, {buf},
                      for_loop(i, 0, 9, ForKind::kSerial, if_then_else(i < 8, buffer_store(buf, {i}, float_imm(1))))};
  EXPECT_TRUE(unproven_accesses(guarded).empty());
}

}  // namespace
}  // namespace weft::te
