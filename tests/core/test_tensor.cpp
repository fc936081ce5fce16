// Tensors: aligned storage, conversions, DLPack views.
#include <gtest/gtest.h>

#include <cstring>

#include <limits>

#include "weft/error.h"
#include "weft/limits.h"
#include "weft/tensor.h"

namespace weft {
namespace {

// The sanitized tree's suites say so (cmake/WeftTesting.cmake): their own
// code is not instrumented, but ASan's allocator serves the whole process.
#ifdef WEFT_TEST_UNDER_SANITIZERS
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % Tensor::kAlignment == 0; }

TEST(Tensor, StorageIs64ByteAlignedForEveryShape) {
  for (auto shape : std::vector<std::vector<int64_t>>{{}, {0}, {1}, {3}, {7, 5}, {1, 3, 224, 224}}) {
    Tensor t = Tensor::empty(shape, DataType::Float(32));
    EXPECT_TRUE(t.defined());
    EXPECT_TRUE(aligned(t.data())) << describe(t);
  }
}

TEST(Tensor, ShapeNumelAndBytes) {
  Tensor t = Tensor::zeros({2, 3, 4}, DataType::Float(16));
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 48u);
  EXPECT_EQ(t.device(), (Device{kDLCPU, 0}));
  Tensor s = Tensor::empty({}, DataType::Int(64));
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(Tensor::empty({4, 0}, DataType::Float(32)).numel(), 0);
  EXPECT_FALSE(Tensor().defined());
}

TEST(Tensor, ZerosAreZero) {
  Tensor t = Tensor::zeros({5}, DataType::Int(32));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(t.element_as_double(i), 0.0);
}

TEST(Tensor, NegativeDimensionIsAnError) {
  EXPECT_THROW(Tensor::empty({2, -1}, DataType::Float(32)), Error);
}

TEST(Tensor, AllocationsPastInt64OrTheSizeLimitAreErrorsNamingTheShape) {
  // (2^32, 2^32, 4) bytes wrap to 0: it used to allocate a 64-byte block.
  try {
    Tensor::empty({int64_t{1} << 32, int64_t{1} << 32, 4}, DataType::Float(32));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Tensor[(4294967296, 4294967296, 4), float32]"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Tensor::zeros({int64_t{1} << 40}, DataType::Float(32)), Error);  // 4 TiB > 16 GiB
  EXPECT_EQ(Tensor::empty({int64_t{1} << 40, int64_t{1} << 20, 0}, DataType::Float(32)).numel(), 0);
  // Empty, but its other extents' bytes pass int64 (NumPy refuses it too).
  EXPECT_THROW(Tensor::empty({int64_t{1} << 40, int64_t{1} << 40, 0}, DataType::Float(32)), Error);
}

TEST(Tensor, AFailedAllocationNamesTheTensorAndItsSize) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "ASan aborts on a request this large instead of failing it";
  const int64_t saved = max_tensor_bytes();
  set_max_tensor_bytes(std::numeric_limits<int64_t>::max());
  try {
    Tensor::empty({int64_t{1} << 56}, DataType::UInt(8));  // 64 PiB: no machine has it
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot allocate 72057594037927936 bytes for Tensor[(72057594037927936), uint8]"),
              std::string::npos)
        << e.what();
  }
  set_max_tensor_bytes(saved);
}

TEST(Tensor, FromBytesCopiesAndChecksTheSize) {
  float values[] = {1.5f, -2.0f, 3.25f, 0.0f};
  Tensor t = Tensor::from_bytes({2, 2}, DataType::Float(32), std::as_bytes(std::span(values)));
  EXPECT_NE(t.data(), static_cast<void*>(values));
  EXPECT_EQ(t.element_as_double(0), 1.5);
  EXPECT_EQ(t.element_as_double(2), 3.25);
  try {
    Tensor::from_bytes({3}, DataType::Float(32), std::as_bytes(std::span(values)));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.expected_form(), "12 bytes");
  }
}

