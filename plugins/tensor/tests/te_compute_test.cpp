// The tensor ops' TE computes on the `loops` target (fallback: error, so each
// op runs its lowered TE) on the cases the golden files leave out: integer
// dtypes, negative axes, take's modes and index dtypes, clip bounds beyond an
// integer dtype, NaN into bool, mod's truncation, arg-reduction ties, layout padding, empty
// tensors. Expected values are worked by hand, and each result must also
// equal the reference kernels' on the interpreter.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "weft/build.h"
#include "weft/graph_executor.h"

namespace weft::testing {
namespace {

using ::testing::ElementsAreArray;

const DataType i32 = DataType::Int(32);
const DataType i64 = DataType::Int(64);
const DataType boolean = DataType::Bool();
const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

/// op(inputs..., attrs) as main (the inputs as one Tuple argument when
/// `tuple_input`), built for loops alone and run there; every group must have
/// run on loops, and the result must equal the interpreter's bit for bit.
Value run_on_loops(const std::string& op, const std::vector<Tensor>& inputs, AttrList attrs = {},
                   bool tuple_input = false) {
  std::vector<Var> params;
  std::vector<Expr> fields;
  std::vector<Value> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), tensor_type(inputs[i].shape(), inputs[i].dtype())));
    fields.push_back(params.back());
    values.emplace_back(inputs[i]);
  }
  std::vector<Expr> args = tuple_input ? std::vector<Expr>{tuple(fields)} : fields;
  IRModule mod = infer_type(IRModule::from_function(function(params, call(op, args, std::move(attrs)))));
  RunConfig config;
  config.targets = {"loops"};
  config.fallback = FallbackPolicy::kError;
  std::shared_ptr<const CompiledModule> compiled = build(mod, config);
  for (const CompiledGroup& group : compiled->groups) EXPECT_EQ(group.target, "loops");
  Value got = GraphExecutor(compiled).run(values);
  Value want = Interpreter(mod).run_main(values);
  std::vector<Tensor> g = got.flatten(), w = want.flatten();
  EXPECT_EQ(g.size(), w.size());
  for (size_t o = 0; o < g.size() && o < w.size(); ++o) {
    EXPECT_EQ(g[o].shape(), w[o].shape());
    EXPECT_EQ(g[o].dtype(), w[o].dtype());
    std::vector<double> a = elements(g[o]), b = elements(w[o]);
    EXPECT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (std::isnan(a[i]) && std::isnan(b[i])) continue;
      EXPECT_EQ(a[i], b[i]) << "output " << o << " element " << i << " differs from the reference kernel's";
    }
  }
  return got;
}

std::vector<double> run1(const std::string& op, const std::vector<Tensor>& inputs, AttrList attrs = {}) {
  return elements(run_on_loops(op, inputs, std::move(attrs)).tensor());
}

/// [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]] in int32.
Tensor grid() { return tensor_of({0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}, {3, 4}, i32); }

TEST(TensorTeCompute, ModTruncatesAsCsFmodAndRemainder) {
  // Floats: fmod, with the dividend's sign: 5.5 mod -2 = 1.5, -5.5 mod 2 = -1.5, 0.3 mod 0.1 exactly as fmod.
  Tensor a = tensor_of({5.5, -5.5, 0.3, 7}, {4}), b = tensor_of({-2, 2, 0.1, 7}, {4});
  std::vector<double> got = run1("mod", {a, b});
  EXPECT_EQ(got[0], 1.5);
  EXPECT_EQ(got[1], -1.5);
  EXPECT_EQ(got[2], static_cast<double>(std::fmod(0.3f, 0.1f)));
  EXPECT_EQ(got[3], 0);
  // int32: C's %, and INT_MIN % -1 is 0 (NumPy's), not a trap.
  Tensor i = tensor_of({-7, 7, -2147483648.0, 9}, {4}, i32), j = tensor_of({2, -3, -1, 4}, {4}, i32);
  EXPECT_THAT(run1("mod", {i, j}), ElementsAreArray(std::vector<double>{-1, 1, 0, 1}));
}

