// Tokens of the Relay text format and the tokenizer that produces them.
//
// Whitespace and comments (`//` to end of line, nested `/* ... */`, which
// includes the printer's `/* ty=... */` annotations) are dropped here, except
// that the text of a block comment right after a token is kept on it as its
// note (the parser reads a type there when the program needs it); the
// `#[metadata]` section, which runs to the end of the text, is cut off and
// handed over whole.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/dtype.h"
#include "weft/error.h"

namespace weft::text {

enum class TokenKind : uint8_t {
  kEof,
  kIdent,     // conv2d, Tensor, float32, None (text)
  kLocal,     // %x (text = "x")
  kGraph,     // %0 (int_value = 0)
  kGlobal,    // @main (text = "main")
  kInt,       // 3, 0i64, -1 (int_value, dtype)
  kFloat,     // 1f, 2e-05f, 0.5f64 (float_value, dtype)
  kBool,      // True / False (int_value)
  kString,    // "NCHW" (text, unescaped)
  kMetaRef,   // meta[relay.Constant][0] (text = type key, int_value = index)
  kVersion,   // #[version = "0.0.5"] (text = "\"0.0.5\"")
  kLParen, kRParen, kLSquare, kRSquare, kLCurly, kRCurly,
  kComma, kPeriod, kColon, kSemicolon, kEqual, kQuestion, kArrow,
  kFn, kLet, kIf, kElse, kDef, kFreeVar,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  int line = 0;
  int column = 0;
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
  DataType dtype;
  /// The inside of the first `/* ... */` comment after the token, before the
  /// next one: " ty=Tensor[(2), float32] " after a call TVM printed.
  std::string note;
};

/// The tokens of `source` (ending with kEof) and the metadata section, if any.
struct TokenizedText {
  std::vector<Token> tokens;
  /// The JSON text after `#[metadata]`; empty when there is none.
  std::string metadata;
  SourceLoc metadata_loc;
};

/// Throws weft::Error "name:line:col: ..." on a character or literal that is
/// not part of the format (unterminated string or comment, bad number suffix).
TokenizedText tokenize(std::string_view source, const std::string& source_name);

/// How a token reads in "expected X, found Y": "`(`", "identifier `foo`",
/// "end of input", ...
std::string describe(const Token& token);
/// How a kind reads in "expected X": "`)`", "an identifier", ...
std::string describe(TokenKind kind);

}  // namespace weft::text
