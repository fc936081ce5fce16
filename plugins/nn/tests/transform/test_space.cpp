// nn.depth_to_space, nn.space_to_depth, nn.space_to_batch_nd and
// nn.batch_to_space_nd against golden values from gen_transform.py (NumPy in
// TensorFlow's order; CRD cross-checked with PyTorch's pixel_shuffle),
// hand-worked cases from the reference's docs, and their errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NnDepthToSpace, DcrAndCrdInBothLayoutsMatchNumPy) {
  EXPECT_EQ(check_golden_cases("transform.json", "nn.depth_to_space"), 8);
}

TEST(NnDepthToSpace, HandWorkedDcrAndCrd) {
  Tensor x = tensor_of({0, 1, 2, 3, 4, 5, 6, 7}, {1, 8, 1, 1});
  // DCR: channel = block offset * 2 + c; CRD: channel = c * 4 + block offset.
  EXPECT_THAT(elements(run_op("nn.depth_to_space", {x}, {{"block_size", int64_t{2}}}).tensor()),
              ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
  EXPECT_THAT(elements(run_op("nn.depth_to_space", {x}, {{"block_size", int64_t{2}}, {"mode", "CRD"}}).tensor()),
              ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

TEST(NnDepthToSpace, BlockSizeThatDoesNotDivideTheChannels) {
  EXPECT_THAT(
      type_error("nn.depth_to_space", {tensor_type({1, 6, 2, 2}, f32)}, {{"block_size", int64_t{2}}}),
      AllOf(HasSubstr("nn.depth_to_space"), HasSubstr("block_size 2 does not divide"), HasSubstr("(1, 6, 2, 2)")));
  EXPECT_THAT(
      type_error("nn.depth_to_space", {tensor_type({1, 4, 2, 2}, f32)}, {{"block_size", int64_t{2}}, {"mode", "CDR"}}),
      AllOf(HasSubstr("nn.depth_to_space"), HasSubstr("\"CDR\""), HasSubstr("DCR or CRD")));
}

TEST(NnSpaceToDepth, BothLayoutsMatchNumPy) { EXPECT_EQ(check_golden_cases("transform.json", "nn.space_to_depth"), 6); }

TEST(NnSpaceToDepth, OutputTypeAndErrors) {
  EXPECT_EQ(infer_op_type("nn.space_to_depth", {tensor_type({2, 4, 6, 3}, f32)},
                          {{"block_size", int64_t{2}}, {"layout", "NHWC"}}),
            "Tensor[(2, 2, 3, 12), float32]");
  EXPECT_THAT(
      type_error("nn.space_to_depth", {tensor_type({1, 2, 3, 4}, f32)}, {{"block_size", int64_t{2}}}),
      AllOf(HasSubstr("nn.space_to_depth"), HasSubstr("does not divide the height"), HasSubstr("(1, 2, 3, 4)")));
  EXPECT_THAT(type_error("nn.space_to_depth", {tensor_type({1, 2, 4}, f32)}, {{"block_size", int64_t{2}}}),
              AllOf(HasSubstr("nn.space_to_depth"), HasSubstr("not 4-D")));
}

TEST(NnSpaceToBatchNd, MatchesTensorFlowOrder) {
  EXPECT_EQ(check_golden_cases("transform.json", "nn.space_to_batch_nd"), 6);
}

TEST(NnSpaceToBatchNd, ReferenceDocExample) {
  // x = [[[[1], [2]], [[3], [4]]]] -> [[[[1]]], [[[2]]], [[[3]]], [[[4]]]]
  Value out = run_op("nn.space_to_batch_nd", {tensor_of({1, 2, 3, 4}, {1, 2, 2, 1})},
                     {{"block_shape", ints({2, 2})}, {"paddings", pairs({{0, 0}, {0, 0}})}});
  EXPECT_EQ(out.tensor().shape(), (std::vector<int64_t>{4, 1, 1, 1}));
  EXPECT_THAT(elements(out.tensor()), ElementsAre(1, 2, 3, 4));
}

TEST(NnSpaceToBatchNd, Errors) {
  EXPECT_THAT(type_error("nn.space_to_batch_nd", {tensor_type({1, 3, 4, 1}, f32)},
                         {{"block_shape", ints({2, 2})}, {"paddings", pairs({{0, 0}, {0, 0}})}}),
              AllOf(HasSubstr("nn.space_to_batch_nd"), HasSubstr("does not divide the padded extent 3"),
                    HasSubstr("(1, 3, 4, 1)")));
  EXPECT_THAT(type_error("nn.space_to_batch_nd", {tensor_type({1, 4, 4, 1}, f32)},
                         {{"block_shape", ints({2, 2})}, {"paddings", pairs({{0, 0}})}}),
              AllOf(HasSubstr("nn.space_to_batch_nd"), HasSubstr("paddings has 1 pairs")));
  EXPECT_THAT(type_error("nn.space_to_batch_nd", {tensor_type({1, 4, 4, 1}, f32)},
                         {{"block_shape", ints({2, 2})}, {"paddings", pairs({{0, -2}, {0, 0}})}}),
              AllOf(HasSubstr("nn.space_to_batch_nd"), HasSubstr("negative")));
}

TEST(NnBatchToSpaceNd, InvertsSpaceToBatchAndCrops) {
  EXPECT_EQ(check_golden_cases("transform.json", "nn.batch_to_space_nd"), 8);
}

TEST(NnBatchToSpaceNd, ReferenceDocExample) {
  Value out = run_op("nn.batch_to_space_nd", {tensor_of({1, 2, 3, 4}, {4, 1, 1, 1})},
                     {{"block_shape", ints({2, 2})}, {"crops", pairs({{0, 0}, {0, 0}})}});
  EXPECT_EQ(out.tensor().shape(), (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_THAT(elements(out.tensor()), ElementsAre(1, 2, 3, 4));
}

TEST(NnBatchToSpaceNd, Errors) {
  EXPECT_THAT(type_error("nn.batch_to_space_nd", {tensor_type({4, 2, 2, 1}, f32)},
                         {{"block_shape", ints({2, 2})}, {"crops", pairs({{0, -1}, {0, 0}})}}),
              AllOf(HasSubstr("nn.batch_to_space_nd"), HasSubstr("crops[0] = [0, -1] is negative")));
  EXPECT_THAT(type_error("nn.batch_to_space_nd", {tensor_type({6, 2, 2, 1}, f32)},
                         {{"block_shape", ints({2, 2})}, {"crops", pairs({{0, 0}, {0, 0}})}}),
              AllOf(HasSubstr("nn.batch_to_space_nd"), HasSubstr("(6, 2, 2, 1)"), HasSubstr("not a multiple")));
  EXPECT_THAT(type_error("nn.batch_to_space_nd", {tensor_type({4, 2, 2, 1}, f32)},
                         {{"block_shape", ints({2, 2})}, {"crops", pairs({{3, 2}, {0, 0}})}}),
              AllOf(HasSubstr("nn.batch_to_space_nd"), HasSubstr("exceed the extent 4")));
  EXPECT_THAT(type_error("nn.batch_to_space_nd", {tensor_type({4, 2}, f32)},
                         {{"block_shape", ints({2, 2})}, {"crops", pairs({{0, 0}, {0, 0}})}}),
              AllOf(HasSubstr("nn.batch_to_space_nd"), HasSubstr("block_shape (2, 2) does not fit")));
}

}  // namespace
}  // namespace weft::testing