TEST(TensorTeCompute, TakeWrapsAndClipsIndicesOfEveryIntegerDtype) {
  Tensor wild = tensor_of({-9, -1, 0, 5, 1099511627776.0}, {5}, i64);  // 2^40
  // wrap: floormod(-9, 4) = 3, -1 -> 3, 5 -> 1, 2^40 -> 0.
  EXPECT_THAT(run1("take", {grid(), wild}, {{"axis", AttrValue(int64_t{-1})}, {"mode", AttrValue(std::string("wrap"))}}),
              ElementsAreArray(std::vector<double>{3, 3, 0, 1, 0, 13, 13, 10, 11, 10, 23, 23, 20, 21, 20}));
  // clip: below 0 -> 0, past the end -> 3.
  EXPECT_THAT(run1("take", {grid(), wild}, {{"axis", AttrValue(int64_t{1})}, {"mode", AttrValue(std::string("clip"))}}),
              ElementsAreArray(std::vector<double>{0, 0, 0, 3, 3, 10, 10, 10, 13, 13, 20, 20, 20, 23, 23}));
  // uint8 indices along axis 0: 255 clips to row 2.
  EXPECT_THAT(run1("take", {grid(), tensor_of({255, 1}, {2}, DataType::UInt(8))}, {{"axis", AttrValue(int64_t{0})}}),
              ElementsAreArray(std::vector<double>{20, 21, 22, 23, 10, 11, 12, 13}));
  // int8 indices into the flattened data (12 elements): -13 wraps to 11, 7 stays.
  EXPECT_THAT(run1("take", {grid(), tensor_of({-13, 7}, {2}, DataType::Int(8))}, {{"mode", AttrValue(std::string("wrap"))}}),
              ElementsAreArray(std::vector<double>{23, 13}));
  // batch_dims=-1 (= 1) with int16 indices: row r takes its own columns.
  EXPECT_THAT(run1("take", {grid(), tensor_of({-1, 3, 5, 2, 0, -7}, {3, 2}, DataType::Int(16))},
                   {{"axis", AttrValue(int64_t{1})}, {"batch_dims", AttrValue(int64_t{-1})},
                    {"mode", AttrValue(std::string("wrap"))}}),
              ElementsAreArray(std::vector<double>{3, 3, 11, 12, 20, 21}));
}

TEST(TensorTeCompute, ClipTruncatesAndSaturatesItsBoundsToAnIntegerDtype) {
  // int32: a_min -10.7 truncates to -10; a_max 1e20 saturates to INT32_MAX.
  Tensor x = tensor_of({-2147483648.0, -11, -10, 0, 5, 2147483647.0}, {6}, i32);
  EXPECT_THAT(run1("clip", {x}, {{"a_min", AttrValue(-10.7)}, {"a_max", AttrValue(1e20)}}),
              ElementsAreArray(std::vector<double>{-10, -10, -10, 0, 5, 2147483647.0}));
  // int64: a_min -1e30 saturates to INT64_MIN, a_max 3.9 truncates to 3.
  Tensor y = tensor_of({-1099511627776.0, 3, 4}, {3}, i64);
  EXPECT_THAT(run1("clip", {y}, {{"a_min", AttrValue(-1e30)}, {"a_max", AttrValue(3.9)}}),
              ElementsAreArray(std::vector<double>{-1099511627776.0, 3, 3}));
  // float32: NaN gives a_max, as the kernel's max(min(x, a_max), a_min).
  Tensor f = tensor_of({kNan, -5, 0.5, kInf}, {4}, f32);
  EXPECT_THAT(run1("clip", {f}, {{"a_min", AttrValue(-1.0)}, {"a_max", AttrValue(0.25)}}),
              ElementsAreArray(std::vector<double>{0.25, -1, 0.25, 0.25}));
}

TEST(TensorTeCompute, CastOfNanIntoBoolIsFalseAndFloatsSaturateIntoIntegers) {
  Tensor x = tensor_of({kNan, 0.0, -0.0, 0.5, -kInf, 3e9}, {6}, f32);
  EXPECT_THAT(run1("cast", {x}, {{"dtype", AttrValue(std::string("bool"))}}),
              ElementsAreArray(std::vector<double>{0, 0, 0, 1, 1, 1}));
  EXPECT_THAT(run1("cast", {x}, {{"dtype", AttrValue(std::string("int32"))}}),
              ElementsAreArray(std::vector<double>{0, 0, 0, 0, -2147483648.0, 2147483647.0}));
  // int64 into int32 wraps: 2^32 + 5 -> 5.
  EXPECT_THAT(run1("cast", {tensor_of({4294967301.0, -1}, {2}, i64)}, {{"dtype", AttrValue(std::string("int32"))}}),
              ElementsAreArray(std::vector<double>{5, -1}));
  // full_like converts its fill value as cast does: NaN into bool is false.
  EXPECT_THAT(run1("full_like", {tensor_of({1, 0}, {2}, boolean), Tensor::scalar(kNan, f32)}),
              ElementsAreArray(std::vector<double>{0, 0}));
}

TEST(TensorTeCompute, WhereTakesAnyNonzeroConditionNanIncluded) {
  EXPECT_THAT(run1("where", {tensor_of({kNan, 0.0, -0.0, 2}, {4}, f32), tensor_of({1, 2, 3, 4}, {4}, i32),
                             tensor_of({5, 6, 7, 8}, {4}, i32)}),
              ElementsAreArray(std::vector<double>{1, 6, 7, 4}));
}

