// Lowered TE run on the loop-IR evaluator against NumPy (data/make_golden.py)
// and hand-worked results: the default schedule of each case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "te_cases.h"

namespace weft::te {
namespace {

using cases::golden;
using cases::member;

Tensor placeholder_like(const weft::Tensor& t, const std::string& name) { return placeholder(t.shape(), t.dtype(), name); }

TEST(TeEvaluate, ReluMatchesNumpy) {
  NamedTensors data = golden("relu");
  Tensor x = placeholder_like(member(data, "x"), "x");
  auto out = evaluate(lower({cases::relu(x)}), {member(data, "x")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeEvaluate, BroadcastAddMatchesNumpy) {
  NamedTensors data = golden("broadcast_add");
  Tensor a = placeholder_like(member(data, "a"), "a"), b = placeholder_like(member(data, "b"), "b");
  auto out = evaluate(lower({cases::broadcast_add(a, b)}, "add", {a, b}), {member(data, "a"), member(data, "b")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeEvaluate, MatmulSumsInFloat32InAxisOrder) {
  NamedTensors data = golden("matmul");
  Tensor a = placeholder_like(member(data, "a"), "a"), b = placeholder_like(member(data, "b"), "b");
  auto out = evaluate(lower({cases::matmul(a, b)}), {member(data, "a"), member(data, "b")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeEvaluate, AFloat32SumIsNotAccumulatedWider) {
  // Hand-worked: in float32 1e8 + 1 rounds back to 1e8, so the sum is 0 (in double it would be 1).
  Tensor x = placeholder({1, 3}, DataType::Float(32), "x");
  Tensor ones = placeholder({3, 1}, DataType::Float(32), "ones");
  weft::Tensor xv = weft::Tensor::empty({1, 3}, DataType::Float(32)), ov = weft::Tensor::empty({3, 1}, DataType::Float(32));
  const float xs[] = {1e8f, 1.0f, -1e8f};
  for (int i = 0; i < 3; ++i) xv.data_as<float>()[i] = xs[i], ov.data_as<float>()[i] = 1.0f;
  auto out = evaluate(lower({cases::matmul(x, ones)}, "sum", {x, ones}), {xv, ov});
  EXPECT_EQ(out[0].data_as<float>()[0], 0.0f);
  // The same within one expression, where no store rounds in between.
  Tensor chained = compute({1}, [&](const std::vector<Var>& i) { return x(i[0], 0) + x(i[0], 1) + x(i[0], 2); }, "chain");
  EXPECT_EQ(evaluate(lower({chained}, "chain", {x}), {xv})[0].data_as<float>()[0], 0.0f);
}

TEST(TeEvaluate, PaddedStridedConv2dMatchesNumpy) {
  NamedTensors data = golden("conv2d");
  Tensor x = placeholder_like(member(data, "x"), "x"), w = placeholder_like(member(data, "w"), "w");
  Tensor y = cases::conv2d(x, w, 1, 2);
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 3, 3, 3}));
  auto out = evaluate(lower({y}, "conv", {x, w}), {member(data, "x"), member(data, "w")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeEvaluate, ArgmaxThroughATupleReducerKeepsTheFirstIndexOnTies) {
  NamedTensors data = golden("argmax");
  Tensor x = placeholder_like(member(data, "x"), "x");
  auto out = evaluate(lower(cases::argmax(x)), {member(data, "x")});
  ASSERT_EQ(out.size(), 2u);
  cases::expect_equal(out[0], member(data, "expected_index"));
  cases::expect_equal(out[1], member(data, "expected_value"));
}

TEST(TeEvaluate, SoftmaxInFourStagesMatchesNumpy) {
  NamedTensors data = golden("softmax");
  Tensor x = placeholder_like(member(data, "x"), "x");
  auto out = evaluate(lower({cases::softmax(x).out}), {member(data, "x")});
  // exp is the C library's expf here and NumPy's own vectorized one there; each
  // is within an ulp, so after the sum and the division a few ulps separate them.
  cases::expect_within_ulps(out[0], member(data, "expected"), 4);
}

TEST(TeEvaluate, FloorDivisionAndModuloOfNegativesMatchNumpy) {
  NamedTensors data = golden("floor_div_mod");
  Tensor x = placeholder_like(member(data, "x"), "x");
  auto op = [&](BinaryOp o, int d, const char* name) {
    return compute(x.shape(), [&](const std::vector<Var>& i) { return binary(o, x(i[0]), d); }, name);
  };
  std::vector<Tensor> outs = {op(BinaryOp::kFloorDiv, 4, "div4"), op(BinaryOp::kFloorMod, 4, "mod4"),
                              op(BinaryOp::kFloorDiv, -3, "div_neg3"), op(BinaryOp::kFloorMod, -3, "mod_neg3")};
  auto out = evaluate(lower(outs), {member(data, "x")});
  const char* names[] = {"div4", "mod4", "div_neg3", "mod_neg3"};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(names[i]);
    cases::expect_equal(out[i], member(data, names[i]));
  }
}

TEST(TeEvaluate, Float16ArithmeticRoundsEveryOperationAsNumpy) {
  NamedTensors data = golden("half_axpy");
  Tensor x = placeholder_like(member(data, "x"), "x");
  Tensor y = compute(x.shape(), [&](const std::vector<Var>& i) { return x(i[0]) * 3 + 1; }, "axpy");
  ASSERT_EQ(y.dtype(), DataType::Float(16));
  auto out = evaluate(lower({y}), {member(data, "x")});
  cases::expect_equal(out[0], member(data, "expected"));
}

TEST(TeEvaluate, AnIntermediateStageGetsAScratchBuffer) {
  Tensor x = placeholder({4}, DataType::Int(32), "x");
  Tensor a = compute({4}, [&](const std::vector<Var>& i) { return x(i[0]) * 2; }, "a");
  Tensor b = compute({4}, [&](const std::vector<Var>& i) { return a(3 - i[0]) + 1; }, "b");
  LoweredFunc f = lower({b});
  EXPECT_NE(print(f).find("allocate a(4,) int32"), std::string::npos) << print(f);
  weft::Tensor xv = weft::Tensor::empty({4}, DataType::Int(32));
  for (int i = 0; i < 4; ++i) xv.data_as<int32_t>()[i] = 10 * i;
  auto out = evaluate(f, {xv});
  // Hand-worked: b[i] = 2 * x[3 - i] + 1 = 61, 41, 21, 1.
  EXPECT_EQ(std::vector<int32_t>(out[0].data_as<int32_t>(), out[0].data_as<int32_t>() + 4),
            (std::vector<int32_t>{61, 41, 21, 1}));
}

weft::Tensor int_tensor(std::vector<int64_t> shape, std::vector<int32_t> values) {
  weft::Tensor t = weft::Tensor::empty(std::move(shape), DataType::Int(32));
  std::copy(values.begin(), values.end(), t.data_as<int32_t>());
  return t;
}

std::vector<int32_t> ints(const weft::Tensor& t) { return {t.data_as<int32_t>(), t.data_as<int32_t>() + t.numel()}; }

TEST(TeEvaluate, AConditionalSumAddsOnlyWhereItsConditionHolds) {
  Tensor x = placeholder({3, 3}, DataType::Int(32), "x");
  IterVar k = reduce_axis(3, "k");
  Tensor y = compute({3}, [&](const std::vector<Var>& i) { return sum(x(i[0], k->var), {k}, k->var <= i[0]); }, "tri");
  auto out = evaluate(lower({y}), {int_tensor({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  EXPECT_EQ(ints(out[0]), (std::vector<int32_t>{1, 4 + 5, 7 + 8 + 9}));
}

TEST(TeEvaluate, ProdAndMinReduceFromTheirIdentities) {
  Tensor x = placeholder({2, 3}, DataType::Int(32), "x");
  IterVar k1 = reduce_axis(3, "k"), k2 = reduce_axis(3, "k");
  Tensor p = compute({2}, [&](const std::vector<Var>& i) { return prod(x(i[0], k1->var), {k1}); }, "prod");
  Tensor m = compute({2}, [&](const std::vector<Var>& i) { return min(x(i[0], k2->var), {k2}); }, "min");
  auto out = evaluate(lower({p, m}), {int_tensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(ints(out[0]), (std::vector<int32_t>{6, 120}));
  EXPECT_EQ(ints(out[1]), (std::vector<int32_t>{1, 4}));
}

TEST(TeEvaluate, IntrinsicsComputeInFloatAsTheReferenceKernels) {
  const std::vector<float> xs = {-1.5f, -0.5f, 0.25f, 2.5f};
  weft::Tensor xv = weft::Tensor::empty({4}, DataType::Float(32));
  std::copy(xs.begin(), xs.end(), xv.data_as<float>());
  Tensor x = placeholder({4}, DataType::Float(32), "x");
  using Fn = PrimExpr (*)(PrimExpr);
  const std::vector<std::pair<Fn, float (*)(float)>> cases = {
      {exp, [](float v) { return std::exp(v); }},
      {tanh, [](float v) { return std::tanh(v); }},
      {erf, [](float v) { return std::erf(v); }},
      {sigmoid, [](float v) { return 1 / (1 + std::exp(-v)); }},
      {abs, [](float v) { return std::fabs(v); }},
      {floor, [](float v) { return std::floor(v); }},
      {ceil, [](float v) { return std::ceil(v); }},
      {round, [](float v) { return std::nearbyint(v); }},  // 2.5 -> 2, -0.5 -> -0
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    Tensor y = compute({4}, [&](const std::vector<Var>& i) { return cases[c].first(x(i[0])); }, "y");
    auto out = evaluate(lower({y}), {xv});
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[0].data_as<float>()[i], cases[c].second(xs[i])) << "case " << c << " x " << xs[i];
  }
  Tensor p = compute({4}, [&](const std::vector<Var>& i) { return pow(abs(x(i[0])), 1.5); }, "pow");
  auto out = evaluate(lower({p}), {xv});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[0].data_as<float>()[i], std::pow(std::fabs(xs[i]), 1.5f));
}

TEST(TeEvaluate, FloatToIntegerCastsSaturateAndNanIsZero) {
  const std::vector<float> xs = {-1e10f, -2.7f, 2.7f, 300.0f, std::nanf("")};
  weft::Tensor xv = weft::Tensor::empty({5}, DataType::Float(32));
  std::copy(xs.begin(), xs.end(), xv.data_as<float>());
  Tensor x = placeholder({5}, DataType::Float(32), "x");
  Tensor s8 = compute({5}, [&](const std::vector<Var>& i) { return cast(DataType::Int(8), x(i[0])); }, "s8");
  Tensor u8 = compute({5}, [&](const std::vector<Var>& i) { return cast(DataType::UInt(8), x(i[0])); }, "u8");
  auto out = evaluate(lower({s8, u8}), {xv});
  EXPECT_EQ(std::vector<int8_t>(out[0].data_as<int8_t>(), out[0].data_as<int8_t>() + 5),
            (std::vector<int8_t>{-128, -2, 2, 127, 0}));
  EXPECT_EQ(std::vector<uint8_t>(out[1].data_as<uint8_t>(), out[1].data_as<uint8_t>() + 5),
            (std::vector<uint8_t>{0, 0, 2, 255, 0}));
}

TEST(TeEvaluate, Bfloat16IsAStorageTypeComputedThroughFloat32) {
  Tensor x = placeholder({2}, DataType::BFloat(16), "x");
  Tensor y = compute({2}, [&](const std::vector<Var>& i) {
    return cast(DataType::BFloat(16), cast(DataType::Float(32), x(i[0])) * 2.0);
  }, "y");
  weft::Tensor xv = weft::Tensor::empty({2}, DataType::BFloat(16));
  const uint16_t bits[] = {0x3fc0, 0xc010};  // 1.5, -2.25
  std::memcpy(xv.data(), bits, sizeof bits);
  auto out = evaluate(lower({y}), {xv});
  EXPECT_EQ(out[0].element_as_double(0), 3.0);
  EXPECT_EQ(out[0].element_as_double(1), -4.5);
}

TEST(TeEvaluate, ATensorOfTheWrongShapeIsAnErrorNamingTheParameter) {
  Tensor x = placeholder({4, 8}, DataType::Float(32), "x");
  LoweredFunc f = lower({cases::relu(x)});
  try {
    (void)evaluate(f, {weft::Tensor::zeros({4, 7}, DataType::Float(32))});
    FAIL() << "a (4, 7) input was accepted for x";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)evaluate(f, {}), Error);
}

TEST(TeEvaluate, IntegerDivisionByZeroAtRunTimeIsAnError) {
  Tensor x = placeholder({2}, DataType::Int(32), "x");
  Tensor y = compute({2}, [&](const std::vector<Var>& i) { return floordiv(7, x(i[0])); }, "y");
  EXPECT_THROW((void)evaluate(lower({y}), {weft::Tensor::zeros({2}, DataType::Int(32))}), Error);
}

}  // namespace
}  // namespace weft::te
