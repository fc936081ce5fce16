// Tensor files against NumPy: files NumPy wrote (tests/golden/tensor_io,
// written by gen_tensor_io.py) read back with the values the script's formulas
// give, weft's .npy bytes equal NumPy's, and every format round-trips.
#include <gmock/gmock.h>

#include <bit>
#include <cstring>
#include <fstream>

#include "support/temp_dir.h"
#include "weft/error.h"
#include "weft/tensor_io.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path golden(const std::string& name) { return fs::path(WEFT_GOLDEN_DIR) / "tensor_io" / name; }

std::vector<std::byte> bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.numel()));
  std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

// arange(n) * scale + offset, as the script's arange().
std::vector<float> arange_f32(int n, float scale, float offset) {
  std::vector<float> out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<float>(i) * scale + offset);
  return out;
}

const std::vector<float> kF32_2x3 = arange_f32(6, 0.5f, -1.0f);
const std::vector<int64_t> kI64_3 = {INT64_MIN, 1, (int64_t{1} << 62) + 3};

TEST(TensorIoTest, ReadsEachDtypeNumPyWrites) {
  Tensor f32 = load_npy(golden("f32_2x3.npy"));
  EXPECT_EQ(f32.dtype(), DataType::Float(32));
  EXPECT_THAT(f32.shape(), ElementsAre(2, 3));
  EXPECT_EQ(values<float>(f32), kF32_2x3);

  Tensor f64 = load_npy(golden("f64_scalar.npy"));
  EXPECT_EQ(f64.dtype(), DataType::Float(64));
  EXPECT_TRUE(f64.shape().empty());
  EXPECT_EQ(values<double>(f64), std::vector<double>{-2.75});

  // float16 bit patterns: 0, -1.5, the largest finite, the smallest subnormal, inf.
  Tensor f16 = load_npy(golden("f16_5.npy"));
  EXPECT_EQ(f16.dtype(), DataType::Float(16));
  EXPECT_THAT(values<uint16_t>(f16), ElementsAre(0x0000, 0xBE00, 0x7BFF, 0x0001, 0x7C00));
  EXPECT_EQ(f16.element_as_double(2), 65504.0);

  EXPECT_THAT(values<int8_t>(load_npy(golden("i8_4.npy"))), ElementsAre(-128, -1, 0, 127));
  EXPECT_THAT(values<int16_t>(load_npy(golden("i16_3.npy"))), ElementsAre(-32768, 7, 32767));
  Tensor i32 = load_npy(golden("i32_2x2.npy"));
  EXPECT_THAT(i32.shape(), ElementsAre(2, 2));
  EXPECT_THAT(values<int32_t>(i32), ElementsAre(-1500, -500, 500, 1500));
  EXPECT_EQ(values<int64_t>(load_npy(golden("i64_3.npy"))), kI64_3);

  Tensor u8 = load_npy(golden("u8_2x3x1.npy"));
  EXPECT_EQ(u8.dtype(), DataType::UInt(8));
  EXPECT_THAT(u8.shape(), ElementsAre(2, 3, 1));
  EXPECT_THAT(values<uint8_t>(u8), ElementsAre(0, 50, 100, 150, 200, 250));
  EXPECT_THAT(values<uint16_t>(load_npy(golden("u16_2.npy"))), ElementsAre(0, 65535));
  EXPECT_THAT(values<uint32_t>(load_npy(golden("u32_2.npy"))), ElementsAre(1u, 4294967295u));
  EXPECT_THAT(values<uint64_t>(load_npy(golden("u64_2.npy"))), ElementsAre(2u, UINT64_MAX));

  Tensor b = load_npy(golden("bool_5.npy"));
  EXPECT_EQ(b.dtype(), DataType::Bool());
  EXPECT_THAT(values<uint8_t>(b), ElementsAre(1, 0, 1, 1, 0));
}

TEST(TensorIoTest, ReadsEmptyArrays) {
  Tensor t = load_npy(golden("f32_empty_0x3.npy"));
  EXPECT_THAT(t.shape(), ElementsAre(0, 3));
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_THAT(load_npy(golden("f32_12345x0x1x1x1x1x1x1.npy")).shape(), ElementsAre(12345, 0, 1, 1, 1, 1, 1, 1));
}

TEST(TensorIoTest, BigEndianDataIsConvertedToNative) {
  Tensor f32 = load_npy(golden("f32_be_2x3.npy"));
  EXPECT_EQ(f32.dtype(), DataType::Float(32));
  EXPECT_EQ(values<float>(f32), kF32_2x3);
  EXPECT_EQ(values<int64_t>(load_npy(golden("i64_be_3.npy"))), kI64_3);
}

TEST(TensorIoTest, FortranOrderIsTransposedToCOrder) {
  // np.asfortranarray(arange(24).reshape(2, 3, 4)): element [i, j, k] is 12i + 4j + k.
  Tensor t = load_npy(golden("i32_fortran_2x3x4.npy"));
  EXPECT_THAT(t.shape(), ElementsAre(2, 3, 4));
  std::vector<int32_t> expected(24);
  for (int i = 0; i < 24; ++i) expected[i] = i;
  EXPECT_EQ(values<int32_t>(t), expected);
}

