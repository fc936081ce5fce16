// nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d against
// gen_bitserial.py's oracles (TOPI's packing and popcount sums written out in
// NumPy), with unpacked and pre-packed weights, a hand-worked case, and
// relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const DataType u8 = DataType::UInt(8);

TEST(NnBitserial, BitpackMatchesNumpyPackbits) {
  EXPECT_EQ(check_golden_cases("bitserial.json", "nn.bitpack", 0, 0), 4);
}

TEST(NnBitserial, DenseMatchesPopcountSumsUnpackedAndPrepacked) {
  EXPECT_EQ(check_golden_cases("bitserial.json", "nn.bitserial_dense", 0, 0), 8);
}

TEST(NnBitserial, Conv2dMatchesPopcountSumsInBothLayoutsAndPrepacked) {
  EXPECT_EQ(check_golden_cases("bitserial.json", "nn.bitserial_conv2d", 0, 0), 6);
}

TEST(NnBitserial, BitpackThenDenseEqualsDenseOnTheUnpackedWeight) {
  // One program packs the weight with nn.bitpack and feeds it to bitserial_dense.
  const nlohmann::json golden = golden_file("bitserial.json");
  int ran = 0;
  for (const auto& c : golden.at("cases")) {
    if (c.at("op") != "nn.bitserial_dense" || c.at("inputs")[1].at("shape").size() != 2) continue;
    SCOPED_TRACE(c.at("name").get<std::string>());
    Tensor x = tensor_from_json(c.at("inputs")[0]), w = tensor_from_json(c.at("inputs")[1]);
    Var xv = var("x", tensor_type(x.shape(), x.dtype())), wv = var("w", tensor_type(w.shape(), w.dtype()));
    const auto& a = c.at("attrs");
    Expr packed = call("nn.bitpack", {wv},
                       {{"bits", a.at("weight_bits").get<int64_t>()}, {"pack_axis", 1}, {"bit_axis", 1},
                        {"pack_type", a.at("pack_dtype").get<std::string>()}});
    Expr dense = call("nn.bitserial_dense", {xv, packed}, attrs_from_json(a));
    Interpreter interp(IRModule::from_function(function({xv, wv}, dense)));
    expect_close(interp.run_main({Value(x), Value(w)}).tensor(), c.at("output"), 0, 0);
    ++ran;
  }
  EXPECT_EQ(ran, 4);
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
  const DataType u32 = DataType::UInt(32);
  EXPECT_THAT(type_error("nn.bitserial_dense", {tensor_type({3, 64}, u8), tensor_type({5, 2, 2}, u8)}, {{"units", 5}}),
              AllOf(HasSubstr("pack_dtype uint32"), HasSubstr("uint8")));
  EXPECT_THAT(type_error("nn.bitserial_dense", {tensor_type({3, 64}, u8), tensor_type({5, 2, 3}, u32)}, {{"units", 5}}),
              AllOf(HasSubstr("(5, 2, 3)"), HasSubstr("unpacks to (5, 96)"), HasSubstr("(5, 64)")));
  EXPECT_THAT(type_error("nn.bitserial_conv2d", {tensor_type({1, 32, 8, 8}, u8), tensor_type({4, 1, 3, 3, 9}, u32)},
                         {{"channels", 4}}),
              HasSubstr("9 bit planes"));
  EXPECT_THAT(type_error("nn.bitserial_conv2d", {tensor_type({1, 32, 8, 8}, u8), tensor_type({4, 2, 3, 3, 1}, u32)},
                         {{"channels", 4}}),
              AllOf(HasSubstr("(4, 2, 3, 3, 1)"), HasSubstr("(4, 32, 3, 3)")));
}

}  // namespace
}  // namespace weft::testing
