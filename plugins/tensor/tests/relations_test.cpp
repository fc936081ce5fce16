// The tensor plugin's schemas, type relations and errors: attrs with the
// reference's names, order and defaults; result types; and clear errors,
// naming the op and the shapes, for calls the reference rejects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/op_test.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

/// The result type text of `op` applied to one Tuple of the given tensor types.
std::string infer_tuple_op_type(const std::string& op, const std::vector<Type>& field_types, AttrList attrs = {}) {
  std::vector<Var> params;
  std::vector<Expr> fields;
  for (size_t i = 0; i < field_types.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), field_types[i]));
    fields.push_back(params.back());
  }
  IRModule mod = infer_type(IRModule::from_function(function(params, call(op, {tuple(fields)}, std::move(attrs)))));
  return type_to_text(mod.main()->body->checked_type());
}

/// A float32 tensor type of `shape`.
Type f32_type(std::vector<Dim> shape) { return tensor_type(std::move(shape), DataType::Float(32)); }

TEST(TensorRelations, ReshapeToTheWrongSizeNamesTheOpAndBothShapes) {
  std::string msg = error_of([] { infer_op_type("reshape", {f32_type({2, 3})}, {{"newshape", ints({4, 2})}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("reshape"), HasSubstr("(2, 3)"), HasSubstr("(4, 2)")));
  msg = error_of([] { infer_op_type("reshape", {f32_type({2, 3})}, {{"newshape", ints({-1, -1})}}); });
  EXPECT_THAT(msg, HasSubstr("only one dim can be inferred"));
}

TEST(TensorRelations, ReshapeCodesFollowTheReference) {
  EXPECT_EQ(infer_op_type("reshape", {f32_type({2, 3, 4})}, {{"newshape", ints({-4, 1, 2, -2})}}),
            "Tensor[(1, 2, 3, 4), float32]");
  EXPECT_EQ(infer_op_type("reshape", {f32_type({2, 0})}, {{"newshape", ints({0, 5})}, {"allowzero", true}}),
            "Tensor[(0, 5), float32]");
  EXPECT_EQ(infer_op_type("reshape", {f32_type({kAnyDim, 3})}, {{"newshape", ints({-1})}}), "Tensor[(?), float32]");
  EXPECT_EQ(infer_op_type("reshape", {f32_type({2, 3})}, {{"newshape", AttrValue(int64_t{6})}}), "Tensor[(6), float32]");
}

TEST(TensorRelations, SplitThatDoesNotDivideNamesTheShape) {
  std::string msg = error_of(
      [] { infer_op_type("split", {f32_type({2, 5})}, {{"indices_or_sections", AttrValue(int64_t{3})}, {"axis", 1}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("split"), HasSubstr("Tensor[(2, 5), float32]"), HasSubstr("5 is not divisible by 3")));
  msg = error_of([] { infer_op_type("split", {f32_type({6})}, {{"indices_or_sections", ints({4, 2})}}); });
  EXPECT_THAT(msg, HasSubstr("sorted ascending"));
}

TEST(TensorRelations, SplitGivesATuple) {
  EXPECT_EQ(infer_op_type("split", {f32_type({2, 6})}, {{"indices_or_sections", ints({1, 4})}, {"axis", -1}}),
            "(Tensor[(2, 1), float32], Tensor[(2, 3), float32], Tensor[(2, 2), float32])");
}

TEST(TensorRelations, ConcatenateOfMismatchedShapesNamesThem) {
  std::string msg = error_of([] { infer_tuple_op_type("concatenate", {f32_type({2, 3}), f32_type({3, 4})}, {{"axis", 0}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("concatenate"), HasSubstr("Tensor[(2, 3), float32]"),
                         HasSubstr("Tensor[(3, 4), float32]")));
  msg = error_of([] { infer_tuple_op_type("stack", {f32_type({2, 3}), f32_type({2, 4})}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("stack"), HasSubstr("Tensor[(2, 4), float32]")));
  EXPECT_EQ(infer_tuple_op_type("concatenate", {f32_type({2, 3}), f32_type({2, 4})}, {{"axis", -1}}), "Tensor[(2, 7), float32]");
  EXPECT_EQ(infer_tuple_op_type("stack", {f32_type({2, 3}), f32_type({2, 3})}, {{"axis", -1}}), "Tensor[(2, 3, 2), float32]");
}

TEST(TensorRelations, TransposeAxesMustBeAPermutation) {
  std::string msg = error_of([] { infer_op_type("transpose", {f32_type({2, 3, 4})}, {{"axes", ints({0, 0, 1})}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("transpose"), HasSubstr("not a permutation")));
  msg = error_of([] { infer_op_type("transpose", {f32_type({2, 3, 4})}, {{"axes", ints({1, 0})}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("has 2 entries"), HasSubstr("rank 3")));
  msg = error_of([] { infer_op_type("transpose", {f32_type({2, 3})}, {{"axes", ints({0, 2})}}); });
  EXPECT_THAT(msg, HasSubstr("out of range"));
}

TEST(TensorRelations, ShapeOpsRejectWhatTheReferenceRejects) {
  EXPECT_THAT(error_of([] { infer_op_type("squeeze", {f32_type({1, 3})}, {{"axis", ints({1})}}); }),
              AllOf(HasSubstr("squeeze"), HasSubstr("extent 3")));
  EXPECT_THAT(error_of([] { infer_op_type("expand_dims", {f32_type({2})}, {{"axis", 3}}); }), HasSubstr("out of range"));
  EXPECT_THAT(error_of([] { infer_op_type("broadcast_to", {f32_type({2, 3})}, {{"shape", ints({4, 3})}}); }),
              AllOf(HasSubstr("broadcast_to"), HasSubstr("(4, 3)")));
  EXPECT_THAT(error_of([] { infer_op_type("collapse_sum_to", {f32_type({2, 3})}, {{"shape", ints({2})}}); }),
              HasSubstr("cannot collapse"));
  EXPECT_THAT(error_of([] { infer_op_type("tile", {f32_type({2})}, {{"reps", ints({0})}}); }), HasSubstr("positive"));
  EXPECT_THAT(error_of([] { infer_op_type("repeat", {f32_type({2})}, {{"repeats", 0}, {"axis", 0}}); }),
              HasSubstr("repeats must be >= 1"));
  EXPECT_THAT(error_of([] { infer_op_type("zeros", {}, {{"shape", ints({2, -1})}, {"dtype", "float32"}}); }),
              HasSubstr("negative extent"));
}

TEST(TensorRelations, IndexingRejectsBadIndicesAndSlices) {
  EXPECT_THAT(error_of([] { infer_op_type("take", {f32_type({4}), f32_type({2})}); }),
              AllOf(HasSubstr("take"), HasSubstr("integers")));
  EXPECT_THAT(error_of([] {
                infer_op_type("take", {f32_type({2, 3}), tensor_type({3}, DataType::Int(32))},
                              {{"axis", 1}, {"batch_dims", 1}});
              }),
              HasSubstr("batch dims"));
  EXPECT_THAT(error_of([] {
                infer_op_type("strided_slice", {f32_type({5})},
                              {{"begin", ints({3})}, {"end", ints({1})}, {"strides", ints({1})}});
              }),
              AllOf(HasSubstr("strided_slice"), HasSubstr("select nothing valid")));
  EXPECT_EQ(infer_op_type("take", {f32_type({2, 3}), tensor_type({4, 5}, DataType::Int(64))}, {{"axis", 1}}),
            "Tensor[(2, 4, 5), float32]");
  EXPECT_EQ(infer_op_type("strided_slice", {f32_type({4, 5})}, {{"begin", ints({1})}, {"end", ints({-1})}}),
            "Tensor[(2, 5), float32]");
}

constexpr int64_t k2e62 = int64_t{1} << 62;

TEST(TensorRelations, ShapeArithmeticThatOverflowsInt64IsAnError) {
  EXPECT_THAT(error_of([] { infer_op_type("reshape", {f32_type({8})}, {{"newshape", ints({k2e62, 4})}}); }),
              AllOf(HasSubstr("reshape"), HasSubstr("(4611686018427387904, 4)"), HasSubstr("int64")));
  EXPECT_THAT(error_of([] { infer_op_type("tile", {f32_type({int64_t{1} << 31})}, {{"reps", ints({int64_t{1} << 33})}}); }),
              AllOf(HasSubstr("tile"), HasSubstr("reps: integer overflow")));
  EXPECT_THAT(error_of([] { infer_op_type("repeat", {f32_type({4})}, {{"repeats", k2e62}, {"axis", 0}}); }),
              AllOf(HasSubstr("repeat"), HasSubstr("repeats: integer overflow")));
  // Shapes an attr asks for directly are checked too, and a too-large one names its size.
  EXPECT_THAT(error_of([] {
                infer_op_type("zeros", {}, {{"shape", ints({int64_t{1} << 32, int64_t{1} << 32, 4})}, {"dtype", "float32"}});
              }),
              HasSubstr("Tensor[(4294967296, 4294967296, 4), float32] has more bytes than"));
}

TEST(TensorRelations, ConcatenatedExtentsThatOverflowInt64AreAnError) {
  // Each (0, 2^62) uint8 input is empty and fits; their axis-1 sum, 2^63, does not.
  const Type empty_wide = tensor_type({0, k2e62}, DataType::UInt(8));
  EXPECT_THAT(error_of([&] { infer_tuple_op_type("concatenate", {empty_wide, empty_wide}, {{"axis", 1}}); }),
              AllOf(HasSubstr("concatenate"), HasSubstr("the concatenated axis: integer overflow")));
  EXPECT_EQ(infer_tuple_op_type("concatenate", {empty_wide, tensor_type({0, 7}, DataType::UInt(8))}, {{"axis", 1}}),
            "Tensor[(0, 4611686018427387911), uint8]");
}

TEST(TensorRelations, StridedSliceWithTheMostNegativeStrideKeepsOneElement) {
  // NumPy: len(range(4, 0, -2**63)) == 1; |INT64_MIN| does not fit in int64.
  EXPECT_EQ(infer_op_type("strided_slice", {f32_type({5})},
                          {{"begin", ints({4})}, {"end", ints({0})},
                           {"strides", ints({std::numeric_limits<int64_t>::min()})}}),
            "Tensor[(1), float32]");
}

TEST(TensorRelations, ComparisonsGiveBoolAndArgReductionsInt32) {
  EXPECT_EQ(infer_op_type("less", {f32_type({2, 1}), f32_type({3})}), "Tensor[(2, 3), bool]");
  EXPECT_EQ(infer_op_type("argmax", {f32_type({2, 3})}, {{"axis", 1}}), "Tensor[(2), int32]");
  EXPECT_EQ(infer_op_type("sum", {f32_type({2, 3, 4})}, {{"axis", ints({0, 2})}, {"keepdims", true}}),
            "Tensor[(1, 3, 1), float32]");
  EXPECT_EQ(infer_op_type("mean", {f32_type({2, 3, 4})}, {{"axis", ints({1})}, {"exclude", true}}), "Tensor[(3), float32]");
  EXPECT_EQ(infer_op_type("cast", {f32_type({2})}, {{"dtype", "int64"}}), "Tensor[(2), int64]");
  EXPECT_EQ(infer_op_type("full", {tensor_type({}, DataType::Int(32))}, {{"shape", ints({3})}}), "Tensor[(3), int32]");
  EXPECT_EQ(infer_op_type("layout_transform", {f32_type({1, 12, 2, 2})}, {{"src_layout", "NCHW"}, {"dst_layout", "NCHW8c"}}),
            "Tensor[(1, 2, 2, 2, 8), float32]");
}

TEST(TensorRelations, ReductionsAndLogicalOpsRejectBadCalls) {
  EXPECT_THAT(error_of([] { infer_op_type("sum", {f32_type({2, 3})}, {{"axis", 2}}); }), HasSubstr("out of range"));
  EXPECT_THAT(error_of([] { infer_op_type("sum", {f32_type({2, 3})}, {{"exclude", true}}); }), HasSubstr("exclude"));
  EXPECT_THAT(error_of([] { infer_op_type("argmax", {f32_type({})}); }), HasSubstr("rank >= 1"));
  EXPECT_THAT(error_of([] { infer_op_type("logical_and", {f32_type({2}), f32_type({2})}); }), HasSubstr("bool"));
  EXPECT_THAT(error_of([] { infer_op_type("where", {tensor_type({2}, DataType::Bool()), f32_type({2}),
                                                    tensor_type({2}, DataType::Int(32))}); }),
              HasSubstr("one dtype"));
  EXPECT_THAT(error_of([] { infer_op_type("full", {f32_type({2})}, {{"shape", ints({3})}}); }), HasSubstr("scalar"));
  EXPECT_THAT(error_of([] { infer_op_type("variance", {f32_type({2, 3}), f32_type({3})}); }), HasSubstr("mean"));
}

TEST(TensorRelations, LayoutTransformChecksItsLayouts) {
  auto lt = [](std::vector<Dim> shape, const char* src, const char* dst) {
    return error_of([&] { infer_op_type("layout_transform", {f32_type(shape)}, {{"src_layout", src}, {"dst_layout", dst}}); });
  };
  EXPECT_THAT(lt({1, 2, 3, 4}, "NCHW", "NCW"), HasSubstr("primal axes differ"));
  EXPECT_THAT(lt({1, 2, 3, 4}, "NCHW", "NCHWc"), HasSubstr("positive factor"));
  EXPECT_THAT(lt({1, 2, 3, 4, 4}, "NCHW8c", "NCHW"), HasSubstr("expected 8"));
  EXPECT_THAT(lt({1, 2, 3}, "NCHW", "NHWC"), HasSubstr("rank 3"));
}

TEST(TensorAttrs, BadAttrsNameTheAttrAndTheExpectedForm) {
  std::string msg = error_of([] { infer_op_type("take", {f32_type({4}), tensor_type({1}, DataType::Int(32))}, {{"mode", "nearest"}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("take"), HasSubstr("mode"), HasSubstr("clip, wrap, fast")));
  msg = error_of([] { infer_op_type("clip", {f32_type({2})}, {{"a_max", 1.0}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("clip"), HasSubstr("a_min")));
  msg = error_of([] { infer_op_type("reshape", {f32_type({2})}, {{"newshape", "2"}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("newshape"), HasSubstr("list of ints")));
  msg = error_of([] { infer_op_type("strided_slice", {f32_type({2})}, {{"begin", ints({0})}, {"end", ints({1})},
                                                                   {"slice_mode", "stride"}}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("slice_mode"), HasSubstr("end or size")));
}

TEST(TensorAttrs, SchemasFollowTheReference) {
  auto names = [](const char* op) {
    std::vector<std::string> out;
    for (const AttrField& f : OpRegistry::global().get(op).attrs.fields()) out.push_back(f.name);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("take"), (V{"batch_dims", "axis", "mode"}));
  EXPECT_EQ(names("strided_slice"), (V{"begin", "end", "strides", "slice_mode", "axes"}));
  EXPECT_EQ(names("argmax"), (V{"axis", "keepdims", "select_last_index", "exclude"}));
  EXPECT_EQ(names("variance"), (V{"axis", "keepdims", "exclude", "unbiased"}));
  EXPECT_EQ(names("reshape_like"), (V{"lhs_begin", "lhs_end", "rhs_begin", "rhs_end"}));
  EXPECT_EQ(names("full"), (V{"shape", "dtype"}));
  const OpDef& take = OpRegistry::global().get("take");
  EXPECT_EQ(take.attrs.find("mode")->default_value->as_string(), "clip");
  EXPECT_TRUE(take.attrs.find("axis")->default_value->is_none());
  EXPECT_EQ(take.plugin, "tensor");
  EXPECT_EQ(OpRegistry::global().get("sum").pattern, OpPattern::kCommReduce);
  EXPECT_EQ(OpRegistry::global().get("where").pattern, OpPattern::kBroadcast);
  EXPECT_EQ(OpRegistry::global().get("concatenate").support_level, 1);
  EXPECT_EQ(OpRegistry::global().get("layout_transform").support_level, 5);
  for (const char* op : {"power", "erf", "clip", "logical_xor", "zeros", "reshape", "split", "take", "tile",
                         "layout_transform", "collapse_sum_like", "variance"}) {
    const OpDef& def = OpRegistry::global().get(op);
    EXPECT_FALSE(def.description.empty()) << op;
    EXPECT_TRUE(def.kernel) << op;
  }
}

TEST(TensorKernels, RuntimeErrorsNameTheOp) {
  Tensor data = Tensor::zeros({3}, DataType::Float(32));
  Tensor idx = Tensor::zeros({1}, DataType::Int(32));
  idx.data_as<int32_t>()[0] = 5;
  EXPECT_THAT(error_of([&] { run_op("take", {data, idx}, {{"axis", 0}, {"mode", "fast"}}); }),
              AllOf(HasSubstr("take"), HasSubstr("index 5 is out of range for extent 3")));
  Tensor a = Tensor::zeros({2}, DataType::Int(32)), b = Tensor::zeros({2}, DataType::Int(32));
  EXPECT_THAT(error_of([&] { run_op("floor_divide", {a, b}); }), HasSubstr("integer division by zero"));
  EXPECT_THAT(error_of([&] { run_op("log", {a}); }), AllOf(HasSubstr("log"), HasSubstr("float32 and float64")));
}

// Hand-worked cases, independent of NumPy.
TEST(TensorKernels, HandWorkedValues) {
  Tensor x = Tensor::zeros({2, 3}, DataType::Float(32));
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = static_cast<float>(i);  // [[0 1 2] [3 4 5]]
  Tensor idx = Tensor::zeros({2}, DataType::Int(64));
  idx.data_as<int64_t>()[0] = -1;  // clipped to 0
  idx.data_as<int64_t>()[1] = 7;   // clipped to 2
  Tensor taken = run_op("take", {x, idx}, {{"axis", 1}}).tensor();
  EXPECT_EQ(std::vector<float>(taken.data_as<float>(), taken.data_as<float>() + 4), (std::vector<float>{0, 2, 3, 5}));
  Tensor sliced = run_op("strided_slice", {x}, {{"begin", ints({1, 2})}, {"end", ints({-3, 0})},
                                               {"strides", ints({-1, -1})}}).tensor();
  // rows 1..0 (end -3 clamps to -1: both rows), cols 2..1 (end 0 excludes col 0).
  EXPECT_EQ(sliced.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(std::vector<float>(sliced.data_as<float>(), sliced.data_as<float>() + 4), (std::vector<float>{5, 4, 2, 1}));
  Tensor arg = run_op("argmin", {x}, {{"axis", AttrValue()}}).tensor();
  EXPECT_EQ(arg.data_as<int32_t>()[0], 0);
  // As TVM's cast (an ordered compare with zero), NaN is false; NumPy would say true.
  Tensor f = Tensor::zeros({3}, DataType::Float(64));
  f.data_as<double>()[0] = std::nan("");
  f.data_as<double>()[2] = -0.5;
  Tensor b = run_op("cast", {f}, {{"dtype", "bool"}}).tensor();
  EXPECT_EQ(std::vector<uint8_t>(b.data_as<uint8_t>(), b.data_as<uint8_t>() + 3), (std::vector<uint8_t>{0, 0, 1}));
}

}  // namespace
}  // namespace weft::testing
