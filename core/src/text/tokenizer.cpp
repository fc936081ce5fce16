// The Relay text tokenizer: characters to tokens, with positions.
#include <charconv>
#include <cmath>
#include <limits>

#include "token.h"

namespace weft::text {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

class Tokenizer {
 public:
  Tokenizer(std::string_view src, const std::string& name) : src_(src), name_(name) {}

  TokenizedText run() {
    TokenizedText out;
    while (true) {
      skip_space_and_comments(out.tokens.empty() ? nullptr : &out.tokens.back());
      if (pos_ >= src_.size()) break;
      start_ = pos_;
      start_line_ = line_;
      start_col_ = column();
      char c = src_[pos_];
      if (c == '#') {
        if (read_attribute(out)) break;  // the metadata section runs to the end
        continue;
      }
      out.tokens.push_back(next_token(out.tokens.empty() ? TokenKind::kEof : out.tokens.back().kind));
    }
    Token eof;
    eof.kind = TokenKind::kEof;
    eof.line = line_;
    eof.column = column();
    out.tokens.push_back(eof);
    return out;
  }

 private:
  int column() const { return static_cast<int>(pos_ - line_start_) + 1; }
  bool more(size_t ahead = 0) const { return pos_ + ahead < src_.size(); }
  char peek(size_t ahead = 0) const { return more(ahead) ? src_[pos_ + ahead] : '\0'; }
  void advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }

  [[noreturn]] void fail(const std::string& message, int line, int col) const {
    throw Error(message).at(SourceLoc{name_, line, col});
  }
  [[noreturn]] void fail_here(const std::string& message) const { fail(message, start_line_, start_col_); }

