// nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d against
// gen_bitserial.py's oracles (TOPI's packing and popcount sums written out in
// NumPy), a hand-worked case, and relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const DataType u8 = DataType::UInt(8);

std::string type_error(const std::string& op, const std::vector<Type>& types,
                       std::vector<std::pair<std::string, AttrValue>> attrs) {
  try {
    infer_op_type(op, types, std::move(attrs));
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << op << ": expected a type error";
  return "";
}

TEST(NnBitserial, BitpackMatchesNumpyPackbits) {
  EXPECT_EQ(check_golden_cases("bitserial.json", "nn.bitpack", 0, 0), 4);
}

TEST(NnBitserial, DenseMatchesPopcountSums) {
  EXPECT_EQ(check_golden_cases("bitserial.json", "nn.bitserial_dense", 0, 0), 4);
}

TEST(NnBitserial, Conv2dMatchesPopcountSumsInBothLayouts) {
  EXPECT_EQ(check_golden_cases("bitserial.json", "nn.bitserial_conv2d", 0, 0), 4);
}

TEST(NnBitserial, HandWorkedUnipolarDense) {
  // 8 inputs, 1 bit each: x = 1,1,1,1,0,0,0,0; w = 1,0,1,0,1,0,1,0.
  // unipolar: x . (2w - 1) = 1 - 1 + 1 - 1 = 0; plain: x . w = 2.
  nlohmann::json x = {{"shape", {1, 8}}, {"dtype", "uint8"}, {"data", {1, 1, 1, 1, 0, 0, 0, 0}}};
  nlohmann::json w = {{"shape", {1, 8}}, {"dtype", "uint8"}, {"data", {1, 0, 1, 0, 1, 0, 1, 0}}};
  std::vector<Tensor> in = {tensor_from_json(x), tensor_from_json(w)};
  expect_close(run_op("nn.bitserial_dense", in, {{"units", 1}, {"pack_dtype", "uint8"}}).tensor(),
               {{"shape", {1, 1}}, {"dtype", "int16"}, {"data", {0}}});
  expect_close(run_op("nn.bitserial_dense", in, {{"units", 1}, {"pack_dtype", "uint8"}, {"unipolar", false}}).tensor(),
               {{"shape", {1, 1}}, {"dtype", "int16"}, {"data", {2}}});
  // bitpack of the same 8 bits into one uint8 word: 0b11110000.
  expect_close(run_op("nn.bitpack", {in[0]}, {{"pack_type", "uint8"}}).tensor(),
               {{"shape", {1, 1, 1}}, {"dtype", "uint8"}, {"data", {240}}});
}

TEST(NnBitserial, ShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type("nn.bitpack", {tensor_type({2, 64, 5}, u8)}, {{"bits", 2}}),
            "Tensor[(2, 2, 2, 5), uint32]");
  EXPECT_EQ(infer_op_type("nn.bitpack", {tensor_type({2, 64}, u8)},
                          {{"bits", 3}, {"bit_axis", 0}, {"pack_type", "uint16"}}),
            "Tensor[(3, 2, 4), uint16]");
  EXPECT_EQ(infer_op_type("nn.bitserial_conv2d", {tensor_type({1, 32, 8, 8}, u8), tensor_type({4, 32, 3, 3}, u8)},
                          {{"channels", 4}, {"padding", 1}, {"strides", 2}}),
            "Tensor[(1, 4, 4, 4), int16]");
  EXPECT_EQ(infer_op_type("nn.bitserial_dense", {tensor_type({3, 64}, u8), tensor_type({5, 64}, u8)},
                          {{"units", 5}, {"out_dtype", "int32"}}),
            "Tensor[(3, 5), int32]");
}

TEST(NnBitserial, RelationErrorsNameTheShapes) {
  EXPECT_THAT(type_error("nn.bitpack", {tensor_type({2, 12}, u8)}, {{"pack_type", "uint8"}}),
              AllOf(HasSubstr("nn.bitpack"), HasSubstr("(2, 12)"), HasSubstr("not a multiple of the 8 bits")));
  EXPECT_THAT(type_error("nn.bitpack", {tensor_type({2, 32})}, {}), HasSubstr("integer dtype"));
  EXPECT_THAT(type_error("nn.bitpack", {tensor_type({2, 32}, u8)}, {{"bits", 9}}), HasSubstr("[1, 8]"));
  EXPECT_THAT(type_error("nn.bitpack", {tensor_type({2, 32}, u8)}, {{"pack_type", "int32"}}),
              HasSubstr("pack_type must be uint8, uint16, uint32 or uint64"));
  EXPECT_THAT(type_error("nn.bitserial_dense", {tensor_type({3, 64}, u8), tensor_type({5, 32}, u8)}, {{"units", 5}}),
              AllOf(HasSubstr("nn.bitserial_dense"), HasSubstr("(5, 32)"), HasSubstr("(5, 64)")));
  EXPECT_THAT(type_error("nn.bitserial_dense", {tensor_type({3, 48}, u8), tensor_type({5, 48}, u8)}, {{"units", 5}}),
              HasSubstr("in_dim 48"));
  EXPECT_THAT(type_error("nn.bitserial_dense", {tensor_type({3, 64}, u8), tensor_type({5, 64}, u8)}, {}),
              HasSubstr("units must be set"));
  EXPECT_THAT(type_error("nn.bitserial_conv2d", {tensor_type({1, 32, 8, 8}, u8), tensor_type({4, 16, 3, 3}, u8)},
                         {{"channels", 4}}),
              AllOf(HasSubstr("nn.bitserial_conv2d"), HasSubstr("(4, 16, 3, 3)"), HasSubstr("(4, 32, 3, 3)")));
  EXPECT_THAT(type_error("nn.bitserial_conv2d", {tensor_type({1, 24, 8, 8}, u8), tensor_type({4, 24, 3, 3}, u8)},
                         {{"channels", 4}}),
              HasSubstr("24 input channels"));
  EXPECT_THAT(type_error("nn.bitserial_conv2d", {tensor_type({1, 8, 8, 32}, u8), tensor_type({3, 3, 32, 4}, u8)},
                         {{"channels", 4}, {"data_layout", "NHWC"}}),
              HasSubstr("NHWC with HWIO"));
}

}  // namespace
}  // namespace weft::testing