TEST(TensorIoTest, ReadsHeaderVersions2And3) {
  for (const char* name : {"f32_v2_2x3.npy", "f32_v3_2x3.npy"}) {
    Tensor t = load_npy(golden(name));
    EXPECT_THAT(t.shape(), ElementsAre(2, 3)) << name;
    EXPECT_EQ(values<float>(t), kF32_2x3) << name;
  }
}

TEST(TensorIoTest, SaveNpyWritesNumPysBytes) {
  testing::ScratchDir dir;
  for (const char* name : {"f32_2x3.npy", "f64_scalar.npy", "f16_5.npy", "i8_4.npy", "i16_3.npy", "i32_2x2.npy",
                           "i64_3.npy", "u8_2x3x1.npy", "u16_2.npy", "u32_2.npy", "u64_2.npy", "bool_5.npy",
                           "f32_empty_0x3.npy", "f32_12345x0x1x1x1x1x1x1.npy"}) {
    Tensor t = load_npy(golden(name));
    save_npy(dir / name, t);
    EXPECT_EQ(bytes_of(dir / name), bytes_of(golden(name))) << name;
  }
  // A converted big-endian or Fortran array is written as NumPy writes its C-order, little-endian copy.
  EXPECT_EQ(encode_npy(load_npy(golden("f32_be_2x3.npy")), "x"), bytes_of(golden("f32_2x3.npy")));
}

TEST(TensorIoTest, NpySaveRejectsDtypesNumPyLacks) {
  testing::ScratchDir dir;
  Tensor bf = Tensor::zeros({2}, DataType::BFloat(16));
  try {
    save_npy(dir / "bf.npy", bf);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bf.npy: NumPy has no dtype for bfloat16"));
  }
}

void expect_npz_arrays(const NamedTensors& tensors) {
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0].first, "weight");
  EXPECT_THAT(tensors[0].second.shape(), ElementsAre(2, 3));
  EXPECT_EQ(values<float>(tensors[0].second), kF32_2x3);
  EXPECT_EQ(tensors[1].first, "ids");
  EXPECT_EQ(values<int64_t>(tensors[1].second), kI64_3);
  EXPECT_EQ(tensors[2].first, "mask");
  EXPECT_THAT(values<uint8_t>(tensors[2].second), ElementsAre(1, 0, 1, 1, 0));
}

TEST(TensorIoTest, ReadsStoredAndDeflatedNpz) {
  expect_npz_arrays(load_npz(golden("stored.npz")));
  expect_npz_arrays(load_npz(golden("deflated.npz")));
}

TEST(TensorIoTest, PositionalNpzMembersAreNamedArrN) {
  NamedTensors t = load_npz(golden("positional.npz"));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].first, "arr_0");
  EXPECT_THAT(values<double>(t[0].second), ElementsAre(0.0, 1.0));
  EXPECT_EQ(t[1].first, "arr_1");
  EXPECT_THAT(values<int8_t>(t[1].second), ElementsAre(0, 1, 2));
}

TEST(TensorIoTest, EmptyNpzReadsAndWritesAsNumPy) {
  EXPECT_TRUE(load_npz(golden("empty.npz")).empty());
  testing::ScratchDir dir;
  save_npz(dir / "e.npz", {});
  EXPECT_EQ(bytes_of(dir / "e.npz"), bytes_of(golden("empty.npz")));
}

// The compression method of the archive's first member (local header, offset 8).
int first_member_method(const fs::path& path) {
  std::vector<std::byte> b = bytes_of(path);
  EXPECT_GE(b.size(), 30u);
  EXPECT_EQ(static_cast<char>(b[0]), 'P');
  return static_cast<int>(b[8]) | (static_cast<int>(b[9]) << 8);
}

TEST(TensorIoTest, NpzRoundTripsStoredAndCompressed) {
  testing::ScratchDir dir;
  NamedTensors original = load_npz(golden("stored.npz"));
  original.emplace_back("half", load_npy(golden("f16_5.npy")));
  for (bool compressed : {false, true}) {
    fs::path path = dir / (compressed ? "c.npz" : "s.npz");
    save_npz(path, original, compressed);
    EXPECT_EQ(first_member_method(path), compressed ? 8 : 0);
    NamedTensors back = load_npz(path);
    ASSERT_EQ(back.size(), original.size());
    for (size_t i = 0; i < back.size(); ++i) {
      EXPECT_EQ(back[i].first, original[i].first);
      EXPECT_TRUE(back[i].second.bitwise_equal(original[i].second)) << original[i].first;
    }
  }
}