  // The first block comment is kept as the note of `previous` (if any).
  void skip_space_and_comments(Token* previous) {
    bool noted = false;
    while (more()) {
      char c = peek();
      if (is_space(c)) {
        advance();
      } else if (c == '/' && peek(1) == '/') {
        while (more() && peek() != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        size_t begin = pos_ + 2;
        skip_block_comment();
        if (previous && !noted) previous->note = std::string(src_.substr(begin, pos_ - 2 - begin));
        noted = true;
      } else {
        return;
      }
    }
  }

  // Block comments nest, as in TVM's tokenizer.
  void skip_block_comment() {
    int line = line_, col = column();
    advance();
    advance();
    int depth = 1;
    while (more()) {
      if (peek() == '/' && peek(1) == '*') {
        advance();
        advance();
        ++depth;
      } else if (peek() == '*' && peek(1) == '/') {
        advance();
        advance();
        if (--depth == 0) return;
      } else {
        advance();
      }
    }
    fail("unterminated comment: expected `*/`, found end of input", line, col);
  }

  Token make(TokenKind kind, std::string text = {}) const {
    Token t;
    t.kind = kind;
    t.line = start_line_;
    t.column = start_col_;
    t.text = std::move(text);
    return t;
  }

  // `#[version = "0.0.5"]` or `#[metadata]`; returns true for the metadata section.
  bool read_attribute(TokenizedText& out) {
    advance();
    if (peek() != '[') fail_here("expected `[` after `#`, found " + found_char());
    advance();
    size_t begin = pos_;
    while (more() && peek() != ']') advance();
    if (!more()) fail_here("unterminated attribute: expected `]`, found end of input");
    std::string attribute = trim(src_.substr(begin, pos_ - begin));
    advance();
    if (attribute == "metadata") {
      out.metadata = std::string(src_.substr(pos_));
      out.metadata_loc = SourceLoc{name_, start_line_, start_col_};
      pos_ = src_.size();
      return true;
    }
    if (attribute.rfind("version", 0) == 0 && attribute.find('=') != std::string::npos) {
      out.tokens.push_back(make(TokenKind::kVersion, trim(std::string_view(attribute).substr(attribute.find('=') + 1))));
      return false;
    }
    fail_here("unsupported attribute `#[" + attribute + "]`; expected `#[version = \"0.0.5\"]` or `#[metadata]`");
  }

  std::string found_char() const {
    if (!more()) return "end of input";
    return std::string("`") + peek() + "`";
  }

  std::string read_ident_text() {
    size_t begin = pos_;
    // '/' continues a name (TVM allows it) unless it starts a comment.
    while (more() && (is_ident_start(peek()) || is_digit(peek()) ||
                      (peek() == '/' && peek(1) != '/' && peek(1) != '*')))
      advance();
    return std::string(src_.substr(begin, pos_ - begin));
  }

  Token next_token(TokenKind previous) {
    char c = peek();
    auto single = [&](TokenKind k) {
      advance();
      return make(k, std::string(1, c));
    };
    switch (c) {
      case '(': return single(TokenKind::kLParen);
      case ')': return single(TokenKind::kRParen);
      case '[': return single(TokenKind::kLSquare);
      case ']': return single(TokenKind::kRSquare);
      case '{': return single(TokenKind::kLCurly);
      case '}': return single(TokenKind::kRCurly);
      case ',': return single(TokenKind::kComma);
      case '.': return single(TokenKind::kPeriod);
      case ':': return single(TokenKind::kColon);
      case ';': return single(TokenKind::kSemicolon);
      case '=': return single(TokenKind::kEqual);
      case '?': return single(TokenKind::kQuestion);
      case '"': return read_string();
      case '%': return read_local();
      case '@': {
        advance();
        if (!is_ident_start(peek())) fail_here("expected a function name after `@`, found " + found_char());
        return make(TokenKind::kGlobal, read_ident_text());
      }
      case '-': {
        if (peek(1) == '>') {
          advance();
          advance();
          return make(TokenKind::kArrow, "->");
        }
        advance();
        if (is_digit(peek())) return read_number(/*negative=*/true, previous);
        if (is_ident_start(peek())) {
          Token t = read_word();
          if (t.kind == TokenKind::kFloat && std::isinf(t.float_value)) {
            t.float_value = -t.float_value;
            return t;
          }
          if (t.kind == TokenKind::kFloat) return t;  // -nan is nan
        }
        fail_here("expected a number after `-`, found " + found_char());
      }
      default: break;
    }
    if (is_digit(c)) return read_number(/*negative=*/false, previous);
    if (is_ident_start(c)) return read_word();
    fail_here(std::string("unexpected character `") + c + "`");
  }

  Token read_string() {
    advance();
    std::string text;
    while (more() && peek() != '"') {
      char c = peek();
      if (c == '\\' && more(1)) {
        advance();
        char e = peek();
        switch (e) {
          case 'n': text += '\n'; break;
          case 't': text += '\t'; break;
          case 'r': text += '\r'; break;
          default: text += e;  // \" and \\ and anything else stand for themselves
        }
        advance();
        continue;
      }
      text += c;
      advance();
    }
    if (!more()) fail_here("unterminated string: expected `\"`, found end of input");
    advance();
    return make(TokenKind::kString, std::move(text));
  }

  Token read_local() {
    advance();
    if (is_digit(peek())) {
      size_t begin = pos_;
      while (is_digit(peek())) advance();
      if (is_ident_start(peek())) {  // %0x is a name, not a binding number
        pos_ = begin;
        return make(TokenKind::kLocal, read_ident_text());
      }
      Token t = make(TokenKind::kGraph, std::string(src_.substr(begin, pos_ - begin)));
      auto [ptr, ec] = std::from_chars(src_.data() + begin, src_.data() + pos_, t.int_value);
      if (ec != std::errc()) fail_here("binding number %" + t.text + " is too large");
      (void)ptr;
      return t;
    }
    if (!is_ident_start(peek())) fail_here("expected a variable name after `%`, found " + found_char());
    return make(TokenKind::kLocal, read_ident_text());
  }

  // Identifiers, keywords, True/False, `meta[type][N]`, `inff` and `nanf`.
  Token read_word() {
    std::string word = read_ident_text();
    if (word == "meta" && peek() == '[') return read_meta_ref();
    static const std::pair<const char*, TokenKind> keywords[] = {
        {"fn", TokenKind::kFn},     {"let", TokenKind::kLet}, {"if", TokenKind::kIf},
        {"else", TokenKind::kElse}, {"def", TokenKind::kDef}, {"free_var", TokenKind::kFreeVar}};
    for (const auto& [kw, kind] : keywords)
      if (word == kw) return make(kind, word);
    if (word == "True" || word == "False") {
      Token t = make(TokenKind::kBool, word);
      t.int_value = word == "True";
      return t;
    }
    for (const char* special : {"inf", "nan"}) {
      std::string_view w(word);
      if (w.rfind(special, 0) == 0 && w.size() > 3 && w[3] == 'f') {
        Token t = make(TokenKind::kFloat, word);
        t.float_value = special[0] == 'i' ? std::numeric_limits<double>::infinity()
                                          : std::numeric_limits<double>::quiet_NaN();
        t.dtype = float_width(w.substr(4));
        return t;
      }
    }
    return make(TokenKind::kIdent, word);
  }

  Token read_meta_ref() {
    advance();  // '['
    size_t begin = pos_;
    while (more() && peek() != ']' && !is_space(peek())) advance();
    std::string key(src_.substr(begin, pos_ - begin));
    if (peek() != ']' || peek(1) != '[')
      fail_here("malformed meta reference: expected `meta[TYPE][INDEX]`, found " + found_char());
    advance();
    advance();
    begin = pos_;
    while (is_digit(peek())) advance();
    Token t = make(TokenKind::kMetaRef, key);
    auto [ptr, ec] = std::from_chars(src_.data() + begin, src_.data() + pos_, t.int_value);
    if (ec != std::errc() || begin == pos_ || peek() != ']')
      fail_here("malformed meta reference: expected `meta[TYPE][INDEX]`, found " + found_char());
    (void)ptr;
    advance();
    return t;
  }

  DataType float_width(std::string_view suffix) const {
    if (suffix.empty() || suffix == "32") return DataType::Float(32);
    if (suffix == "16") return DataType::Float(16);
    if (suffix == "64") return DataType::Float(64);
    fail_here("invalid float suffix `f" + std::string(suffix) + "`; expected f, f16, f32 or f64");
  }

  // 3, -3, 0i64, 7i16, 1f, 2e-05f, 0.5f64; a decimal point or exponent
  // without a suffix reads as float32.
  Token read_number(bool negative, TokenKind previous) {
    size_t begin = pos_;
    while (is_digit(peek())) advance();
    bool has_fraction = false;
    // After `.` (a tuple index) only digits belong to the number: `%0.1.2`.
    if (previous != TokenKind::kPeriod) {
      if (peek() == '.' && is_digit(peek(1))) {
        has_fraction = true;
        advance();
        while (is_digit(peek())) advance();
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (is_digit(peek(1)) || ((peek(1) == '-' || peek(1) == '+') && is_digit(peek(2))))) {
        has_fraction = true;
        advance();
        advance();
        while (is_digit(peek())) advance();
      }
    }
    std::string literal = (negative ? "-" : "") + std::string(src_.substr(begin, pos_ - begin));
    std::string suffix;
    char kind = has_fraction ? 'f' : 'd';
    if (peek() == 'f' || peek() == 'i') {
      kind = peek();
      advance();
      size_t s = pos_;
      while (is_digit(peek())) advance();
      suffix = std::string(src_.substr(s, pos_ - s));
    }
    if (is_ident_start(peek()))
      fail_here("invalid number `" + literal + "`: unexpected `" + std::string(1, peek()) +
                "`; expected a suffix f, f16, f32, f64, i8, i16, i32 or i64");
    if (kind == 'f') {
      Token t = make(TokenKind::kFloat, literal);
      t.dtype = float_width(suffix);
      const char* first = literal.data();
      auto [ptr, ec] = std::from_chars(first, first + literal.size(), t.float_value);
      if (ec != std::errc() || ptr != first + literal.size()) fail_here("invalid floating-point number `" + literal + "`");
      return t;
    }
    Token t = make(TokenKind::kInt, literal);
    const char* first = literal.data();
    auto [ptr, ec] = std::from_chars(first, first + literal.size(), t.int_value);
    if (ec != std::errc() || ptr != first + literal.size())
      fail_here("integer `" + literal + "` does not fit in int64");
    int bits = 32;
    if (kind == 'i') {
      if (suffix != "8" && suffix != "16" && suffix != "32" && suffix != "64")
        fail_here("invalid integer suffix `i" + suffix + "`; expected i8, i16, i32 or i64");
      bits = std::stoi(suffix);
    } else if (t.int_value < std::numeric_limits<int32_t>::min() || t.int_value > std::numeric_limits<int32_t>::max()) {
      bits = 64;  // as TVM: an unsuffixed integer too large for int32 is int64
    }
    if (bits < 64) {
      int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
      if (t.int_value < lo || t.int_value > hi)
        fail_here("integer `" + literal + "` does not fit in int" + std::to_string(bits));
    }
    t.dtype = DataType::Int(bits);
    return t;
  }

  std::string_view src_;
  const std::string& name_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
  size_t start_ = 0;
  int start_line_ = 1;
  int start_col_ = 1;
};

}  // namespace

