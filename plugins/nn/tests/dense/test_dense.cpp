// nn.dense, nn.contrib_dense_pack, nn.matmul, nn.batch_matmul, nn.bias_add and
// nn.batch_flatten against golden values from gen_dense.py (PyTorch/NumPy),
// hand-worked cases, output types, and type-relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const DataType i8 = DataType::Int(8);

Tensor iota(std::vector<int64_t> shape) {
  Tensor t = Tensor::empty(std::move(shape), f32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = static_cast<float>(i + 1);
  return t;
}

TEST(NnDense, DenseMatchesTorchForFloatsAndIntegerInputsToInt32) {
  EXPECT_EQ(check_golden_cases("dense.json", "nn.dense"), 9);
}

TEST(NnDense, DensePackMatchesDenseOfTheUnpackedWeight) {
  EXPECT_EQ(check_golden_cases("dense.json", "nn.contrib_dense_pack"), 5);
}

TEST(NnDense, MatmulMatchesTorchForEveryTransposeCombination) {
  EXPECT_EQ(check_golden_cases("dense.json", "nn.matmul"), 17);
}

TEST(NnDense, BatchMatmulMatchesTorchWithTransposesAndBroadcastBatch) {
  EXPECT_EQ(check_golden_cases("dense.json", "nn.batch_matmul"), 15);
}

TEST(NnDense, BiasAddMatchesNumpyOnEachAxis) { EXPECT_EQ(check_golden_cases("dense.json", "nn.bias_add"), 6); }

TEST(NnDense, BatchFlattenMatchesTorch) { EXPECT_EQ(check_golden_cases("dense.json", "nn.batch_flatten"), 2); }

TEST(NnDense, HandWorkedDense) {
  // [[1, 2], [3, 4]] x [[1, 0], [1, 1], [0, 2]]^T = [[1, 3, 4], [3, 7, 8]].
  Tensor w = tensor_of({1, 0, 1, 1, 0, 2}, {3, 2});
  Value out = run_op("nn.dense", {iota({2, 2}), w});
  expect_close(out.tensor(), tensor_json({1, 3, 4, 3, 7, 8}, {2, 3}));
}

TEST(NnDense, OutputTypesFollowTheReference) {
  EXPECT_EQ(infer_op_type("nn.dense", {tensor_type({4, 8, 16}, f32), tensor_type({10, 16}, f32)}),
            "Tensor[(4, 8, 10), float32]");
  EXPECT_EQ(infer_op_type("nn.dense", {tensor_type({4, 16}, i8), tensor_type({10, 16}, i8)},
                          {{"out_dtype", AttrValue("int32")}}),
            "Tensor[(4, 10), int32]");
  EXPECT_EQ(infer_op_type("nn.dense", {tensor_type({kAnyDim, 16}, f32), tensor_type({10, 16}, f32)}),
            "Tensor[(?, 10), float32]");
  EXPECT_EQ(infer_op_type("nn.matmul", {tensor_type({16, 4}, f32), tensor_type({16, 10}, f32)},
                          {{"transpose_a", AttrValue(true)}}),
            "Tensor[(4, 10), float32]");
  // batch_matmul reads tensor_b as (b, N, K) unless told otherwise.
  EXPECT_EQ(infer_op_type("nn.batch_matmul", {tensor_type({1, 3, 5}, f32), tensor_type({7, 4, 5}, f32)}),
            "Tensor[(7, 3, 4), float32]");
  EXPECT_EQ(infer_op_type("nn.contrib_dense_pack", {tensor_type({2, 6}, f32), tensor_type({2, 6, 4}, f32)}),
            "Tensor[(2, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.batch_flatten", {tensor_type({2, 3, kAnyDim}, f32)}), "Tensor[(2, ?), float32]");
}

TEST(NnDense, DenseWithUnitsNotMatchingTheWeightNamesBothShapes) {
  std::string msg =
      type_error("nn.dense", {tensor_type({2, 5}, f32), tensor_type({4, 5}, f32)}, {{"units", AttrValue(int64_t{3})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.dense"), HasSubstr("units=3"), HasSubstr("(2, 5)"), HasSubstr("(4, 5)")));
}

TEST(NnDense, DenseWithMismatchedInputDimNamesBothShapes) {
  std::string msg = type_error("nn.dense", {tensor_type({2, 5}, f32), tensor_type({4, 6}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.dense"), HasSubstr("inner dimensions"), HasSubstr("(2, 5)"), HasSubstr("(4, 6)")));
}

TEST(NnDense, MatmulInnerDimsMustAgree) {
  std::string msg = type_error("nn.matmul", {tensor_type({3, 5}, f32), tensor_type({4, 6}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.matmul"), HasSubstr("(3, 5)"), HasSubstr("(4, 6)")));
  msg = type_error("nn.batch_matmul", {tensor_type({2, 3, 5}, f32), tensor_type({2, 4, 6}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.batch_matmul"), HasSubstr("(2, 3, 5)"), HasSubstr("(2, 4, 6)")));
}

TEST(NnDense, BatchMatmulBatchesMustAgreeOrBeOne) {
  std::string msg = type_error("nn.batch_matmul", {tensor_type({2, 3, 5}, f32), tensor_type({3, 4, 5}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.batch_matmul"), HasSubstr("batch"), HasSubstr("(3, 4, 5)")));
}

TEST(NnDense, BiasAddAxisOutOfRangeNamesTheShape) {
  std::string msg =
      type_error("nn.bias_add", {tensor_type({2, 3}, f32), tensor_type({3}, f32)}, {{"axis", AttrValue(int64_t{2})}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.bias_add"), HasSubstr("index 2"), HasSubstr("(2, 3)")));
}

TEST(NnDense, BiasOfWrongLengthNamesBothShapes) {
  std::string msg = type_error("nn.bias_add", {tensor_type({2, 3}, f32), tensor_type({2}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.bias_add"), HasSubstr("(2, 3)"), HasSubstr("(2)")));
}

TEST(NnDense, DensePackWeightOfWrongRankOrDepthIsRejected) {
  std::string msg = type_error("nn.contrib_dense_pack", {tensor_type({2, 6}, f32), tensor_type({8, 6}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.contrib_dense_pack"), HasSubstr("3-D or 4-D"), HasSubstr("(8, 6)")));
  msg = type_error("nn.contrib_dense_pack", {tensor_type({2, 6}, f32), tensor_type({2, 5, 4}, f32)});
  EXPECT_THAT(msg, AllOf(HasSubstr("inner dimensions"), HasSubstr("(2, 5, 4)")));
}

TEST(NnDense, BatchFlattenOfAScalarIsRejected) {
  EXPECT_THAT(type_error("nn.batch_flatten", {tensor_type({}, f32)}), HasSubstr("nn.batch_flatten"));
}

TEST(NnDense, AttrsHaveTheReferenceDefaults) {
  // Attrs are filled from the schema: dense's units/out_dtype are None, batch_matmul's transpose_b is True.
  EXPECT_EQ(infer_op_type("nn.batch_matmul", {tensor_type({2, 3, 5}, f32), tensor_type({2, 5, 4}, f32)},
                          {{"transpose_b", AttrValue(false)}}),
            "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(infer_op_type("nn.matmul", {tensor_type({3, 5}, f32), tensor_type({5, 4}, f32)}), "Tensor[(3, 4), float32]");
}

}  // namespace
}  // namespace weft::testing