TEST(TensorTeCompute, ArgReductionsBreakTiesAsTheKernel) {
  Tensor x = tensor_of({1, 5, 5, 7, 7, 2}, {2, 3}, f32);
  EXPECT_THAT(run1("argmax", {x}, {{"axis", ints({1})}}), ElementsAreArray(std::vector<double>{1, 0}));
  EXPECT_THAT(run1("argmax", {x}, {{"axis", ints({1})}, {"select_last_index", AttrValue(true)}}),
              ElementsAreArray(std::vector<double>{2, 1}));
  Tensor y = tensor_of({1, 5, 5, 1, 2, 5}, {2, 3}, i32);
  EXPECT_THAT(run1("argmin", {y}, {{"axis", ints({-2})}}), ElementsAreArray(std::vector<double>{0, 1, 0}));
  EXPECT_THAT(run1("argmin", {y}, {{"axis", ints({0})}, {"select_last_index", AttrValue(true)}}),
              ElementsAreArray(std::vector<double>{1, 1, 1}));
  // Over two axes the position is row-major over them: the first 5 is at 1, the last at 2.
  Tensor z = tensor_of({1, 5, 5, 2}, {2, 2}, i64);
  EXPECT_THAT(run1("argmax", {z}, {}), ElementsAreArray(std::vector<double>{1}));
  EXPECT_THAT(run1("argmax", {z}, {{"select_last_index", AttrValue(true)}}), ElementsAreArray(std::vector<double>{2}));
  // A NaN first stays: nothing compares greater than it.
  EXPECT_THAT(run1("argmax", {tensor_of({kNan, 3, 4}, {3}, f32)}, {}), ElementsAreArray(std::vector<double>{0}));
}

TEST(TensorTeCompute, IntegerReductionsWrapAndMeanTruncates) {
  // 3 * 2^30 wraps to -2^30; -2^31 * -1 * 3 wraps to -2^31.
  EXPECT_THAT(run1("sum", {tensor_of({1073741824.0, 1073741824.0, 1073741824.0}, {3}, i32)}),
              ElementsAreArray(std::vector<double>{-1073741824.0}));
  EXPECT_THAT(run1("prod", {tensor_of({-2147483648.0, -1, 3}, {3}, i32)}),
              ElementsAreArray(std::vector<double>{-2147483648.0}));
  // -6 / 3 = -2, 16 / 3 = 5 (truncated).
  EXPECT_THAT(run1("mean", {tensor_of({-7, 1, 0, 5, 5, 6}, {2, 3}, i32)}, {{"axis", ints({-1})}}),
              ElementsAreArray(std::vector<double>{-2, 5}));
  // The max of nothing but -inf is the kernel's start, the lowest finite float.
  EXPECT_THAT(run1("max", {tensor_of({-kInf, -kInf}, {1, 2}, f32)}, {{"axis", ints({1})}}),
              ElementsAreArray(std::vector<double>{std::numeric_limits<float>::lowest()}));
  Tensor b = tensor_of({1, 0, 1, 1, 1, 1}, {2, 3}, boolean);
  EXPECT_THAT(run1("all", {b}, {{"axis", ints({1})}}), ElementsAreArray(std::vector<double>{0, 1}));
  EXPECT_THAT(run1("any", {tensor_of({0, 0, 1, 0, 1, 0}, {2, 3}, boolean)}, {{"axis", ints({0})}}),
              ElementsAreArray(std::vector<double>{0, 1, 1}));
  // collapse_sum_to sums the broadcast dims: rows to [5, 7, 9]; columns to [6, 15].
  Tensor c = tensor_of({1, 2, 3, 4, 5, 6}, {2, 3}, i32);
  EXPECT_THAT(run1("collapse_sum_to", {c}, {{"shape", ints({3})}}), ElementsAreArray(std::vector<double>{5, 7, 9}));
  EXPECT_THAT(run1("collapse_sum_to", {c}, {{"shape", ints({2, 1})}}), ElementsAreArray(std::vector<double>{6, 15}));
}

TEST(TensorTeCompute, AReductionOfNoAxesFoldsEachElementIntoTheIdentity) {
  // exclude=True of every axis reduces none: max(lowest, -inf) is lowest, 0 + -0 is +0, argmax is 0.
  Tensor x = tensor_of({-kInf, -0.0, 2}, {3}, f32);
  AttrList none = {{"axis", ints({0})}, {"exclude", AttrValue(true)}};
  EXPECT_THAT(run1("max", {x}, none),
              ElementsAreArray(std::vector<double>{std::numeric_limits<float>::lowest(), -0.0, 2}));
  std::vector<double> sum = run1("sum", {x}, none);
  ASSERT_EQ(sum.size(), 3u);
  EXPECT_FALSE(std::signbit(sum[1]));
  EXPECT_THAT(run1("argmax", {x}, none), ElementsAreArray(std::vector<double>{0, 0, 0}));
}