TEST(Tensor, ScalarsConvertToTheirDtype) {
  EXPECT_EQ(Tensor::scalar(2.75, DataType::Float(32)).element_as_double(0), 2.75);
  EXPECT_EQ(Tensor::scalar(-7, DataType::Int(64)).element_as_double(0), -7);
  EXPECT_EQ(Tensor::scalar(3.9, DataType::Int(32)).element_as_double(0), 3);  // C++ truncation
  EXPECT_EQ(Tensor::scalar(2, DataType::Bool()).element_as_double(0), 1);
  // 1.5 is exact in half precision: 0x3E00.
  Tensor h = Tensor::scalar(1.5, DataType::Float(16));
  EXPECT_EQ(*h.data_as<uint16_t>(), 0x3E00);
  EXPECT_EQ(h.element_as_double(0), 1.5);
  EXPECT_EQ(*Tensor::scalar(65504, DataType::Float(16)).data_as<uint16_t>(), 0x7BFF);  // largest half
  EXPECT_EQ(*Tensor::scalar(1e6, DataType::Float(16)).data_as<uint16_t>(), 0x7C00);    // overflows to inf
  // bfloat16 keeps float32's top 16 bits: 1.0f is 0x3F80.
  Tensor b = Tensor::scalar(1.0, DataType::BFloat(16));
  EXPECT_EQ(*b.data_as<uint16_t>(), 0x3F80);
  EXPECT_EQ(b.element_as_double(0), 1.0);
}

TEST(Tensor, CopiesShareStorageAndCloneDoesNot) {
  Tensor a = Tensor::zeros({4}, DataType::Float(32));
  Tensor b = a;
  b.data_as<float>()[1] = 5.0f;
  EXPECT_EQ(a.element_as_double(1), 5.0);
  Tensor c = a.clone();
  EXPECT_NE(c.data(), a.data());
  EXPECT_TRUE(aligned(c.data()));
  EXPECT_TRUE(c.bitwise_equal(a));
  c.data_as<float>()[1] = 6.0f;
  EXPECT_FALSE(c.bitwise_equal(a));
  EXPECT_EQ(a.element_as_double(1), 5.0);
}

TEST(Tensor, BitwiseEqualComparesDtypeShapeAndBytes) {
  Tensor a = Tensor::zeros({2, 2}, DataType::Float(32));
  EXPECT_TRUE(a.bitwise_equal(Tensor::zeros({2, 2}, DataType::Float(32))));
  EXPECT_FALSE(a.bitwise_equal(Tensor::zeros({4}, DataType::Float(32))));
  EXPECT_FALSE(a.bitwise_equal(Tensor::zeros({2, 2}, DataType::Int(32))));
}

TEST(Tensor, DlpackViewDescribesTheTensor) {
  Tensor t = Tensor::zeros({2, 3}, DataType::Int(8));
  DLTensor v = t.dlpack_view();
  EXPECT_EQ(v.data, t.data());
  EXPECT_EQ(v.ndim, 2);
  EXPECT_EQ(v.shape[0], 2);
  EXPECT_EQ(v.shape[1], 3);
  EXPECT_EQ(v.strides, nullptr);
  EXPECT_EQ(v.byte_offset, 0u);
  EXPECT_EQ(v.dtype.code, kDLInt);
  EXPECT_EQ(v.dtype.bits, 8);
  EXPECT_EQ(v.dtype.lanes, 1);
  EXPECT_EQ(v.device.device_type, kDLCPU);
}

TEST(Tensor, DlpackViewOutlivesTheTensorItCameFromWhileACopyLives) {
  DLTensor v;
  Tensor copy;
  {
    Tensor t = Tensor::zeros({7, 9}, DataType::Float(32));
    v = t.dlpack_view();
    copy = t;
  }
  EXPECT_EQ(v.shape[0], 7);
  EXPECT_EQ(v.shape[1], 9);
}

