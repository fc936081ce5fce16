// The default schedules: injective producers inlined, injective outputs one
// fused loop (vector lanes inside, parallel outside), reductions with their
// innermost data axis vectorized inside the reduce loops; each keeps the
// NumPy results, and the same bits as the unscheduled lowering.
#include <gtest/gtest.h>

#include "te_cases.h"
#include "weft/te/default_schedule.h"

namespace weft::te {
namespace {

using cases::golden;
using cases::member;

Tensor placeholder_like(const weft::Tensor& t, const std::string& name) { return placeholder(t.shape(), t.dtype(), name); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TeDefaultSchedule, AConvWithItsPadInlinedIsVectorizedAndParallelAndStillMatchesNumpy) {
  NamedTensors data = golden("conv2d");
  Tensor x = placeholder_like(member(data, "x"), "x"), w = placeholder_like(member(data, "w"), "w");
  Tensor y = cases::conv2d(x, w, 1, 2);  // (1, 3, 3, 3): 3 output columns
  LoweredFunc f = lower(default_schedule({y}, TargetTraits{3, 2}), "conv", {x, w});
  const std::string loops = print(f);
  EXPECT_FALSE(contains(loops, "pad[")) << loops;  // read through a select, never stored
  EXPECT_TRUE(contains(loops, "vectorized for")) << loops;
  EXPECT_FALSE(contains(loops, "parallel for")) << loops;  // one image: nothing to share out
  auto out = evaluate(f, {member(data, "x"), member(data, "w")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeDefaultSchedule, AMatmulVectorizesItsColumnsWhereTheLanesDivideThem) {
  NamedTensors data = golden("matmul");  // (5, 7) x (7, 6)
  Tensor a = placeholder_like(member(data, "a"), "a"), b = placeholder_like(member(data, "b"), "b");
  Tensor c = cases::matmul(a, b);
  const std::vector<weft::Tensor> inputs = {member(data, "a"), member(data, "b")};
  const auto expected = evaluate(lower({c}, "plain", {a, b}), inputs);
  LoweredFunc by3 = lower(default_schedule({c}, TargetTraits{3, 2}), "mm", {a, b});
  const std::string loops = print(by3);
  EXPECT_TRUE(contains(loops, "parallel for i in range(5):")) << loops;
  EXPECT_TRUE(contains(loops, "vectorized for j.inner in range(3):")) << loops;
  // The lanes initialized, then updated inside the reduce loop: one accumulator each.
  EXPECT_LT(loops.find("vectorized for j.inner"), loops.find("for k in range(7):")) << loops;
  EXPECT_LT(loops.find("for k in range(7):"), loops.rfind("vectorized for j.inner")) << loops;
  cases::expect_equal(evaluate(by3, inputs)[0], expected[0]);
  const std::string by4 = print(lower(default_schedule({c}, TargetTraits{4, 1}), "mm", {a, b}));
  EXPECT_FALSE(contains(by4, "vectorized")) << by4;  // 4 does not divide 6
  EXPECT_FALSE(contains(by4, "parallel")) << by4;    // one core
}

TEST(TeDefaultSchedule, SoftmaxStagesKeepTheirResults) {
  NamedTensors data = golden("softmax");
  Tensor x = placeholder_like(member(data, "x"), "x");
  cases::Softmax s = cases::softmax(x);
  LoweredFunc f = lower(default_schedule({s.out}, TargetTraits{8, 2}), "softmax", {x});
  const std::string loops = print(f);
  EXPECT_FALSE(contains(loops, "exp[")) << loops;  // inlined into the sum and the division
  cases::expect_equal(evaluate(f, {member(data, "x")})[0], evaluate(lower({s.out}), {member(data, "x")})[0]);
}

TEST(TeDefaultSchedule, TraitsComeFromATargetsOptions) {
  TargetTraits t = target_traits(make_attrs({{"vector_lanes", 16}, {"cores", 4}, {"other", true}}));
  EXPECT_EQ(t.vector_lanes, 16);
  EXPECT_EQ(t.cores, 4);
  TargetTraits none = target_traits(make_attrs({}));
  EXPECT_EQ(none.vector_lanes, 1);
  EXPECT_EQ(none.cores, 1);
}

}  // namespace
}  // namespace weft::te
