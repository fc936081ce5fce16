// Formatting of user-facing errors and internal invariant failures.
#include "weft/error.h"

#include <utility>

namespace weft {

std::string SourceLoc::str() const {
  std::string out = file;
  if (line > 0) {
    if (!out.empty()) out += ':';
    out += std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  return out;
}

Error& Error::op(std::string name) {
  op_ = std::move(name);
  format();
  return *this;
}

Error& Error::attr(std::string name) {
  attr_ = std::move(name);
  format();
  return *this;
}

Error& Error::expected(std::string what) {
  expected_ = std::move(what);
  format();
  return *this;
}

Error& Error::at(SourceLoc loc) {
  loc_ = std::move(loc);
  format();
  return *this;
}

Error& Error::in(std::string expr_text) {
  expr_ = std::move(expr_text);
  format();
  return *this;
}

Error& Error::note(std::string text) {
  if (!notes_.empty()) notes_ += '\n';
  notes_ += "  note: " + text;
  format();
  return *this;
}

Error& Error::status(StatusCode code) {
  status_ = code;
  return *this;
}

// "file:3:7: op nn.conv2d, attr padding: padding has 3 values; expected 1, 2 or 4 ints"
// followed by the offending expression and notes on their own lines.
void Error::format() {
  std::string out;
  if (loc_.known()) out += loc_.str() + ": ";
  std::string where;
  if (!op_.empty()) where += "op " + op_;
  if (!attr_.empty()) where += (where.empty() ? "attr " : ", attr ") + attr_;
  if (!where.empty()) out += where + ": ";
  out += message_;
  if (!expected_.empty()) out += "; expected " + expected_;
  if (!expr_.empty()) out += "\n  in: " + expr_;
  if (!notes_.empty()) out += '\n' + notes_;
  formatted_ = std::move(out);
}

InternalError::InternalError(const char* file, int line, const std::string& what)
    : std::logic_error(std::string("internal error (a bug in weft) at ") + file + ":" + std::to_string(line) +
                       ": " + what) {}

}  // namespace weft
