// nn.sparse_dense, nn.sparse_transpose, nn.sparse_add and nn.sparse_conv2d
// against gen_sparse.py's oracles (dense NumPy products of the matrices the
// CSR/BSR tensors encode; PyTorch conv2d for 3x3), hand-worked cases, and
// relation and structure errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const DataType i32 = DataType::Int(32);

TEST(NnSparse, SparseDenseMatchesDenseProductsForCsrAndBsr) {
  EXPECT_EQ(check_golden_cases("sparse.json", "nn.sparse_dense", 1e-5, 1e-5), 8);
}

TEST(NnSparse, SparseTransposeMatchesTheTransposedMatrix) {
  EXPECT_EQ(check_golden_cases("sparse.json", "nn.sparse_transpose", 0, 0), 2);
}

TEST(NnSparse, SparseAddMatchesDenseSum) { EXPECT_EQ(check_golden_cases("sparse.json", "nn.sparse_add", 0, 0), 2); }

TEST(NnSparse, SparseConv2dMatchesTorchConvIn1x1And3x3BothLayouts) {
  EXPECT_EQ(check_golden_cases("sparse.json", "nn.sparse_conv2d", 1e-5, 1e-5), 12);
}

TEST(NnSparse, HandWorkedCsrProduct) {
  // S = [[0, 2, 0], [1, 0, 3]]; D = [[1, 1, 1], [1, 2, 3]]; D S^T = [[2, 4], [4, 10]].
  Tensor d = tensor_of({1, 1, 1, 1, 2, 3}, {2, 3}, DataType::Float(64));
  Tensor data = tensor_of({2, 1, 3}, {3}, DataType::Float(64));
  Tensor ind = tensor_of({1, 0, 2}, {3}, i32), ptr = tensor_of({0, 1, 3}, {3}, i32);
  expect_close(run_op("nn.sparse_dense", {d, data, ind, ptr}).tensor(),
               {{"shape", {2, 2}}, {"dtype", "float64"}, {"data", {2, 4, 4, 10}}});
  // With duplicates: both values at (0, 0) add in sparse_add.
  Tensor dup = tensor_of({1, 2}, {2}, DataType::Float(64));
  Tensor dup_ind = tensor_of({0, 0}, {2}, i32), dup_ptr = tensor_of({0, 2, 2}, {3}, i32);
  expect_close(run_op("nn.sparse_add", {d, dup, dup_ind, dup_ptr}).tensor(),
               {{"shape", {2, 3}}, {"dtype", "float64"}, {"data", {4, 1, 1, 1, 2, 3}}});
}

TEST(NnSparse, ShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type("nn.sparse_dense",
                          {tensor_type({3, 8}), tensor_type({5, 2, 4}), tensor_type({5}, i32), tensor_type({4}, i32)}),
            "Tensor[(3, 6), float32]");
  EXPECT_EQ(infer_op_type("nn.sparse_dense",
                          {tensor_type({3, 8}), tensor_type({7}), tensor_type({7}, i32), tensor_type({6}, i32)},
                          {{"sparse_lhs", true}}),
            "Tensor[(5, 3), float32]");
  EXPECT_EQ(infer_op_type("nn.sparse_transpose", {tensor_type({7}), tensor_type({7}, i32), tensor_type({5}, i32)}),
            "(Tensor[(7), float32], Tensor[(7), int32], Tensor[(5), int32])");
  EXPECT_EQ(infer_op_type("nn.sparse_conv2d",
                          {tensor_type({1, 4, 4, 8}), tensor_type({3, 4, 2}), tensor_type({3}, i32),
                           tensor_type({3}, i32)}),
            "Tensor[(1, 4, 4, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.sparse_conv2d",
                          {tensor_type({1, 8, 4, 4}), tensor_type({3, 2}), tensor_type({3}, i32),
                           tensor_type({5}, i32)},
                          {{"layout", "NCHW"}}),
            "Tensor[(1, 8, 4, 4), float32]");
}

