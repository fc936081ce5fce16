// The status each standard exception crosses the plugin boundary as
// (weft/sdk/exception_status.hpp), which the SDK's guard and the host's share.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <weft/sdk/exception_status.hpp>
#include <weft/sdk/integer_math.hpp>

namespace weft::sdk {
namespace {

using ::testing::HasSubstr;

TEST(ExceptionStatus, AllocationFailuresAreOutOfMemory) {
  ExceptionStatus s = exception_status(std::bad_alloc());
  EXPECT_EQ(s.code, WEFT_STATUS_OUT_OF_MEMORY);
  EXPECT_THAT(s.message, HasSubstr("out of memory (std::bad_alloc)"));
  // A container asked for more than it can hold: the same failure, earlier.
  EXPECT_EQ(exception_status(std::length_error("vector::reserve")).code, WEFT_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(exception_status(std::bad_array_new_length()).code, WEFT_STATUS_OUT_OF_MEMORY);
}

TEST(ExceptionStatus, CheckedArithmeticOverflowIsTheUsersInvalidArgument) {
  try {
    checked_field("pad_width", [] { return (CheckedInt(INT64_MAX) + 1).value(); });
    FAIL();
  } catch (const std::overflow_error& e) {
    ExceptionStatus s = exception_status(e);
    EXPECT_EQ(s.code, WEFT_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(s.message, "pad_width: integer overflow: 9223372036854775807 + 1 does not fit in int64");
  }
}

TEST(ExceptionStatus, OtherStandardExceptionsAreInternalWithTheirText) {
  ExceptionStatus s = exception_status(std::logic_error("an invariant broke"));
  EXPECT_EQ(s.code, WEFT_STATUS_INTERNAL);
  EXPECT_EQ(s.message, "an invariant broke");
  EXPECT_EQ(exception_status(std::out_of_range("vector::at")).code, WEFT_STATUS_INTERNAL);
  EXPECT_EQ(exception_status(std::runtime_error("x")).code, WEFT_STATUS_INTERNAL);
}

}  // namespace
}  // namespace weft::sdk
