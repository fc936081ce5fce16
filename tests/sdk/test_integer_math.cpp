// sdk/integer_math.hpp against hand-worked values: checked arithmetic refuses
// exactly the results that do not fit int64; wrapping arithmetic gives the
// two's complement results NumPy's integer arrays do; saturate_cast clamps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <weft/sdk/integer_math.hpp>

namespace {

using namespace weft::sdk;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();

TEST(IntegerMath, CheckedArithmeticRefusesOnlyWhatDoesNotFit) {
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_FALSE(checked_add(kMax, 1));
  EXPECT_EQ(checked_sub(kMin + 1, 1), kMin);
  EXPECT_FALSE(checked_sub(kMin, 1));
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_FALSE(checked_mul(int64_t{1} << 32, int64_t{1} << 31));
  const int64_t huge[] = {int64_t{1} << 32, int64_t{1} << 32, 4};
  EXPECT_FALSE(checked_product(huge, 3));  // 2^66: the wrap to 0 issue 11 found
  EXPECT_EQ(checked_product(huge, 2), std::nullopt);
  const int64_t fits[] = {int64_t{1} << 20, int64_t{1} << 20, 4};
  EXPECT_EQ(checked_product(fits, 3), int64_t{1} << 42);
  EXPECT_EQ(checked_product(nullptr, 0), 1);
}

TEST(IntegerMath, CheckedIntThrowsOnOverflowAndDivisionByZero) {
  EXPECT_EQ(((CheckedInt(7) - 1) * 2 + 1).value(), 13);
  EXPECT_EQ((CheckedInt(-7) / 2).value(), -3);  // truncating, as C++
  EXPECT_THROW(CheckedInt(kMax) + 1, std::overflow_error);
  EXPECT_THROW(CheckedInt(int64_t{1} << 62) * 2, std::overflow_error);
  EXPECT_THROW(CheckedInt(kMin) / -1, std::overflow_error);
  EXPECT_THROW(CheckedInt(1) / 0, std::overflow_error);
  EXPECT_TRUE(CheckedInt(3) < CheckedInt(4));
}

TEST(IntegerMath, CheckedFieldNamesTheFieldInAnOverflowAndPassesValuesThrough) {
  EXPECT_EQ(checked_field("padding", [] { return (CheckedInt(4) + 2).value(); }), 6);
  try {
    checked_field("padding", [] { return (CheckedInt(kMax) + 1).value(); });
    ADD_FAILURE() << "expected an overflow";
  } catch (const std::overflow_error& e) {
    EXPECT_STREQ(e.what(), "padding: integer overflow: 9223372036854775807 + 1 does not fit in int64");
  }
}

TEST(IntegerMath, WrappingArithmeticIsTwosComplement) {
  EXPECT_EQ(wrapping_add<int32_t>(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(wrapping_sub<int64_t>(kMin, 1), kMax);
  EXPECT_EQ(wrapping_mul<int32_t>(65536, 65536), 0);
  EXPECT_EQ(wrapping_mul<int8_t>(int8_t{16}, int8_t{16}), 0);
  EXPECT_EQ(wrapping_mul<uint16_t>(uint16_t{65535}, uint16_t{65535}), 1);  // promotes to int in plain C++
  EXPECT_EQ(wrapping_neg<int32_t>(INT32_MIN), INT32_MIN);
  EXPECT_EQ(wrapping_div<int64_t>(kMin, -1), kMin);
  EXPECT_EQ(wrapping_rem<int64_t>(kMin, -1), 0);
  EXPECT_EQ(wrapping_div<int32_t>(-7, 2), -3);
  EXPECT_EQ(wrapping_rem<int32_t>(-7, 2), -1);
  EXPECT_EQ(wrapping_add(1.5, 2.0), 3.5);  // non-integers: the plain operation
}

TEST(IntegerMath, SaturateCastClampsAndTruncates) {
  EXPECT_EQ(saturate_cast<int32_t>(3e9), INT32_MAX);
  EXPECT_EQ(saturate_cast<int32_t>(-3e9), INT32_MIN);
  EXPECT_EQ(saturate_cast<int32_t>(2147483647.9), INT32_MAX);
  EXPECT_EQ(saturate_cast<int32_t>(-2.7), -2);
  EXPECT_EQ(saturate_cast<int64_t>(9.3e18), kMax);
  EXPECT_EQ(saturate_cast<int64_t>(-9.3e18), kMin);
  EXPECT_EQ(saturate_cast<uint8_t>(-1.0), 0);
  EXPECT_EQ(saturate_cast<uint8_t>(255.9f), 255);
  EXPECT_EQ(saturate_cast<int8_t>(std::nan("")), 0);
}

}  // namespace
