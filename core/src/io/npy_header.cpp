// Reading and writing the .npy header dict (see npy_header.h).
#include "npy_header.h"

#include <optional>

#include "io_util.h"

namespace weft::io {

namespace {

constexpr const char* kSupportedDescrs =
    "one of '<f2', '<f4', '<f8', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '|b1' "
    "(any byte order)";

// Maps the kind letter and item size of a descr ('f', 4) to a dtype.
std::optional<DataType> descr_dtype(char kind, int size) {
  switch (kind) {
    case 'f':
      if (size == 2 || size == 4 || size == 8) return DataType::Float(size * 8);
      break;
    case 'i':
      if (size == 1 || size == 2 || size == 4 || size == 8) return DataType::Int(size * 8);
      break;
    case 'u':
      if (size == 1 || size == 2 || size == 4 || size == 8) return DataType::UInt(size * 8);
      break;
    case 'b':
      if (size == 1) return DataType::Bool();
      break;
  }
  return std::nullopt;
}

// A cursor over the dict literal. Each error names the source, the offset in
// the header and what was expected there.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, bool allow_long_suffix, std::string_view source)
      : text_(text), allow_long_(allow_long_suffix), source_(source) {}

  NpyHeader parse() {
    bool have_descr = false, have_fortran = false, have_shape = false;
    NpyHeader h;
    skip_space();
    expect('{', "'{' opening the header dict");
    skip_space();
    while (peek() != '}') {
      size_t key_pos = pos_;
      std::string key = parse_string("a quoted key");
      skip_space();
      expect(':', "':' after the key");
      skip_space();
      auto once = [&](bool& seen) {
        if (seen) throw fail_at(key_pos, "key '" + key + "' appears twice", "each key once");
        seen = true;
      };
      if (key == "descr") {
        once(have_descr);
        parse_descr(h);
      } else if (key == "fortran_order") {
        once(have_fortran);
        h.fortran_order = parse_bool();
      } else if (key == "shape") {
        once(have_shape);
        h.shape = parse_shape();
      } else {
        throw fail_at(key_pos, "unknown key '" + key + "'", "only 'descr', 'fortran_order' and 'shape'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != '}') {
        throw fail("unexpected " + describe_here(), "',' or '}'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) throw fail("text after the header dict", "only spaces and a newline");
    if (!have_descr || !have_fortran || !have_shape) {
      std::string missing;
      for (auto [seen, name] : {std::pair{have_descr, "descr"}, {have_fortran, "fortran_order"}, {have_shape, "shape"}})
        if (!seen) missing += (missing.empty() ? "'" : ", '") + std::string(name) + "'";
      throw file_error(source_, "the header dict lacks " + missing)
          .expected("the keys 'descr', 'fortran_order' and 'shape'");
    }
    return h;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of header";
    char c = text_[pos_];
    if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
    return "byte " + std::to_string(static_cast<unsigned char>(c));
  }
  Error fail_at(size_t pos, std::string message, std::string expected) const {
    return file_error(source_, "header, offset " + std::to_string(pos) + ": " + std::move(message))
        .expected(std::move(expected));
  }
  Error fail(std::string message, std::string expected) const {
    return fail_at(pos_, std::move(message), std::move(expected));
  }
  void expect(char c, const char* what) {
    if (peek() != c) throw fail("unexpected " + describe_here(), what);
    ++pos_;
  }

  // A Python string literal without escapes (NumPy's keys and descrs have none).
  std::string parse_string(const char* what) {
    char quote = peek();
    if (quote != '\'' && quote != '"') throw fail("unexpected " + describe_here(), what);
    size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') throw fail("escape sequence in a string", "a plain string");
      if (text_[pos_] == '\n') break;
      ++pos_;
    }
    if (pos_ >= text_.size() || text_[pos_] != quote) throw fail_at(start - 1, "unterminated string", "a closing quote");
    return std::string(text_.substr(start, pos_++ - start));
  }

  bool parse_bool() {
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, {std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    throw fail("fortran_order is " + describe_here(), "True or False");
  }

  void parse_descr(NpyHeader& h) {
    if (peek() == '[') throw fail("structured dtypes (a list descr) are not supported", kSupportedDescrs);
    size_t at = pos_;
    std::string descr = parse_string("a quoted dtype descr such as '<f4'");
    std::string_view d = descr;
    char order = '|';
    if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
      order = d[0];
      d.remove_prefix(1);
    }
    std::optional<DataType> dtype;
    if (d.size() == 2 && d[1] >= '1' && d[1] <= '8') dtype = descr_dtype(d[0], d[1] - '0');
    if (!dtype) throw fail_at(at, "dtype '" + descr + "' is not supported", kSupportedDescrs);
    h.dtype = *dtype;
    // '|' (not applicable) and '=' (native) are little-endian on every host weft runs on.
    h.big_endian = order == '>' && dtype->bytes() > 1;
  }

  std::vector<int64_t> parse_shape() {
    if (peek() != '(') throw fail("shape is " + describe_here(), "a tuple of ints such as (2, 3)");
    ++pos_;
    std::vector<int64_t> shape;
    bool trailing_comma = false;
    skip_space();
    while (peek() != ')') {
      shape.push_back(parse_int());
      skip_space();
      trailing_comma = peek() == ',';
      if (trailing_comma) {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        throw fail("unexpected " + describe_here() + " in the shape", "',' or ')'");
      }
    }
    // In Python `(3)` is the int 3, not a tuple.
    if (shape.size() == 1 && !trailing_comma) throw fail("shape is a parenthesized int, not a tuple", "(3,)");
    ++pos_;
    return shape;
  }

  int64_t parse_int() {
    size_t start = pos_;
    bool negative = peek() == '-';
    if (negative) ++pos_;
    if (peek() < '0' || peek() > '9') throw fail("unexpected " + describe_here() + " in the shape", "an int");
    int64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      int digit = peek() - '0';
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, digit, &value))
        throw fail_at(start, "dimension does not fit in 64 bits", "a dimension below 2^63");
      ++pos_;
    }
    if (allow_long_ && (peek() == 'L' || peek() == 'l')) ++pos_;
    return negative ? -value : value;
  }

  std::string_view text_;
  bool allow_long_;
  std::string_view source_;
  size_t pos_ = 0;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view text, bool allow_long_suffix, std::string_view source) {
  return HeaderParser(text, allow_long_suffix, source).parse();
}

std::string npy_descr(DataType dtype, std::string_view source) {
  if (dtype.lanes == 1) {
    char kind = dtype.is_bool() ? 'b' : dtype.code == DataType::kFloat ? 'f' : dtype.is_int() ? 'i' : dtype.is_uint() ? 'u' : '?';
    if (kind != '?' && descr_dtype(kind, static_cast<int>(dtype.bytes())) == dtype)
      return std::string(dtype.bytes() == 1 ? "|" : "<") + kind + std::to_string(dtype.bytes());
  }
  throw file_error(source, "NumPy has no dtype for " + dtype.str())
      .expected("float16/32/64, int8/16/32/64, uint8/16/32/64 or bool");
}

std::string format_npy_header(DataType dtype, const std::vector<int64_t>& shape, std::string_view source) {
  // Python's repr of a tuple: "()", "(3,)", "(2, 3)".
  std::string header = "{'descr': '" + npy_descr(dtype, source) + "', 'fortran_order': False, 'shape': " +
                       shape_text(shape) + ", }";
  // NumPy >= 1.24 leaves room for the first axis to grow to 21 digits.
  constexpr size_t kGrowthAxisMaxDigits = 21;
  if (!shape.empty()) header.append(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');
  return header;
}

}  // namespace weft::io
