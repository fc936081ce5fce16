// rand and random_inputs draw what NumPy draws (golden bits from
// golden/gen_random_data.py), rounded once into the dtype.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <weft/sdk/float_convert.hpp>

#include "weft/error.h"
#include "weft/testing/random_data.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

nlohmann::json golden() {
  std::ifstream in(WEFT_TESTING_GOLDEN_DIR "/random_data.json");
  return nlohmann::json::parse(in);
}

/// Element i's bits, widened to 64.
uint64_t element_bits(const Tensor& t, int64_t i) {
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(t.data()) + i * t.dtype().bytes(), t.dtype().bytes());
  return bits;
}

TEST(Rand, MatchesNumpyUniformDrawsBitForBit) {
  const nlohmann::json cases = golden().at("rand");
  for (const auto& c : cases) {
    const DataType dtype = DataType::parse(c.at("dtype").get<std::string>());
    const auto shape = c.at("shape").get<std::vector<int64_t>>();
    sdk::NumpyRandomState state(c.at("seed").get<uint32_t>());
    const Tensor t = rand(dtype, shape, state, c.at("low").get<double>(), c.at("high").get<double>());
    ASSERT_EQ(t.dtype(), dtype);
    ASSERT_EQ(t.shape(), shape);
    const auto bits = c.at("bits").get<std::vector<uint64_t>>();
    for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(element_bits(t, i), bits[i]) << dtype.str() << " element " << i;
  }
}

TEST(Rand, SeedOverloadIsNumpySeedThenUniform) {
  const Tensor a = rand(DataType::Float(32), {2, 3}, 0);
  const auto bits = golden().at("rand").at(0).at("bits").get<std::vector<uint64_t>>();
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(element_bits(a, i), bits[i]);
}

TEST(Rand, RejectsNonFloatDtypesAndNegativeDims) {
  EXPECT_THAT([] { rand(DataType::Int(32), {2}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("rand draws floating-point tensors, not int32")));
  EXPECT_THAT([] { rand(DataType::Float(32), {2, -1}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("negative dimension")));
}

TEST(RandomInputs, DrawsEveryParameterFromOneStreamInOrder) {
  const auto g = golden().at("random_inputs");
  const Var data = var("data", tensor_type({2, 3}));
  const Var w = var("w", tensor_type({3}));
  const Function fn = function({data, w}, call("add", {data, w}));
  const auto inputs = random_inputs(fn, g.at("seed").get<uint32_t>());
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].first, "data");
  EXPECT_EQ(inputs[1].first, "w");
  EXPECT_EQ(inputs[1].second.shape(), (std::vector<int64_t>{3}));
  const auto bits = g.at("bits").get<std::vector<uint64_t>>();
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(element_bits(inputs[0].second, i), bits[i]);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(element_bits(inputs[1].second, i), bits[6 + i]);
}

TEST(RandomInputs, InfersTypesOfUnannotatedParameters) {
  const Var x = var("x", tensor_type({2, 4}, DataType::Float(64)));
  const Var b = var("b");  // typed by its use as x's bias
  const auto inputs = random_inputs(function({x, b}, call("nn.bias_add", {x, b})));
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[1].second.dtype(), DataType::Float(64));
  EXPECT_EQ(inputs[1].second.shape(), (std::vector<int64_t>{4}));
}

TEST(RandomInputs, ParameterThatIsNotAFloatTensorIsAnErrorNamingIt) {
  const Var idx = var("indices", tensor_type({3}, DataType::Int(32)));
  EXPECT_THAT([&] { random_inputs(function({idx}, idx)); },
              ::testing::ThrowsMessage<Error>(HasSubstr("parameter 'indices' of type Tensor[(3), int32]")));
}

TEST(FloatConvert, Float16RoundsOnceFromTheDoubleAsNumpy) {
  const auto g = golden().at("float16");
  const auto values = g.at("values").get<std::vector<double>>();
  const auto bits = g.at("bits").get<std::vector<uint16_t>>();
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(sdk::double_to_float16(values[i]), bits[i]) << values[i];
}

TEST(FloatConvert, Bfloat16RoundsToNearestEven) {
  // Hand-worked: bfloat16 keeps 7 mantissa bits, so 1 + 2^-8 is a tie.
  EXPECT_EQ(sdk::double_to_bfloat16(1.0), 0x3f80);
  EXPECT_EQ(sdk::double_to_bfloat16(1.0 + 0x1p-8), 0x3f80);           // tie, down to even
  EXPECT_EQ(sdk::double_to_bfloat16(1.0 + 3 * 0x1p-8), 0x3f82);       // tie, up to even
  EXPECT_EQ(sdk::double_to_bfloat16(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);  // just above the tie
  EXPECT_EQ(sdk::double_to_bfloat16(-2.0), 0xc000);
  EXPECT_EQ(sdk::double_to_bfloat16(1e39), 0x7f80);  // past bfloat16's max: infinity
}

}  // namespace
}  // namespace weft::testing