TEST(TensorTeCompute, VarianceDividesByNOrNMinusOne) {
  Tensor x = tensor_of({1, 2, 3, 4}, {1, 4}, f32);
  Tensor m = tensor_of({2.5}, {1, 1}, f32);
  // Squares 2.25 + 0.25 + 0.25 + 2.25 = 5: over 4 is 1.25, over 3 is 5/3.
  EXPECT_THAT(run1("variance", {x, m}, {{"axis", ints({1})}}), ElementsAreArray(std::vector<double>{1.25}));
  std::vector<double> unbiased = run1("variance", {x, m}, {{"axis", ints({1})}, {"unbiased", AttrValue(true)}});
  ASSERT_EQ(unbiased.size(), 1u);
  EXPECT_FLOAT_EQ(unbiased[0], 5.0f / 3.0f);
}

TEST(TensorTeCompute, LayoutTransformPadsARoundedUpAxisWithZeros) {
  // NC -> NC2c of C = 3: blocks [4, 5] and [6, padding 0].
  EXPECT_THAT(run1("layout_transform", {tensor_of({4, 5, 6}, {1, 3}, i32)},
                   {{"src_layout", AttrValue(std::string("NC"))}, {"dst_layout", AttrValue(std::string("NC2c"))}}),
              ElementsAreArray(std::vector<double>{4, 5, 6, 0}));
}

TEST(TensorTeCompute, JoinsAndSplitsAlongNegativeAxes) {
  Tensor a = tensor_of({1, 2}, {2, 1}, i64), b = tensor_of({3, 4, 5, 6}, {2, 2}, i64);
  EXPECT_THAT(elements(run_on_loops("concatenate", {a, b}, {{"axis", AttrValue(int64_t{-1})}}, true).tensor()),
              ElementsAreArray(std::vector<double>{1, 3, 4, 2, 5, 6}));
  Tensor p = tensor_of({1, 0}, {2}, boolean), q = tensor_of({0, 1}, {2}, boolean);
  EXPECT_THAT(elements(run_on_loops("stack", {p, q}, {{"axis", AttrValue(int64_t{-1})}}, true).tensor()),
              ElementsAreArray(std::vector<double>{1, 0, 0, 1}));
  Value pieces = run_on_loops("split", {tensor_of({1, 2, 3, 4, 5, 6}, {6}, i64)},
                              {{"indices_or_sections", ints({1, 4})}, {"axis", AttrValue(int64_t{-1})}});
  std::vector<Tensor> parts = pieces.flatten();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_THAT(elements(parts[0]), ElementsAreArray(std::vector<double>{1}));
  EXPECT_THAT(elements(parts[1]), ElementsAreArray(std::vector<double>{2, 3, 4}));
  EXPECT_THAT(elements(parts[2]), ElementsAreArray(std::vector<double>{5, 6}));
}

TEST(TensorTeCompute, ShapeOpsMoveElementsAsTheKernels) {
  Tensor x = tensor_of({0, 1, 2, 3, 4, 5}, {2, 1, 3}, i32);
  // out[k, i, 0] = x[i, 0, k].
  EXPECT_THAT(run1("transpose", {x}, {{"axes", ints({-1, 0, 1})}}),
              ElementsAreArray(std::vector<double>{0, 3, 1, 4, 2, 5}));
  // begin -1 is 4, end -6 clamps to -1: every second element backwards.
  EXPECT_THAT(run1("strided_slice", {tensor_of({0, 1, 2, 3, 4}, {5}, i32)},
                   {{"begin", ints({-1})}, {"end", ints({-6})}, {"strides", ints({-2})}}),
              ElementsAreArray(std::vector<double>{4, 2, 0}));
  EXPECT_THAT(run1("tile", {tensor_of({1, 2}, {2}, i32)}, {{"reps", ints({2, 2})}}),
              ElementsAreArray(std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_THAT(run1("repeat", {tensor_of({1, 2, 3, 4}, {2, 2}, i32)},
                   {{"repeats", AttrValue(int64_t{2})}, {"axis", AttrValue(int64_t{-1})}}),
              ElementsAreArray(std::vector<double>{1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_THAT(run1("reshape", {x}, {{"newshape", ints({-1, 2})}}),
              ElementsAreArray(std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(TensorTeCompute, EmptyTensorsNeedNoReads) {
  Tensor e = Tensor::zeros({2, 0}, f32);
  EXPECT_THAT(run1("sum", {e}, {{"axis", ints({1})}}), ElementsAreArray(std::vector<double>{0, 0}));
  std::vector<double> mean = run1("mean", {e}, {{"axis", ints({1})}});
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_TRUE(std::isnan(mean[0]));
  EXPECT_TRUE(run1("transpose", {e}).empty());
}

}  // namespace
}  // namespace weft::testing
