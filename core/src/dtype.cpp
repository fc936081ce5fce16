// Parsing and printing of element data types in Relay's spelling.
#include "weft/dtype.h"

#include <dlpack/dlpack.h>

#include <charconv>

#include "weft/error.h"

namespace weft {

namespace {

Error bad_dtype(std::string_view text) {
  return Error("'" + std::string(text) + "' is not a data type")
      .expected("a dtype such as float32, float16, bfloat16, int8, int64, uint8, bool or float32x4");
}

// Parses a decimal count; nullopt-like -1 when text is not a positive number.
int parse_positive(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return -1;
  return value;
}

}  // namespace

DataType DataType::parse(std::string_view text) {
  if (text == "bool") return Bool();
  std::string_view rest = text;
  DataType t;
  // Longest prefix first: "bfloat" before "float", "uint" before "int".
  if (rest.starts_with("bfloat")) {
    t.code = kBFloat;
    rest.remove_prefix(6);
  } else if (rest.starts_with("float")) {
    t.code = kFloat;
    rest.remove_prefix(5);
  } else if (rest.starts_with("uint")) {
    t.code = kUInt;
    rest.remove_prefix(4);
  } else if (rest.starts_with("int")) {
    t.code = kInt;
    rest.remove_prefix(3);
  } else {
    throw bad_dtype(text);
  }
  std::string_view bits_text = rest, lanes_text;
  if (auto x = rest.find('x'); x != std::string_view::npos) {
    bits_text = rest.substr(0, x);
    lanes_text = rest.substr(x + 1);
  }
  // As in TVM, a bare "int" or "float" is 32 bits wide.
  int bits = bits_text.empty() ? 32 : parse_positive(bits_text);
  int lanes = lanes_text.empty() && rest.find('x') == std::string_view::npos ? 1 : parse_positive(lanes_text);
  if (bits <= 0 || bits > 64 || lanes <= 0 || lanes > 65535) throw bad_dtype(text);
  if (t.code == kFloat && bits != 16 && bits != 32 && bits != 64) throw bad_dtype(text);
  if (t.code == kBFloat && bits != 16) throw bad_dtype(text);
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

std::string DataType::str() const {
  if (is_bool() && lanes == 1) return "bool";
  std::string out;
  switch (code) {
    case kInt: out = "int"; break;
    case kUInt: out = "uint"; break;
    case kFloat: out = "float"; break;
    case kBFloat: out = "bfloat"; break;
    case kDLOpaqueHandle: out = "handle"; break;
    case kDLComplex: out = "complex"; break;
    default: out = "dlpack_code" + std::to_string(code) + "_"; break;  // a code newer than we know
  }
  out += std::to_string(bits);
  if (lanes != 1) out += "x" + std::to_string(lanes);
  return out;
}

}  // namespace weft