TokenizedText tokenize(std::string_view source, const std::string& source_name) {
  return Tokenizer(source, source_name).run();
}

std::string describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof: return "end of input";
    case TokenKind::kIdent: return "an identifier";
    case TokenKind::kLocal: return "a variable (`%name`)";
    case TokenKind::kGraph: return "a binding (`%N`)";
    case TokenKind::kGlobal: return "a global function (`@name`)";
    case TokenKind::kInt: return "an integer";
    case TokenKind::kFloat: return "a float";
    case TokenKind::kBool: return "a boolean";
    case TokenKind::kString: return "a string";
    case TokenKind::kMetaRef: return "a meta reference";
    case TokenKind::kVersion: return "a version header";
    case TokenKind::kLParen: return "`(`";
    case TokenKind::kRParen: return "`)`";
    case TokenKind::kLSquare: return "`[`";
    case TokenKind::kRSquare: return "`]`";
    case TokenKind::kLCurly: return "`{`";
    case TokenKind::kRCurly: return "`}`";
    case TokenKind::kComma: return "`,`";
    case TokenKind::kPeriod: return "`.`";
    case TokenKind::kColon: return "`:`";
    case TokenKind::kSemicolon: return "`;`";
    case TokenKind::kEqual: return "`=`";
    case TokenKind::kQuestion: return "`?`";
    case TokenKind::kArrow: return "`->`";
    case TokenKind::kFn: return "`fn`";
    case TokenKind::kLet: return "`let`";
    case TokenKind::kIf: return "`if`";
    case TokenKind::kElse: return "`else`";
    case TokenKind::kDef: return "`def`";
    case TokenKind::kFreeVar: return "`free_var`";
  }
  return "a token";
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kIdent: return "identifier `" + t.text + "`";
    case TokenKind::kLocal: return "`%" + t.text + "`";
    case TokenKind::kGraph: return "`%" + t.text + "`";
    case TokenKind::kGlobal: return "`@" + t.text + "`";
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kBool: return "`" + t.text + "`";
    case TokenKind::kString: return "string \"" + t.text + "\"";
    case TokenKind::kMetaRef: return "`meta[" + t.text + "][" + std::to_string(t.int_value) + "]`";
    default: return describe(t.kind);
  }
}

}  // namespace weft::text
