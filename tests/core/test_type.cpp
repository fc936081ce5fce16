// Relay types: equality, hashing, completeness and text.
#include <gtest/gtest.h>

#include <gmock/gmock.h>

#include "weft/error.h"
#include "weft/limits.h"
#include "weft/type.h"

namespace weft {
namespace {

TEST(Type, TensorTypesCompareByShapeAndDtype) {
  EXPECT_TRUE(type_equal(tensor_type({1, 3}), tensor_type({1, 3}, DataType::Float(32))));
  EXPECT_FALSE(type_equal(tensor_type({1, 3}), tensor_type({3, 1})));
  EXPECT_FALSE(type_equal(tensor_type({1, 3}), tensor_type({1, 3}, DataType::Float(16))));
  EXPECT_FALSE(type_equal(tensor_type({1, 3}), tensor_type({1, kAnyDim})));
  EXPECT_EQ(type_hash(tensor_type({1, 3})), type_hash(tensor_type({1, 3})));
}

TEST(Type, TupleAndFuncTypesCompareStructurally) {
  Type a = tuple_type({tensor_type({2}), scalar_type(DataType::Int(64))});
  Type b = tuple_type({tensor_type({2}), scalar_type(DataType::Int(64))});
  EXPECT_TRUE(type_equal(a, b));
  EXPECT_EQ(type_hash(a), type_hash(b));
  EXPECT_FALSE(type_equal(a, tuple_type({tensor_type({2})})));
  Type f = func_type({tensor_type({2})}, tensor_type({2}));
  EXPECT_TRUE(type_equal(f, func_type({tensor_type({2})}, tensor_type({2}))));
  EXPECT_FALSE(type_equal(f, func_type({tensor_type({2})}, tensor_type({3}))));
  EXPECT_FALSE(type_equal(f, a));
}

TEST(Type, IncompleteTypesAreEqualOnlyToThemselves) {
  Type hole = incomplete_type();
  EXPECT_TRUE(type_equal(hole, hole));
  EXPECT_FALSE(type_equal(hole, incomplete_type()));
  EXPECT_FALSE(is_complete(hole));
  EXPECT_FALSE(is_complete(tuple_type({tensor_type({1}), hole})));
  EXPECT_TRUE(is_complete(func_type({tensor_type({1})}, tuple_type({}))));
}

TEST(Type, NullTypesEqualOnlyNull) {
  EXPECT_TRUE(type_equal(nullptr, nullptr));
  EXPECT_FALSE(type_equal(nullptr, tensor_type({1})));
}

TEST(Type, StaticShapesAndElementCounts) {
  auto t = tensor_type({2, 3, 4});
  EXPECT_TRUE(t->is_static());
  EXPECT_EQ(t->numel(), 24);
  auto d = tensor_type({2, kAnyDim});
  EXPECT_FALSE(d->is_static());
  EXPECT_EQ(d->numel(), kAnyDim);
  EXPECT_EQ(scalar_type(DataType::Float(32))->numel(), 1);
}

TEST(Type, PrintsAsRelayText) {
  EXPECT_EQ(type_to_text(tensor_type({1, 3, kAnyDim})), "Tensor[(1, 3, ?), float32]");
  EXPECT_EQ(type_to_text(tensor_type({10}, DataType::Int(64))), "Tensor[(10), int64]");
  EXPECT_EQ(type_to_text(scalar_type(DataType::Float(32))), "float32");
  EXPECT_EQ(type_to_text(scalar_type(DataType::Bool())), "bool");
  EXPECT_EQ(type_to_text(tuple_type({tensor_type({1}), scalar_type(DataType::Int(32))})),
            "(Tensor[(1), float32], int32)");
  EXPECT_EQ(type_to_text(tuple_type({tensor_type({1})})), "(Tensor[(1), float32],)");
  EXPECT_EQ(type_to_text(tuple_type({})), "()");
  EXPECT_EQ(type_to_text(func_type({scalar_type(DataType::Float(32)), tensor_type({2})}, scalar_type(DataType::Bool()))),
            "fn (float32, Tensor[(2), float32]) -> bool");
  EXPECT_EQ(type_to_text(incomplete_type()), "_");
}

TEST(Type, NegativeDimensionIsAnError) {
  EXPECT_THROW(tensor_type({2, -3}), Error);
}

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Type, ElementCountsThatPassInt64AreAnErrorNamingTheShape) {
  // 2^32 * 2^32 * 4 wraps to 0 in int64: it used to read as an empty tensor.
  EXPECT_THAT([] { tensor_type({int64_t{1} << 32, int64_t{1} << 32, 4}); },
              ThrowsMessage<Error>(HasSubstr("Tensor[(4294967296, 4294967296, 4), float32] has more bytes than")));
  // Unknown extents are left out of the count; an extent of 0 makes the tensor empty.
  EXPECT_EQ(tensor_type({kAnyDim, int64_t{1} << 20})->numel(), kAnyDim);
  EXPECT_EQ(tensor_type({0, int64_t{1} << 40, int64_t{1} << 20})->numel(), 0);
}

TEST(Type, AnEmptyTensorsOtherExtentsMustStillHaveAByteCountThatFits) {
  // NumPy 1.24: np.empty((0, 2**40, 2**21), np.float32) raises "array is too
  // big" (4 * 2^61 bytes passes 2^63 - 1); (0, 2**40, 2**20) is fine. So no
  // product of a tensor's extents (a kernel's outer count) can overflow.
  EXPECT_THAT([] { tensor_type({0, int64_t{1} << 40, int64_t{1} << 21}); },
              ThrowsMessage<Error>(HasSubstr("Tensor[(0, 1099511627776, 2097152), float32] has more bytes than")));
  EXPECT_EQ(tensor_type({int64_t{1} << 40, 0, int64_t{1} << 20})->numel(), 0);
}

TEST(Type, TensorsOverTheSizeLimitAreRefusedWithTheirShapeAndSize) {
  const int64_t saved = max_tensor_bytes();
  EXPECT_EQ(saved, int64_t{16} << 30);  // the documented default
  EXPECT_THAT([] { tensor_type({int64_t{1} << 20, int64_t{1} << 20}, DataType::Float(64)); },
              ThrowsMessage<Error>(::testing::AllOf(HasSubstr("Tensor[(1048576, 1048576), float64] takes 8796093022208 bytes"),
                                                    HasSubstr("limit of 17179869184"), HasSubstr("WEFT_MAX_TENSOR_BYTES"))));
  set_max_tensor_bytes(64);
  EXPECT_NO_THROW(tensor_type({16}));  // 64 bytes: at the limit
  EXPECT_THROW(tensor_type({17}), Error);
  set_max_tensor_bytes(saved);
  EXPECT_THROW(set_max_tensor_bytes(-1), Error);
}

}  // namespace
}  // namespace weft
