// Malformed and truncated tensor files: each is a weft::Error naming the file
// and what is wrong (this suite also runs under ASan+UBSan, which would catch a
// read past the input).
#include <gmock/gmock.h>

#include <cstring>
#include <fstream>

#include <unistd.h>

#include "weft/error.h"
#include "weft/limits.h"
#include "weft/tensor_io.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::vector<std::byte> to_bytes(std::string_view s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

std::vector<std::byte> golden_bytes(const std::string& name) {
  std::ifstream in(fs::path(WEFT_GOLDEN_DIR) / "tensor_io" / name, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return to_bytes(s);
}

// A version-1.0 .npy with `header` as the dict text and `data_bytes` zero bytes.
std::vector<std::byte> npy(const std::string& header, size_t data_bytes, char major = 1) {
  std::string s = std::string("\x93NUMPY", 6) + major + '\0';
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>(header.size() >> 8);
  if (major != 1) s += std::string(2, '\0');
  return to_bytes(s + header + std::string(data_bytes, '\0'));
}

std::string npy_error(const std::vector<std::byte>& bytes) {
  try {
    parse_npy(bytes, "in.npy");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
}

TEST(TensorIoErrorsTest, NpyMagicVersionAndLengths) {
  EXPECT_THAT(npy_error(to_bytes("PK\x03\x04 not npy")), HasSubstr("in.npy: not a .npy file"));
  EXPECT_THAT(npy_error(to_bytes("")), HasSubstr("in.npy: not a .npy file"));
  EXPECT_THAT(npy_error(npy(dict("'<f4'", "(1,)"), 4, 4)),
              HasSubstr("unsupported .npy version 4.0; expected 1.0, 2.0 or 3.0"));
  EXPECT_THAT(npy_error(to_bytes(std::string("\x93NUMPY\x02\x00\x10", 9))),
              HasSubstr("truncated before the header length"));
  std::vector<std::byte> past = npy(dict("'<f4'", "(1,)"), 4);
  past[8] = std::byte{0xff};  // header length 0x7fff, past the end
  past[9] = std::byte{0x7f};
  EXPECT_THAT(npy_error(past), HasSubstr("in.npy: header length 32767 runs past the end of the file"));
  std::string huge = dict("'<f4'", "(1,)");
  huge.insert(huge.size() - 1, 12000, ' ');
  EXPECT_THAT(npy_error(npy(huge, 4)), HasSubstr("larger than NumPy allows; expected at most 10000 bytes"));
}

TEST(TensorIoErrorsTest, NpyHeaderDictSyntax) {
  struct Case {
    std::string header, message;
  };
  const Case cases[] = {
      {"'descr': '<f4'}", "offset 0: unexpected '''; expected '{' opening the header dict"},
      {"{'descr' '<f4'}", "unexpected '''; expected ':' after the key"},
      {"{'descr': '<f4' 'shape': (1,)}", "expected ',' or '}'"},
      {"{'descr': '<f4", "unterminated string"},
      {"{descr: '<f4'}", "expected a quoted key"},
      {"{'descr': '<\\x66'}", "escape sequence in a string"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
       "unknown key 'extra'; expected only 'descr', 'fortran_order' and 'shape'"},
      {"{'descr': '<f4', 'descr': '<f4'}", "key 'descr' appears twice"},
      {"{'descr': '<f4', 'shape': (1,)}", "the header dict lacks 'fortran_order'"},
      {"{}", "lacks 'descr', 'fortran_order', 'shape'"},
      {dict("'<f4'", "(1,)", "yes"), "fortran_order is 'y'; expected True or False"},
      {dict("'<f4'", "(3)"), "shape is a parenthesized int, not a tuple"},
      {dict("'<f4'", "[3]"), "shape is '['; expected a tuple of ints"},
      {dict("'<f4'", "(3, x)"), "unexpected 'x' in the shape; expected an int"},
      {dict("'<f4'", "(3 4)"), "expected ',' or ')'"},
      {dict("'<f4'", "(99999999999999999999,)"), "dimension does not fit in 64 bits"},
      {dict("'<c8'", "(1,)"), "dtype '<c8' is not supported; expected one of '<f2'"},
      {dict("'|O'", "(1,)"), "dtype '|O' is not supported"},
      {dict("[('a', '<f4')]", "(1,)"), "structured dtypes (a list descr) are not supported"},
      {dict("'<f4'", "(1,)") + "junk", "text after the header dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\x01", "text after the header dict"},
  };
  for (const Case& c : cases) EXPECT_THAT(npy_error(npy(c.header, 64)), HasSubstr(c.message)) << c.header;
}

TEST(TensorIoErrorsTest, NpyShapeAndDataSize) {
  EXPECT_THAT(npy_error(npy(dict("'<f4'", "(2, -3)"), 0)), HasSubstr("in.npy: shape (2, -3) has a negative dimension"));
  // Overflowing 64 bits, and merely more than the file holds: neither allocates.
  EXPECT_THAT(npy_error(npy(dict("'<f4'", "(4294967296, 4294967296)"), 8)),
              HasSubstr("shape (4294967296, 4294967296) is too large: its byte size overflows 64 bits"));
  EXPECT_THAT(npy_error(npy(dict("'<f8'", "(1000000000000,)"), 8)),
              HasSubstr("the data is truncated: 8 bytes for shape (1000000000000,) of float64; expected 8000000000000 bytes"));
  EXPECT_THAT(npy_error(npy(dict("'<f4'", "(2, 3)"), 20)),
              HasSubstr("the data is truncated: 20 bytes for shape (2, 3) of float32; expected 24 bytes"));
  EXPECT_THAT(npy_error(npy(dict("'<f4'", "(2, 3)"), 25)),
              HasSubstr("unexpected bytes after the data: 25 bytes for shape (2, 3) of float32; expected 24 bytes"));
  // A truncated real file.
  std::vector<std::byte> cut = golden_bytes("f32_2x3.npy");
  cut.resize(cut.size() - 1);
  EXPECT_THAT(npy_error(cut), HasSubstr("the data is truncated: 23 bytes"));
}

TEST(TensorIoErrorsTest, NpyAcceptsWhatNumPyAccepts) {
  // Python 2's long suffix (versions 1.0/2.0), a descr without byte order,
  // double quotes, and keys in any order.
  Tensor t = parse_npy(npy("{\"shape\": (2L, 1L), 'fortran_order': False, 'descr': 'i2'}", 4), "py2.npy");
  EXPECT_EQ(t.dtype(), DataType::Int(16));
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_THAT(npy_error(npy("{'shape': (2L,), 'fortran_order': False, 'descr': 'i2'}", 4, 3)),
              HasSubstr("expected ',' or ')'"));
  // Any nonzero byte is True.
  std::vector<std::byte> b = npy(dict("'|b1'", "(2,)"), 2);
  b[b.size() - 1] = std::byte{7};
  Tensor flags = parse_npy(b, "b.npy");
  EXPECT_EQ(static_cast<const uint8_t*>(flags.data())[1], 1);
}

std::string npz_error(const std::vector<std::byte>& bytes) {
  try {
    parse_npz(bytes, "in.npz");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// A byte of the first member's (weight.npy's) array data in stored.npz: its
// local header and .npy header come before it, the next member at byte 212.
constexpr size_t kStoredWeightDataByte = 210;

TEST(TensorIoErrorsTest, MalformedNpz) {
  EXPECT_THAT(npz_error(to_bytes("definitely not a zip archive")), HasSubstr("in.npz: not a valid .npz (zip) archive"));
  EXPECT_THAT(npz_error({}), HasSubstr("in.npz: not a valid .npz (zip) archive: the file is empty"));
  std::vector<std::byte> half = golden_bytes("deflated.npz");
  half.resize(half.size() / 2);
  EXPECT_THAT(npz_error(half), HasSubstr("in.npz: not a valid .npz (zip) archive"));

  // A flipped byte inside a stored member fails its CRC check.
  std::vector<std::byte> flipped = golden_bytes("stored.npz");
  flipped[kStoredWeightDataByte] ^= std::byte{0x20};
  EXPECT_THAT(npz_error(flipped), HasSubstr("in.npz (member weight.npy): corrupt data: CRC error"));
  // A flipped byte in deflated data: bad deflate stream or a CRC mismatch.
  std::vector<std::byte> inflated = golden_bytes("deflated.npz");
  inflated[80] ^= std::byte{0xff};
  EXPECT_THAT(npz_error(inflated), HasSubstr("in.npz (member weight.npy): corrupt data"));

  EXPECT_THAT(npz_error(golden_bytes("bad_not_npy_member.npz")),
              HasSubstr("in.npz (member notes.txt): is not a .npy array; expected members named NAME.npy"));
  EXPECT_THAT(npz_error(golden_bytes("bad_truncated_member.npz")),
              HasSubstr("in.npz (member x.npy): inflates to 149 bytes, but its .npy header (shape (2, 3) of float32) "
                        "declares 152"));
}

TEST(TensorIoErrorsTest, ANpzMemberIsCheckedAgainstItsHeaderBeforeItIsInflated) {
  // 64 KB on disk, 64 MiB inflated, behind a header for six floats: refused
  // from the recorded sizes, without inflating the member.
  EXPECT_THAT(npz_error(golden_bytes("bad_inflates_past_header.npz")),
              HasSubstr("in.npz (member x.npy): inflates to 67109016 bytes, but its .npy header (shape (2, 3) of "
                        "float32) declares 152"));
  // A header over the tensor size limit is refused before its data is read.
  const int64_t saved = max_tensor_bytes();
  set_max_tensor_bytes(16);
  for (const char* name : {"f32_2x3.npy", "stored.npz"}) {
    try {
      load_tensor_file(fs::path(WEFT_GOLDEN_DIR) / "tensor_io" / name);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("Tensor[(2, 3), float32] takes 24 bytes, more than the limit of 16")) << name;
    }
  }
  set_max_tensor_bytes(saved);
}

TEST(TensorIoErrorsTest, AHeaderCheckRefusesATensorBeforeItsDataIsRead) {
  // A 20 KB member whose data is corrupt (a flipped byte fails its CRC): a
  // check that refuses its header is reached first, so the data is never read.
  const fs::path path = fs::temp_directory_path() / ("weft_checked_" + std::to_string(::getpid()) + ".npz");
  save_npz(path, {{"w", Tensor::zeros({5000}, DataType::Float(32))}});
  std::vector<std::byte> bytes;
  {
    std::ifstream in(path, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes = to_bytes(s);
  }
  bytes[10000] ^= std::byte{0x20};  // inside the array data, past the headers
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  EXPECT_THAT(npz_error(bytes), HasSubstr("(member w.npy): corrupt data: CRC error"));
  std::vector<std::string> seen;
  try {
    load_tensor_file(path, [&](const std::string& name, const std::vector<int64_t>&, DataType) {
      seen.push_back(name);
      throw Error("refused " + name);
    });
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("refused w"));
  }
  EXPECT_EQ(seen, std::vector<std::string>{"w"});
  fs::remove(path);
}

TEST(TensorIoErrorsTest, ReadersRequireRegularFilesAndCheckHeadersAgainstTheFileSize) {
  // An endless device used to be read until memory ran out.
  for (const auto& load : {+[](const fs::path& p) { load_npy(p); }, +[](const fs::path& p) { load_npz(p); },
                           +[](const fs::path& p) { load_safetensors(p); }}) {
    try {
      load("/dev/zero");
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("/dev/zero: is not a regular file"));
    }
  }
  const fs::path cut = fs::temp_directory_path() / ("weft_cut_" + std::to_string(::getpid()) + ".npy");
  std::vector<std::byte> bytes = golden_bytes("f32_2x3.npy");
  std::ofstream(cut, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), 140);
  try {
    load_npy(cut);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the file has 140 bytes, but its header (shape (2, 3) of float32) declares 152"));
  }
  fs::remove(cut);
}

TEST(TensorIoErrorsTest, HostileFilesAreRefusedFromTheirHeadersBeforeAnythingIsAllocated) {
  // gen_tensor_io.py's write_hostile(): each declares gigabytes or more in a
  // file of a few hundred bytes (also fuzz seeds). Each is refused from its
  // header and sizes, so the reader never asks for the memory it declares.
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"bad_huge_shape.npy", "shape (1099511627776, 1099511627776) is too large: its byte size overflows 64 bits"},
      {"bad_declares_16gib.npy", "the file has 128 bytes, but its header (shape (4294967296,) of float32) declares"},
      {"bad_lies_about_size.npz",
       "(member x.npy): is recorded as 2147483776 bytes, more than its 1119 deflated bytes inflate to; expected at "
       "most 1154808 bytes (deflate expands at most 1032 times)"},
      {"bad_huge_shape.safetensors", "(tensor x): shape (1099511627776, 1099511627776) is too large"},
      {"bad_span_past_data.safetensors",
       "(tensor x): data_offsets end 1099511627776 is past the end of the data (16 bytes)"},
  };
  for (const auto& c : cases) {
    const fs::path path = fs::path(WEFT_GOLDEN_DIR) / "tensor_io" / c.file;
    try {
      load_tensor_file(path);
      ADD_FAILURE() << c.file << ": expected an error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(path.string())) << c.file;
      EXPECT_THAT(e.what(), HasSubstr(c.message)) << c.file;
    }
  }
}