TEST(TensorIoTest, ReadsHandBuiltSafetensors) {
  std::vector<std::byte> bytes = bytes_of(golden("golden.safetensors"));
  SafetensorsContents c = parse_safetensors(bytes, "golden.safetensors");
  EXPECT_EQ(c.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"origin", "gen_tensor_io.py"}}));
  std::vector<std::string> names;
  for (const auto& [name, t] : c.tensors) names.push_back(name);
  // Data order, not header order.
  EXPECT_THAT(names, ElementsAre("ids", "weight", "bias", "bf", "mask", "nothing"));
  EXPECT_THAT(values<int64_t>(c.tensors[0].second), ElementsAre(-3, 0, int64_t{1} << 40));
  EXPECT_THAT(c.tensors[1].second.shape(), ElementsAre(2, 2));
  EXPECT_THAT(values<float>(c.tensors[1].second), ElementsAre(-0.5f, -0.25f, 0.0f, 0.25f));
  EXPECT_EQ(c.tensors[2].second.dtype(), DataType::Float(16));
  EXPECT_EQ(c.tensors[2].second.element_as_double(0), 1.5);
  EXPECT_EQ(c.tensors[2].second.element_as_double(1), -2.0);
  EXPECT_EQ(c.tensors[3].second.dtype(), DataType::BFloat(16));
  EXPECT_EQ(c.tensors[3].second.element_as_double(0), 1.0);
  EXPECT_EQ(c.tensors[3].second.element_as_double(1), -0.375);
  EXPECT_EQ(c.tensors[4].second.dtype(), DataType::Bool());
  EXPECT_THAT(values<uint8_t>(c.tensors[4].second), ElementsAre(1, 0));
  EXPECT_THAT(c.tensors[5].second.shape(), ElementsAre(0, 2));
}

TEST(TensorIoTest, SafetensorsRoundTripsWithMetadata) {
  testing::ScratchDir dir;
  SafetensorsContents original = parse_safetensors(bytes_of(golden("golden.safetensors")), "golden");
  save_safetensors(dir / "p.safetensors", original.tensors, original.metadata);
  std::vector<std::byte> bytes = bytes_of(dir / "p.safetensors");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(header_len % 8, 0u) << "the data starts 8-byte aligned";
  EXPECT_EQ(bytes.size(), 8 + header_len + 8 * 3 + 4 * 4 + 2 * 2 + 2 * 2 + 2);
  SafetensorsContents back = parse_safetensors(bytes, "p.safetensors");
  EXPECT_EQ(back.metadata, original.metadata);
  ASSERT_EQ(back.tensors.size(), original.tensors.size());
  for (size_t i = 0; i < back.tensors.size(); ++i) {
    EXPECT_EQ(back.tensors[i].first, original.tensors[i].first);
    EXPECT_TRUE(back.tensors[i].second.bitwise_equal(original.tensors[i].second)) << back.tensors[i].first;
  }
}

TEST(TensorIoTest, TensorFileDispatchesOnExtension) {
  testing::ScratchDir dir;
  NamedTensors one = load_tensor_file(golden("f32_2x3.npy"));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].first, "f32_2x3");
  expect_npz_arrays(load_tensor_file(golden("stored.npz")));
  EXPECT_EQ(load_tensor_file(golden("golden.safetensors")).size(), 6u);

  NamedTensors arrays = load_npz(golden("stored.npz"));
  for (const char* name : {"a.npz", "a.safetensors"}) {
    save_tensor_file(dir / name, arrays);
    NamedTensors back = load_tensor_file(dir / name);
    ASSERT_EQ(back.size(), 3u) << name;
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(back[i].second.bitwise_equal(arrays[i].second)) << name;
  }
  save_tensor_file(dir / "w.npy", {arrays[0]});
  EXPECT_EQ(bytes_of(dir / "w.npy"), bytes_of(golden("f32_2x3.npy")));
}

TEST(TensorIoTest, TensorFileErrorsNameTheFile) {
  testing::ScratchDir dir;
  NamedTensors two = load_npz(golden("stored.npz"));
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message([&] { load_tensor_file(dir / "x.pt"); }),
              HasSubstr("x.pt: unknown tensor file extension '.pt'; expected .npz, .safetensors or .npy"));
  EXPECT_THAT(message([&] { save_tensor_file(dir / "x.npy", two); }), HasSubstr("a .npy file holds one tensor, not 3"));
  EXPECT_THAT(message([&] { load_npy(dir / "missing.npy"); }),
              HasSubstr("missing.npy: cannot open for reading: No such file or directory"));
  NamedTensors dup = {two[0], two[0]};
  EXPECT_THAT(message([&] { save_npz(dir / "d.npz", dup); }), HasSubstr("two tensors are named 'weight'"));
  EXPECT_THAT(message([&] { save_safetensors(dir / "m.safetensors", {{"__metadata__", two[0].second}}); }),
              HasSubstr("a tensor cannot be named __metadata__"));
  EXPECT_THAT(message([&] { save_npz(dir / "no/such/dir/x.npz", two); }), HasSubstr("x.npz: cannot"));
}

}  // namespace
}  // namespace weft
