// Errors: one type for what users did wrong, one for what weft did wrong.
//
// weft::Error is the user-facing failure: a bad attr, shape, program, manifest or
// file. It carries what failed, where (op, expression, file:line:col when known)
// and what was expected, and prints them in that order. InternalError is a broken
// invariant inside weft (a bug); it is raised by WEFT_ICHECK and never used for
// bad input.
#pragma once

#include <stdexcept>
#include <string>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// A position in a source file (1-based line and column; 0 = unknown).
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;

  bool known() const { return !file.empty() || line > 0; }
  /// "file:line:col", omitting what is unknown.
  std::string str() const;
};

/// What kind of failure an Error is. The values are plugin.h's
/// weft_status_code_t, so a code crosses the plugin boundary unchanged both
/// ways: a plugin's status becomes an Error with its code, and an Error thrown
/// in a host function reaches the plugin as a status with its code.
enum class StatusCode : int {
  kInvalidArgument = 1,  // bad input: shapes, attrs, dtypes (the default)
  kNotFound = 2,         // an unknown op, attr or name
  kTypeMismatch = 3,     // a handle or value of the wrong kind
  kUnsupported = 4,      // valid input this implementation does not handle
  kInternal = 5,         // a bug, reported through a status
  kOutOfMemory = 6,      // an allocation failed (std::bad_alloc across the plugin boundary)
};

class Error : public std::exception {
 public:
  explicit Error(std::string message) : message_(std::move(message)) { format(); }

  /// Builder-style context. Each returns *this so errors read as one expression:
  ///   throw Error("padding has 3 values").op("nn.conv2d").attr("padding").expected("1, 2 or 4 ints");
  Error& op(std::string name);
  Error& attr(std::string name);
  Error& expected(std::string what);
  Error& at(SourceLoc loc);
  Error& in(std::string expr_text);  // the offending expression, printed
  Error& note(std::string text);     // any further line of explanation
  Error& status(StatusCode code);    // what kind of failure (not printed)

  const char* what() const noexcept override { return formatted_.c_str(); }
  const std::string& message() const { return message_; }
  const std::string& op_name() const { return op_; }
  const std::string& attr_name() const { return attr_; }
  const std::string& expected_form() const { return expected_; }
  const SourceLoc& loc() const { return loc_; }
  StatusCode status() const { return status_; }

 private:
  void format();

  std::string message_, op_, attr_, expected_, expr_, notes_;
  SourceLoc loc_;
  StatusCode status_ = StatusCode::kInvalidArgument;
  std::string formatted_;
};

/// A broken internal invariant: a bug in weft, not in the user's input.
class InternalError : public std::logic_error {
 public:
  InternalError(const char* file, int line, const std::string& what);
};

}  // namespace weft

/// Internal invariant check. For user input, throw weft::Error instead.
#define WEFT_ICHECK(cond, msg)                                              \
  do {                                                                      \
    if (!(cond)) throw ::weft::InternalError(__FILE__, __LINE__, std::string("check failed: " #cond ": ") + (msg)); \
  } while (0)

#pragma GCC visibility pop