// A safetensors file with `header` and `data_bytes` zero bytes of data.
std::vector<std::byte> safetensors(const std::string& header, size_t data_bytes) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xff);
  return to_bytes(s + header + std::string(data_bytes, '\0'));
}

std::string st_error(const std::vector<std::byte>& bytes) {
  try {
    parse_safetensors(bytes, "in.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TensorIoErrorsTest, MalformedSafetensorsHeader) {
  EXPECT_THAT(st_error(to_bytes("abc")), HasSubstr("in.safetensors: truncated: no 8-byte header length"));
  std::vector<std::byte> past = safetensors("{}", 0);
  past[0] = std::byte{3};
  EXPECT_THAT(st_error(past), HasSubstr("header length 3 runs past the end of the file (10 bytes)"));
  std::vector<std::byte> huge = safetensors("{}", 0);
  huge[7] = std::byte{1};
  EXPECT_THAT(st_error(huge), HasSubstr("is too large; expected at most 100000000 bytes"));
  EXPECT_THAT(st_error(safetensors("[1, 2]", 0)), HasSubstr("the header does not start with '{'"));
  EXPECT_THAT(st_error(safetensors("{\"a\": ", 0)), HasSubstr("the header is not valid JSON"));
  EXPECT_THAT(st_error(safetensors(R"({"a": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}, "a": 1})", 4)),
              HasSubstr("the header has the key 'a' twice"));
  EXPECT_THAT(st_error(safetensors(R"({"__metadata__": {"k": 1}})", 0)),
              HasSubstr("__metadata__ is {\"k\":1}; expected an object of string values"));
}

TEST(TensorIoErrorsTest, MalformedSafetensorsEntries) {
  struct Case {
    std::string header;
    size_t data;
    std::string message;
  };
  const Case cases[] = {
      {R"({"a": 5})", 0, "(tensor a): is 5; expected an object"},
      {R"({"a": {"shape": [1], "data_offsets": [0, 4]}})", 4, "(tensor a): has no 'dtype'"},
      {R"({"a": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}})", 1,
       "dtype \"F8_E4M3\" is not supported; expected one of F16"},
      {R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4,
       "'shape' is [-1]; expected a list of non-negative integers"},
      {R"({"a": {"dtype": "F32", "data_offsets": [0, 4]}})", 4, "has no 'shape'"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", 4,
       "data_offsets is [4,0]; expected [BEGIN, END] with BEGIN <= END"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", 4, "data_offsets is [0]"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}})",
       6, "(tensor b): data_offsets [2, 6] overlap the previous tensor's data; expected BEGIN = 4"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8,
       "(tensor a): data_offsets [4, 8] leave a hole; expected BEGIN = 0"},
      {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 4,
       "data_offsets end 8 is past the end of the data (4 bytes)"},
      {R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8,
       "data_offsets span 8 bytes for shape (3,) of float32; expected 12 bytes"},
      {R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", 8,
       "byte size overflows 64 bits"},
      {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 6,
       "the data has 2 bytes no tensor refers to"},
  };
  for (const Case& c : cases) {
    std::string message = st_error(safetensors(c.header, c.data));
    EXPECT_THAT(message, HasSubstr("in.safetensors")) << c.header;
    EXPECT_THAT(message, HasSubstr(c.message)) << c.header;
  }
}

}  // namespace
}  // namespace weft
