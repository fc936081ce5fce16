// Schedule primitives: each reshapes the lowered loops (checked on the
// printed nest) and keeps the results, which the evaluator gives bit for bit
// as under the default schedule (reduce loops keep their order, so every sum
// adds its terms in the same order).
#include <gtest/gtest.h>

#include "te_cases.h"

namespace weft::te {
namespace {

using cases::golden;
using cases::member;

Tensor placeholder_like(const weft::Tensor& t, const std::string& name) { return placeholder(t.shape(), t.dtype(), name); }

/// The outputs of `schedule` equal the default schedule's on `inputs`.
void expect_same_results(const Schedule& schedule, const std::vector<Tensor>& placeholders,
                         const std::vector<weft::Tensor>& inputs) {
  auto expected = evaluate(lower(schedule.outputs(), "default", placeholders), inputs);
  auto actual = evaluate(lower(schedule, "scheduled", placeholders), inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) cases::expect_equal(actual[i], expected[i]);
}

class TeScheduleMatmul : public ::testing::Test {
 protected:
  NamedTensors data = golden("matmul");
  Tensor a = placeholder_like(member(data, "a"), "a"), b = placeholder_like(member(data, "b"), "b");
  Tensor c = cases::matmul(a, b);
  Schedule s{{c}};
  Stage& st = s[c];
  IterVar i = st.leaf_iter_vars()[0], j = st.leaf_iter_vars()[1], k = st.leaf_iter_vars()[2];
  void expect_same() { expect_same_results(s, {a, b}, {member(data, "a"), member(data, "b")}); }
  std::string loops() { return print(lower(s, "mm", {a, b})); }
};

TEST_F(TeScheduleMatmul, SplitThatDividesNeedsNoGuard) {
  auto [jo, ji] = st.split(j, 3);
  EXPECT_EQ(jo->extent, 2);
  EXPECT_EQ(loops(),
            "func mm(a: float32(5, 7), b: float32(7, 6), matmul: float32(5, 6))\n"
            "  for i in range(5):\n"
            "    for j.outer in range(2):\n"
            "      for j.inner in range(3):\n"
            "        j = j.outer * 3 + j.inner\n"
            "        matmul[i, j] = 0f\n"
            "        for k in range(7):\n"
            "          matmul[i, j] = matmul[i, j] + a[i, k] * b[k, j]\n");
  expect_same();
}

TEST_F(TeScheduleMatmul, SplitOfTheReduceAxisKeepsTheSumsOrder) {
  auto [ko, ki] = st.split(k, 2);  // 7 = 3 * 2 + 1: guarded
  EXPECT_NE(loops().find("if k < 7:"), std::string::npos) << loops();
  expect_same();
}

TEST_F(TeScheduleMatmul, ReorderingDataLoopsInsideTheReduceLoopInitializesFirst) {
  st.reorder({k, i});  // i, j, k -> k, j, i
  EXPECT_EQ(loops(),
            "func mm(a: float32(5, 7), b: float32(7, 6), matmul: float32(5, 6))\n"
            "  for j in range(6):\n"
            "    for i in range(5):\n"
            "      matmul[i, j] = 0f\n"
            "  for k in range(7):\n"
            "    for j in range(6):\n"
            "      for i in range(5):\n"
            "        matmul[i, j] = matmul[i, j] + a[i, k] * b[k, j]\n");
  expect_same();
}

TEST_F(TeScheduleMatmul, TilingWithVectorizedUnrolledAndParallelLoops) {
  auto [io, ii] = st.split(i, 2);
  auto [jo, ji] = st.split(j, 4);
  st.reorder({io, jo, k, ii, ji});
  IterVar outer = st.fuse(io, jo);
  st.parallel(outer);
  st.unroll(ii);
  st.vectorize(ji);
  const std::string text = loops();
  EXPECT_NE(text.find("parallel for i.outer.j.outer.fused in range(6):"), std::string::npos) << text;
  EXPECT_NE(text.find("unrolled for i.inner in range(2):"), std::string::npos) << text;
  EXPECT_NE(text.find("vectorized for j.inner in range(4):"), std::string::npos) << text;
  EXPECT_NE(text.find("i = floordiv(i.outer.j.outer.fused, 2) * 2 + i.inner"), std::string::npos) << text;
  EXPECT_NE(text.find("if j < 6 && i < 5:"), std::string::npos) << text;
  expect_same();
}

TEST_F(TeScheduleMatmul, ReduceLoopsCannotRunInParallelOrAsVectorLanes) {
  EXPECT_THROW(st.parallel(k), Error);
  EXPECT_THROW(st.vectorize(k), Error);
  EXPECT_NO_THROW(st.unroll(k));
}

TEST_F(TeScheduleMatmul, MisusedPrimitivesAreErrorsNamingTheStage) {
  EXPECT_THROW(st.split(i, 0), Error);
  EXPECT_THROW(st.fuse(i, k), Error);  // not adjacent
  st.split(i, 2);
  try {
    st.split(i, 2);  // i is no longer a loop of the stage
    FAIL() << "a split-away loop was split again";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stage 'matmul' on loop 'i'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(st.reorder({j, j}), Error);
  EXPECT_THROW(s[a].split(a->op->name.empty() ? i : j, 2), Error);  // placeholders have no loops
}

/// relu of the golden (4, 8) input, rescheduled.
class TeScheduleRelu : public ::testing::Test {
 protected:
  NamedTensors data = golden("relu");
  Tensor x = placeholder_like(member(data, "x"), "x");
  Tensor y = cases::relu(x);
  Schedule s{{y}};
  Stage& st = s[y];
  const std::string header = "func relu(x: float32(4, 8), relu: float32(4, 8))\n";
  std::string loops() { return print(lower(s, "relu")); }
  void expect_same() { expect_same_results(s, {x}, {member(data, "x")}); }
};

TEST_F(TeScheduleRelu, ANonDividingSplitIsGuardedAndStaysInBounds) {
  st.split(st.leaf_iter_vars()[1], 3);  // 8 = 2 * 3 + 2
  EXPECT_EQ(loops(), header +
                         "  for i in range(4):\n"
                         "    for j.outer in range(3):\n"
                         "      for j.inner in range(3):\n"
                         "        j = j.outer * 3 + j.inner\n"
                         "        if j < 8:\n"
                         "          relu[i, j] = max(x[i, j], 0f)\n");
  expect_same();
}

TEST_F(TeScheduleRelu, FuseMakesOneLoopOfTwo) {
  IterVar f = st.fuse(st.leaf_iter_vars()[0], st.leaf_iter_vars()[1]);
  st.vectorize(f);
  EXPECT_EQ(loops(), header +
                         "  vectorized for i.j.fused in range(32):\n"
                         "    i = floordiv(i.j.fused, 8)\n"
                         "    j = floormod(i.j.fused, 8)\n"
                         "    relu[i, j] = max(x[i, j], 0f)\n");
  expect_same();
}

TEST(TeSchedule, ANonDividingSplitWithoutItsGuardIsCaughtOutOfBounds) {
  Tensor x = placeholder({4, 8}, DataType::Float(32), "x");
  Tensor y = cases::relu(x);
  Schedule s({y});
  s[y].split(s[y].leaf_iter_vars()[1], 3, Predication::kDisabled);
  try {
    (void)lower(s);
    FAIL() << "an unguarded split of 8 by 3 was lowered";
  } catch (const InternalError& e) {
    // j reaches 2 * 3 + 2 = 8 on the last outer iteration.
    EXPECT_NE(std::string(e.what()).find("store to 'relu' axis 1: index j ranges over [0, 8]"), std::string::npos)
        << e.what();
  }
  // Where the factor divides, no guard is needed and none is missed.
  Schedule ok({y});
  ok[y].split(ok[y].leaf_iter_vars()[1], 4, Predication::kDisabled);
  EXPECT_NO_THROW((void)lower(ok));
}

TEST(TeSchedule, SplitByPartsFixesTheOuterExtent) {
  Tensor x = placeholder({4, 10}, DataType::Float(32), "x");
  Tensor y = cases::relu(x);
  Schedule s({y});
  auto [outer, inner] = s[y].split_by_nparts(s[y].leaf_iter_vars()[1], 3);
  EXPECT_EQ(outer->extent, 3);
  EXPECT_EQ(inner->extent, 4);
  EXPECT_NO_THROW((void)lower(s));
}

TEST(TeSchedule, InliningSoftmaxsExpStageKeepsItsResults) {
  NamedTensors data = golden("softmax");
  Tensor x = placeholder_like(member(data, "x"), "x");
  cases::Softmax sm = cases::softmax(x);
  Schedule s({sm.out});
  s[sm.exp_stage].compute_inline();
  const std::string text = print(lower(s, "softmax"));
  EXPECT_EQ(text.find("allocate exp"), std::string::npos) << text;
  EXPECT_NE(text.find("sum[i_1] = sum[i_1] + exp(x[i_1, k_1] - max[i_1])"), std::string::npos) << text;
  expect_same_results(s, {x}, {member(data, "x")});
}

TEST(TeSchedule, ATiledConvWithItsPaddingInlinedKeepsItsResults) {
  NamedTensors data = golden("conv2d");
  Tensor x = placeholder_like(member(data, "x"), "x"), w = placeholder_like(member(data, "w"), "w");
  Tensor y = cases::conv2d(x, w, 1, 2);
  Schedule s({y});
  Stage& st = s[y];
  const std::vector<IterVar> l = st.leaf_iter_vars();  // n, f, oh, ow, rc, ry, rx
  s[input_tensors(y->op)[0]].compute_inline();           // the pad stage
  auto [fo, fi] = st.split(l[1], 2);
  st.reorder({l[0], fo, l[2], l[4], l[5], l[6], l[3], fi});
  st.vectorize(fi);
  st.parallel(st.fuse(l[0], fo));
  const std::string text = print(lower(s, "conv", {x, w}));
  EXPECT_EQ(text.find("allocate pad"), std::string::npos) << text;
  EXPECT_NE(text.find("select("), std::string::npos) << text;
  expect_same_results(s, {x, w}, {member(data, "x"), member(data, "w")});
}

TEST(TeSchedule, ArgmaxSplitAcrossItsReduceAxisKeepsTheFirstIndex) {
  NamedTensors data = golden("argmax");
  Tensor x = placeholder_like(member(data, "x"), "x");
  std::vector<Tensor> am = cases::argmax(x);
  Schedule s(am);
  s[am[0]].split(s[am[0]].leaf_iter_vars()[1], 4);  // 9 = 2 * 4 + 1
  auto out = evaluate(lower(s), {member(data, "x")});
  cases::expect_equal(out[0], member(data, "expected_index"));
  cases::expect_equal(out[1], member(data, "expected_value"));
}

}  // namespace
}  // namespace weft::te

namespace weft::te {
namespace {

TEST(TeComputeAt, APaddingStageIsComputedPerOutputRowForTheRowsItNeeds) {
  NamedTensors data = cases::golden("conv2d");
  Tensor x = placeholder(cases::member(data, "x").shape(), DataType::Float(32), "x");
  Tensor w = placeholder(cases::member(data, "w").shape(), DataType::Float(32), "w");
  Tensor y = cases::conv2d(x, w, 1, 2);
  Schedule s({y});
  const IterVar oh = s[y].leaf_iter_vars()[2];
  Tensor padded = input_tensors(y->op)[0];
  s[padded].compute_at(s[y], oh);
  const std::string text = print(lower(s, "conv", {x, w}));
  // Rows oh * 2 + ry for ry in [0, 3): three of the seven padded rows per output row;
  // all channels and columns (the loops under oh sweep them all).
  EXPECT_NE(text.find("for i2.at in range(3):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("i2_1 = i2 * 2 + i2.at\n"), std::string::npos) << text;  // i2: the conv's row, i2_1: pad's
  EXPECT_NE(text.find("for i3.at in range(7):\n"), std::string::npos) << text;
  EXPECT_LT(text.find("for i2 in range(3):"), text.find("for i2.at in range(3):")) << text;
  // pad is a buffer of just those rows, written and read at offsets within them.
  EXPECT_NE(text.find("        allocate pad(1, 2, 3, 7) float32\n"), std::string::npos) << text;
  EXPECT_LT(text.find("pad[0, i1.at, i2.at, i3.at] = "), text.find("conv2d[0, i1, i2, i3_1] = 0f")) << text;
  EXPECT_NE(text.find(" + pad[0, rc, ry, i3_1 * 2 + rx] * "), std::string::npos) << text;
  expect_same_results(s, {x, w}, {cases::member(data, "x"), cases::member(data, "w")});
}

TEST(TeComputeAt, AMatmulComputedAtItsReluConsumersInnerLoopIsOneElementEach) {
  NamedTensors data = cases::golden("matmul");
  Tensor a = placeholder({5, 7}, DataType::Float(32), "a"), b = placeholder({7, 6}, DataType::Float(32), "b");
  Tensor c = cases::matmul(a, b);
  Tensor r = cases::relu(c);
  Schedule s({r});
  s[c].compute_at(s[r], s[r].leaf_iter_vars()[1]);
  const std::string text = print(lower(s, "mm_relu", {a, b}));
  EXPECT_NE(text.find("      for i.at in range(1):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("for k in range(7):"), std::string::npos) << text;
  expect_same_results(s, {a, b}, {cases::member(data, "a"), cases::member(data, "b")});
}

TEST(TeComputeAt, MisusesAreErrorsNamingTheStages) {
  Tensor a = placeholder({4, 4}, DataType::Float(32), "a");
  Tensor c = cases::relu(a);
  Tensor r = compute({4, 4}, [&](const std::vector<Var>& i) { return c(i[0], i[1]) * 2.0; }, "twice");
  Tensor q = compute({4, 4}, [&](const std::vector<Var>& i) { return c(i[1], i[0]) + 1.0; }, "other");
  {
    Schedule s({r, q});
    s[c].compute_at(s[r], s[r].leaf_iter_vars()[0]);  // q reads c too
    try {
      (void)lower(s);
      FAIL() << "a stage with two readers was computed at one of them";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'relu' is computed at 'twice' but also read by 'other'"), std::string::npos)
          << e.what();
    }
  }
  {
    Schedule s({r});
    s[c].compute_at(s[r], s[r].leaf_iter_vars()[0]);
    try {
      s[c].split(s[c].leaf_iter_vars()[0], 2);
      FAIL() << "a split of an attached stage was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), StatusCode::kUnsupported);
    }
    EXPECT_THROW(s[c].compute_at(s[r], s[c].leaf_iter_vars()[0]), Error);  // not a loop of the consumer
  }
  {
    Tensor t = compute({4, 4}, [&](const std::vector<Var>& i) { return r(i[0], i[1]) - 1.0; }, "then");
    Schedule s({t});
    s[c].compute_at(s[r], s[r].leaf_iter_vars()[1]);
    s[r].compute_inline();  // c would never be computed
    EXPECT_THROW((void)lower(s), Error);
  }
  {
    Schedule s({c, r});
    s[c].compute_at(s[r], s[r].leaf_iter_vars()[0]);
    EXPECT_THROW((void)lower(s), Error);  // c is an output
  }
}

}  // namespace
}  // namespace weft::te

namespace weft::te {
namespace {

TEST(TeCacheWrite, AMatmulTileAccumulatesInItsCacheThenIsCopiedOut) {
  NamedTensors data = cases::golden("matmul");
  Tensor a = placeholder({5, 7}, DataType::Float(32), "a"), b = placeholder({7, 6}, DataType::Float(32), "b");
  Tensor c = cases::matmul(a, b);
  Schedule s({c});
  Tensor local = s.cache_write(c)[0];
  Stage& st = s[c];
  ASSERT_EQ(st.leaf_iter_vars().size(), 2u);  // the copy has no reduce loop
  auto [io, ii] = st.split(st.leaf_iter_vars()[0], 2);
  auto [jo, ji] = st.split(st.leaf_iter_vars()[2], 3);
  st.reorder({io, jo, ii, ji});
  Stage& cache = s[local];
  const IterVar k = cache.leaf_iter_vars()[2];
  cache.compute_at(st, jo);
  cache.reorder({k, cache.leaf_iter_vars()[0], cache.leaf_iter_vars()[1]});  // the 2 x 3 tile inside k
  cache.vectorize(cache.leaf_iter_vars()[2]);
  const std::string text = print(lower(s, "mm", {a, b}));
  EXPECT_NE(text.find("allocate matmul.local(2, 3) float32"), std::string::npos) << text;  // one tile
  EXPECT_NE(text.find("for k in range(7):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("vectorized for j.at in range(3):"), std::string::npos) << text;
  EXPECT_NE(text.find("matmul[i_1, j_1] = matmul.local[i.inner, j.inner]"), std::string::npos) << text;
  // k runs outside the tile: the tile's identity has a nest of its own before it.
  EXPECT_LT(text.find("matmul.local[i.at, j.at] = 0f"), text.find("for k in range(7):")) << text;
  expect_same_results(s, {a, b}, {cases::member(data, "a"), cases::member(data, "b")});
}

TEST(TeCacheWrite, OnlyAnUnscheduledComputeStageCanBeCached) {
  Tensor x = placeholder({4, 4}, DataType::Float(32), "x");
  Tensor y = cases::relu(x);
  Schedule s({y});
  EXPECT_THROW((void)s.cache_write(x), Error);
  s[y].split(s[y].leaf_iter_vars()[0], 2);
  EXPECT_THROW((void)s.cache_write(y), Error);
  Schedule twice({y});
  (void)twice.cache_write(y);
  EXPECT_THROW((void)twice.cache_write(y), Error);
}

}  // namespace
}  // namespace weft::te