TEST(Tensor, FromDlpackRoundTripSharesMemoryAndKeepsTheOwnerAlive) {
  Tensor original = Tensor::zeros({2, 2}, DataType::Float(32));
  original.data_as<float>()[3] = 4.5f;
  bool released = false;
  // The owner holds the original tensor and records when it is let go.
  auto owner = std::shared_ptr<void>(new Tensor(original), [&](void* p) {
    delete static_cast<Tensor*>(p);
    released = true;
  });
  Tensor imported = Tensor::from_dlpack(original.dlpack_view(), std::move(owner));
  EXPECT_EQ(imported.data(), original.data());
  EXPECT_EQ(imported.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(imported.dtype(), DataType::Float(32));
  EXPECT_EQ(imported.element_as_double(3), 4.5);
  Tensor second_copy = imported;
  imported = Tensor();
  EXPECT_FALSE(released);
  second_copy = Tensor();
  EXPECT_TRUE(released);
}

TEST(Tensor, OnlyMemoryWeftAllocatedIsItsOwn) {
  Tensor own = Tensor::zeros({2}, DataType::Float(32));
  EXPECT_TRUE(own.owns_memory());
  EXPECT_TRUE(own.clone().owns_memory());
  EXPECT_TRUE(Tensor::scalar(1, DataType::Int(32)).owns_memory());
  EXPECT_FALSE(Tensor::from_dlpack(own.dlpack_view(), std::make_shared<Tensor>(own)).owns_memory());
  EXPECT_FALSE(Tensor::from_dlpack(own.dlpack_view(), nullptr).owns_memory());
  EXPECT_FALSE(Tensor().owns_memory());
}

TEST(Tensor, AReshapedViewSharesTheBytesAndOutlivesTheOriginal) {
  Tensor view;
  const void* bytes = nullptr;
  {
    Tensor original = Tensor::zeros({2, 3}, DataType::Float(32));
    bytes = original.data();
    view = original.reshaped({3, 1, 2});
    original.data_as<float>()[5] = 7;
    EXPECT_TRUE(view.owns_memory());
  }
  // The original handle is gone; the view keeps its bytes, under its own shape.
  EXPECT_EQ(view.data(), bytes);
  EXPECT_EQ(view.shape(), (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(view.data_as<float>()[5], 7);
  DLTensor v = view.dlpack_view();
  EXPECT_EQ(std::vector<int64_t>(v.shape, v.shape + v.ndim), (std::vector<int64_t>{3, 1, 2}));
  // A view of memory lent through DLPack is no more weft's own than the memory.
  Tensor lent = Tensor::zeros({4}, DataType::Float(32));
  EXPECT_FALSE(Tensor::from_dlpack(lent.dlpack_view(), nullptr).reshaped({2, 2}).owns_memory());
}

TEST(Tensor, AViewOfAnotherNumberOfElementsIsAnError) {
  Tensor t = Tensor::zeros({2, 3}, DataType::Float(32));
  auto error_of = [&](std::vector<int64_t> shape) -> std::string {
    try {
      t.reshaped(std::move(shape));
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of({4, 2}), "cannot view Tensor[(2, 3), float32] as shape (4, 2); expected a shape of 6 elements");
  // A shape whose size overflows is refused before it is compared.
  EXPECT_NE(error_of({int64_t{1} << 62, 8}).find("(4611686018427387904, 8)"), std::string::npos);
}

TEST(Tensor, FromDlpackHonoursByteOffsetAndCompactStrides) {
  alignas(64) float buffer[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t shape[] = {2, 3};
  int64_t strides[] = {3, 1};
  DLTensor v{};
  v.data = buffer;
  v.device = {kDLCPU, 0};
  v.ndim = 2;
  v.dtype = {kDLFloat, 32, 1};
  v.shape = shape;
  v.strides = strides;
  v.byte_offset = 2 * sizeof(float);
  Tensor t = Tensor::from_dlpack(v, nullptr);
  EXPECT_EQ(t.element_as_double(0), 2);
  EXPECT_EQ(t.element_as_double(5), 7);
}

TEST(Tensor, FromDlpackRejectsNonCompactStrides) {
  float buffer[12] = {};
  int64_t shape[] = {2, 3};
  int64_t strides[] = {1, 2};  // column-major
  DLTensor v{};
  v.data = buffer;
  v.device = {kDLCPU, 0};
  v.ndim = 2;
  v.dtype = {kDLFloat, 32, 1};
  v.shape = shape;
  v.strides = strides;
  EXPECT_THROW(Tensor::from_dlpack(v, nullptr), Error);
}

TEST(Tensor, DescribeReadsLikeARelayType) {
  EXPECT_EQ(describe(Tensor::empty({1, 3}, DataType::Float(32))), "Tensor[(1, 3), float32]");
}

}  // namespace
}  // namespace weft