TEST(NnSparse, RelationErrorsNameTheShapes) {
  auto type_error = [](const std::string& op, const std::vector<Type>& types,
                       std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
    return error_of([&] { infer_op_type(op, types, attrs); });
  };
  EXPECT_THAT(type_error("nn.sparse_dense",
                         {tensor_type({3, 8}), tensor_type({5, 2}), tensor_type({5}, i32), tensor_type({4}, i32)}),
              AllOf(HasSubstr("nn.sparse_dense"), HasSubstr("sparse_data of shape (5, 2)"), HasSubstr("1 or 3")));
  EXPECT_THAT(type_error("nn.sparse_dense",
                         {tensor_type({3, 8}), tensor_type({5}), tensor_type({4}, i32), tensor_type({4}, i32)}),
              AllOf(HasSubstr("sparse_indices of shape (4,)"), HasSubstr("(5,)")));
  EXPECT_THAT(type_error("nn.sparse_dense",
                         {tensor_type({3, 8}), tensor_type({5}), tensor_type({5}), tensor_type({4}, i32)}),
              HasSubstr("sparse_indices must be a vector of integers"));
  EXPECT_THAT(type_error("nn.sparse_dense", {tensor_type({2, 3, 8}), tensor_type({5}), tensor_type({5}, i32),
                                             tensor_type({4}, i32)}),
              HasSubstr("dense_data of shape (2, 3, 8) must be a matrix"));
  EXPECT_THAT(type_error("nn.sparse_add", {tensor_type({3, 8}), tensor_type({5}), tensor_type({5}, i32),
                                           tensor_type({5}, i32)}),
              AllOf(HasSubstr("nn.sparse_add"), HasSubstr("4 rows"), HasSubstr("(3, 8)")));
  EXPECT_THAT(type_error("nn.sparse_add", {tensor_type({3, 8}), tensor_type({5}, DataType::Float(64)),
                                           tensor_type({5}, i32), tensor_type({4}, i32)}),
              HasSubstr("datatype should match"));
  EXPECT_THAT(type_error("nn.sparse_conv2d", {tensor_type({1, 4, 4, 8}), tensor_type({3, 4}), tensor_type({3}, i32),
                                              tensor_type({3}, i32)},
                         {{"kernel_size", 3}}),
              AllOf(HasSubstr("nn.sparse_conv2d"), HasSubstr("(3, 4)"), HasSubstr("expected 3")));
  EXPECT_THAT(type_error("nn.sparse_conv2d", {tensor_type({1, 4, 4, 8}), tensor_type({3, 4, 1}),
                                              tensor_type({3}, i32), tensor_type({3}, i32)},
                         {{"kernel_size", 5}}),
              HasSubstr("kernel_size must be (1, 1) or (3, 3)"));
  EXPECT_THAT(type_error("nn.sparse_conv2d", {tensor_type({1, 8, 4, 4}), tensor_type({3, 4, 2}),
                                              tensor_type({3}, i32), tensor_type({3}, i32)},
                         {{"kernel_size", 3}, {"layout", "NCHW"}}),
              HasSubstr("blocks of one column"));
}

TEST(NnSparse, BadStructureIsAnErrorNotACrash) {
  Tensor d = tensor_of({1, 1, 1, 1, 2, 3}, {2, 3}, DataType::Float(32));
  Tensor data = tensor_of({2, 1, 3}, {3}, DataType::Float(32));
  Tensor ptr = tensor_of({0, 1, 3}, {3}, i32);
  EXPECT_THAT(error_of([&] { run_op("nn.sparse_dense", {d, data, tensor_of({1, 0, 3}, {3}, i32), ptr}); }),
              AllOf(HasSubstr("nn.sparse_dense"), HasSubstr("sparse_indices[2] = 3 is out of range")));
  EXPECT_THAT(error_of([&] {
                run_op("nn.sparse_dense", {d, data, tensor_of({1, 0, 2}, {3}, i32), tensor_of({0, 2, 1}, {3}, i32)});
              }),
              HasSubstr("sparse_indptr must not decrease"));
  EXPECT_THAT(error_of([&] {
                run_op("nn.sparse_dense", {d, data, tensor_of({1, 0, 2}, {3}, i32), tensor_of({0, 1, 4}, {3}, i32)});
              }),
              HasSubstr("past the 3 stored blocks"));
  EXPECT_THAT(error_of([&] {
                run_op("nn.sparse_transpose", {data, tensor_of({1, 0, 2}, {3}, i32), tensor_of({0, 1, 3}, {3}, i32)});
              }),
              HasSubstr("out of range for a square 2 x 2 matrix"));
}

}  // namespace
}  // namespace weft::testing
