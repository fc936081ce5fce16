// The default schedules: injective producers inlined, injective outputs one
// fused loop (vector lanes inside, parallel outside), reductions with their
// innermost data axis vectorized inside the reduce loops, contractions in
// register tiles; each keeps the NumPy results.
#include <gtest/gtest.h>

#include "te_cases.h"
#include "weft/te/default_schedule.h"

namespace weft::te {
namespace {

using cases::golden;
using cases::member;

Tensor placeholder_like(const weft::Tensor& t, const std::string& name) { return placeholder(t.shape(), t.dtype(), name); }

/// Traits for the golden cases' small shapes: their stages run in parallel
/// whatever their work, so the schedules' parallel loops show.
TargetTraits traits(int lanes, int cores, int registers = 16) {
  TargetTraits t{lanes, cores, registers};
  t.parallel_work = 1;
  return t;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TeDefaultSchedule, AConvWithItsPadInlinedIsVectorizedAndParallelAndStillMatchesNumpy) {
  NamedTensors data = golden("conv2d");
  Tensor x = placeholder_like(member(data, "x"), "x"), w = placeholder_like(member(data, "w"), "w");
  Tensor y = cases::conv2d(x, w, 1, 2);  // (1, 3, 3, 3): 3 output columns
  LoweredFunc f = lower(default_schedule({y}, traits(3, 2)), "conv", {x, w});
  const std::string loops = print(f);
  EXPECT_FALSE(contains(loops, "pad[")) << loops;  // read through a select, never stored
  EXPECT_TRUE(contains(loops, "vectorized for")) << loops;
  // One image and one tile of channels: the output rows are shared out.
  EXPECT_TRUE(contains(loops, "parallel for i2 in range(3):")) << loops;
  auto out = evaluate(f, {member(data, "x"), member(data, "w")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeDefaultSchedule, AReductionVectorizesItsInnermostDataAxisInsideTheReduceLoop) {
  NamedTensors data = golden("argmax");  // (4, 9) along axis 1
  Tensor x = placeholder_like(member(data, "x"), "x");
  std::vector<Tensor> r = cases::argmax(x);
  LoweredFunc f = lower(default_schedule(r, traits(2, 2)), "argmax", {x});
  const std::string loops = print(f);
  EXPECT_TRUE(contains(loops, "parallel for i.outer in range(2):")) << loops;
  // The lanes initialized, then updated inside the reduce loop: one accumulator each.
  EXPECT_LT(loops.find("vectorized for i.inner in range(2):"), loops.find("for k in range(9):")) << loops;
  EXPECT_LT(loops.find("for k in range(9):"), loops.rfind("vectorized for i.inner in range(2):")) << loops;
  auto out = evaluate(f, {member(data, "x")});
  cases::expect_equal(out[0], member(data, "expected_index"));
  cases::expect_equal(out[1], member(data, "expected_value"));
  const std::string by3 = print(lower(default_schedule(r, traits(3, 1)), "argmax", {x}));
  EXPECT_FALSE(contains(by3, "vectorized")) << by3;  // 3 does not divide 4
  EXPECT_FALSE(contains(by3, "parallel")) << by3;    // one core
}

/// The golden (5, 7) x (7, 6) matmul under the default schedule for
/// `t`: its loops as text, checked against NumPy's product.
std::string golden_matmul_loops(const TargetTraits& t) {
  NamedTensors data = golden("matmul");
  Tensor a = placeholder_like(member(data, "a"), "a"), b = placeholder_like(member(data, "b"), "b");
  LoweredFunc f = lower(default_schedule({cases::matmul(a, b)}, t), "mm", {a, b});
  cases::expect_equal(evaluate(f, {member(data, "a"), member(data, "b")})[0], member(data, "expected"));
  return print(f);
}

TEST(TeDefaultSchedule, AMatmulOutputAccumulatesEachRegisterTileInACacheThenCopiesItOut) {
  // Two vectors of 3 lanes make a row of 6; 8 registers leave no room for a
  // second row (5 rows would not divide anyway): tiles of 1 x 6, one per row.
  const std::string loops = golden_matmul_loops(traits(3, 2, 8));
  EXPECT_TRUE(contains(loops, "parallel for i in range(5):")) << loops;
  EXPECT_TRUE(contains(loops, "allocate matmul.local(1, 6) float32")) << loops;
  EXPECT_LT(loops.find("parallel for i in range(5):"), loops.find("allocate matmul.local")) << loops;
  // The row of accumulators is updated by one vector per k, and copied out once.
  EXPECT_LT(loops.find("for k in range(7):"), loops.find("matmul.local[0, j.at] = matmul.local[0, j.at] + a[i_1, k] * b[k, j]"))
      << loops;
  EXPECT_TRUE(contains(loops, "vectorized for j.inner in range(6):")) << loops;
  EXPECT_TRUE(contains(loops, "matmul[i, j_1] = matmul.local[0, j.inner]")) << loops;
}

TEST(TeDefaultSchedule, AMatmulsColumnBlocksAreOutsideItsRowBlocks) {
  // No vectors: tiles of 5 rows by 1 column. The column loop is the outer
  // one, so each column of b is read for every row while it is in cache.
  const std::string loops = golden_matmul_loops(traits(1, 2, 16));
  EXPECT_TRUE(contains(loops, "parallel for j in range(6):")) << loops;
  EXPECT_LT(loops.find("parallel for j in range(6):"), loops.find("for i.outer in range(1):")) << loops;
  EXPECT_TRUE(contains(loops, "unrolled for i.at in range(5):")) << loops;
}

/// relu(conv2d(x, w) + bias) as FuseOps groups it: the conv a reduction
/// stage, the bias add inlined into the relu, which is the group's output.
Tensor conv2d_bias_relu(const Tensor& x, const Tensor& w, const Tensor& bias) {
  Tensor conv = cases::conv2d(x, w, 1, 1);
  Tensor biased = compute(
      conv.shape(), [&](const std::vector<Var>& i) { return conv(i[0], i[1], i[2], i[3]) + bias(i[1]); }, "bias_add");
  return compute(
      conv.shape(), [&](const std::vector<Var>& i) { return max(biased(i[0], i[1], i[2], i[3]), 0.0); }, "relu");
}

TEST(TeDefaultSchedule, AConvTileOfChannelsByColumnsIsWrittenThroughItsBiasAndRelu) {
  NamedTensors data = golden("conv2d_bias_relu");  // (1, 3, 6, 8) * (8, 3, 3, 3) -> (1, 8, 6, 8)
  Tensor x = placeholder_like(member(data, "x"), "x"), w = placeholder_like(member(data, "w"), "w");
  Tensor bias = placeholder_like(member(data, "bias"), "bias");
  Tensor y = conv2d_bias_relu(x, w, bias);
  const std::vector<weft::Tensor> inputs = {member(data, "x"), member(data, "w"), member(data, "bias")};
  // 4 lanes: two vectors cover a row of 8 columns; 16 registers hold 12
  // accumulators, so 4 of the 8 output channels (6 would not divide 8).
  LoweredFunc f = lower(default_schedule({y}, traits(4, 2, 16)), "conv", {x, w, bias});
  const std::string loops = print(f);
  EXPECT_TRUE(contains(loops, "parallel for i1.outer in range(2):")) << loops;
  EXPECT_TRUE(contains(loops, "allocate conv2d(1, 4, 1, 8) float32")) << loops;  // the tile, not the tensor
  // Under the reduction, innermost: 4 unrolled rows of one 8-wide vector each.
  const size_t reduction = loops.find("for rx in range(3):");
  const size_t rows = loops.find("unrolled for i1.at in range(4):", reduction);
  EXPECT_NE(rows, std::string::npos) << loops;
  EXPECT_LT(rows, loops.find("vectorized for i3.at in range(8):", reduction)) << loops;
  EXPECT_TRUE(contains(loops, "conv2d[0, i1.at, 0, i3.at] = conv2d[0, i1.at, 0, i3.at] + ")) << loops;
  EXPECT_TRUE(contains(loops, "vectorized for i3.inner in range(8):")) << loops;  // the relu, per tile
  EXPECT_FALSE(contains(loops, "bias_add[")) << loops;
  cases::expect_equal(evaluate(f, inputs)[0], member(data, "expected"));
  // Fewer registers, fewer rows: 8 - 4 free registers hold 2 rows of 2 vectors.
  const std::string small = print(lower(default_schedule({y}, traits(4, 2, 8)), "conv", {x, w, bias}));
  EXPECT_TRUE(contains(small, "unrolled for i1.at in range(2):")) << small;
  // Lanes that do not divide the columns: no vectors, the rows still tiled.
  LoweredFunc by3 = lower(default_schedule({y}, traits(3, 1, 16)), "conv", {x, w, bias});
  const std::string scalar = print(by3);
  EXPECT_FALSE(contains(scalar, "vectorized")) << scalar;
  EXPECT_TRUE(contains(scalar, "unrolled for i1.at in range(8):")) << scalar;
  cases::expect_equal(evaluate(by3, inputs)[0], member(data, "expected"));
}

TEST(TeDefaultSchedule, SoftmaxStagesKeepTheirResults) {
  NamedTensors data = golden("softmax");
  Tensor x = placeholder_like(member(data, "x"), "x");
  cases::Softmax s = cases::softmax(x);
  LoweredFunc f = lower(default_schedule({s.out}, traits(8, 2)), "softmax", {x});
  const std::string loops = print(f);
  EXPECT_FALSE(contains(loops, "exp[")) << loops;  // inlined into the sum and the division
  cases::expect_equal(evaluate(f, {member(data, "x")})[0], evaluate(lower({s.out}), {member(data, "x")})[0]);
}

TEST(TeDefaultSchedule, OnlyStagesWithEnoughWorkRunOnSeveralCores) {
  auto relu_of = [](int64_t rows, int64_t cols) {
    Tensor x = placeholder({rows, cols}, DataType::Float(32), "x");
    Tensor y = compute({rows, cols}, [&](const std::vector<Var>& i) { return max(x(i[0], i[1]), 0.0); }, "relu");
    return print(lower(default_schedule({y}, TargetTraits{16, 2}), "relu", {x}));
  };
  EXPECT_FALSE(contains(relu_of(1, 512), "parallel")) << relu_of(1, 512);  // an lstm step's gates
  EXPECT_TRUE(contains(relu_of(512, 256), "parallel")) << relu_of(512, 256);
  // A matmul's work counts its reduction: 8 x 16 outputs of 64 steps each
  // stay on one core, 64 x 32 of 256 steps do not.
  auto matmul_of = [](int64_t m, int64_t k, int64_t n) {
    Tensor a = placeholder({m, k}, DataType::Float(32), "a"), b = placeholder({k, n}, DataType::Float(32), "b");
    return print(lower(default_schedule({cases::matmul(a, b)}, TargetTraits{16, 2, 32}), "mm", {a, b}));
  };
  EXPECT_FALSE(contains(matmul_of(8, 64, 16), "parallel")) << matmul_of(8, 64, 16);
  EXPECT_TRUE(contains(matmul_of(64, 256, 32), "parallel")) << matmul_of(64, 256, 32);
}

TEST(TeDefaultSchedule, OnATargetOfManyThreadsEachStageIsOneParallelLoopOverItsData) {
  TargetTraits gpu;
  gpu.many_threads = true;
  // The matmul in tiles of 5 rows by 1 column: the loops over tiles (1
  // block of rows, 6 columns) fused into one, however little work they hold,
  // the columns inner, so neighbouring threads take neighbouring columns.
  const std::string mm = golden_matmul_loops(gpu);
  EXPECT_TRUE(contains(mm, "parallel for i.outer.j.fused in range(6):")) << mm;
  EXPECT_EQ(mm.find("parallel for"), mm.rfind("parallel for")) << mm;
  EXPECT_TRUE(contains(mm, "unrolled for i.at in range(5):")) << mm;
  // A reduction's data loops, and an injective output's.
  NamedTensors argmax_data = golden("argmax");  // (4, 9) along axis 1
  Tensor x = placeholder_like(member(argmax_data, "x"), "x");
  const std::string argmax = print(lower(default_schedule(cases::argmax(x), gpu), "argmax", {x}));
  EXPECT_TRUE(contains(argmax, "parallel for i in range(4):")) << argmax;
  Tensor y = placeholder({2, 3}, DataType::Float(32), "y");
  Tensor relu = compute({2, 3}, [&](const std::vector<Var>& i) { return max(y(i[0], i[1]), 0.0); }, "relu");
  const std::string relu_loops = print(lower(default_schedule({relu}, gpu), "relu", {y}));
  EXPECT_TRUE(contains(relu_loops, "parallel for i.j.fused in range(6):")) << relu_loops;
}

TEST(TeDefaultSchedule, TraitsComeFromATargetsOptions) {
  TargetTraits t = target_traits(make_attrs(
      {{"vector_lanes", 16}, {"cores", 4}, {"vector_registers", 32}, {"parallel_work", 1000}, {"many_threads", true}, {"other", true}}));
  EXPECT_EQ(t.vector_lanes, 16);
  EXPECT_EQ(t.cores, 4);
  EXPECT_EQ(t.vector_registers, 32);
  EXPECT_EQ(t.parallel_work, 1000);
  EXPECT_TRUE(t.many_threads);
  TargetTraits none = target_traits(make_attrs({}));
  EXPECT_EQ(none.vector_lanes, 1);
  EXPECT_EQ(none.cores, 1);
  EXPECT_EQ(none.vector_registers, 16);
  EXPECT_EQ(none.parallel_work, 65536);
  EXPECT_FALSE(none.many_threads);
}

}  // namespace
}  // namespace weft::te
