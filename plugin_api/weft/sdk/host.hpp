// weft plugin SDK: the host function table, errors and statuses, dtypes.
// Part of plugin.hpp; include that.
#pragma once

#include <weft/plugin.h>
#include <weft/sdk/exception_status.hpp>

#include <exception>
#include <stdexcept>
#include <string>

namespace weft::sdk {

// ---- Host and errors --------------------------------------------------------

namespace detail {
inline const weft_host_api_t*& host_slot() {
  static const weft_host_api_t* host = nullptr;  // one per plugin (hidden visibility)
  return host;
}
}  // namespace detail

/// The host function table (valid once init has started).
inline const weft_host_api_t& host() { return *detail::host_slot(); }

/// An error with a plugin.h status code. Throw it (or any std::exception) from
/// plugin code; the SDK turns it into a status at the boundary.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, weft_status_code_t code = WEFT_STATUS_INVALID_ARGUMENT)
      : std::runtime_error(message), code_(code) {}
  weft_status_code_t code() const { return code_; }

 private:
  weft_status_code_t code_;
};

/// What a target throws to decline work it does not handle (a group in
/// compile): it crosses as UNSUPPORTED, and the build offers the group to the
/// next target instead of failing.
class Unsupported : public Error {
 public:
  explicit Unsupported(const std::string& message) : Error(message, WEFT_STATUS_UNSUPPORTED) {}
};

/// Throws Error for a non-OK status from the host (and frees it).
inline void check(weft_status_t status) {
  if (!status) return;
  std::string message = host().status_message(status);
  weft_status_code_t code = host().status_code(status);
  host().status_free(status);
  throw Error(message, code);
}

/// Runs plugin code, turning any exception into a status for the host: an
/// Error (Unsupported too) with its code, a standard exception as the host
/// maps its own (exception_status: std::bad_alloc is OUT_OF_MEMORY, CheckedInt's
/// std::overflow_error INVALID_ARGUMENT, any other INTERNAL with its what()).
template <typename F>
weft_status_t guarded(F&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return host().status_create(e.code(), e.what());
  } catch (const std::exception& e) {
    ExceptionStatus s = exception_status(e);
    return host().status_create(s.code, s.message.c_str());
  } catch (...) {
    return host().status_create(WEFT_STATUS_INTERNAL, "unknown exception in plugin");
  }
}

// ---- Data types ---------------------------------------------------------------

namespace dtype {
inline constexpr DLDataType float16{kDLFloat, 16, 1};
inline constexpr DLDataType float32{kDLFloat, 32, 1};
inline constexpr DLDataType float64{kDLFloat, 64, 1};
inline constexpr DLDataType bfloat16{kDLBfloat, 16, 1};
inline constexpr DLDataType int8{kDLInt, 8, 1};
inline constexpr DLDataType int16{kDLInt, 16, 1};
inline constexpr DLDataType int32{kDLInt, 32, 1};
inline constexpr DLDataType int64{kDLInt, 64, 1};
inline constexpr DLDataType uint8{kDLUInt, 8, 1};
inline constexpr DLDataType boolean{kDLUInt, 1, 1};
}  // namespace dtype

// DLDataType is DLPack's (global) type; these live here so the SDK adds nothing
// to the global namespace. `using namespace weft::sdk` or using-declarations bring them in.
inline bool operator==(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }
inline bool operator!=(DLDataType a, DLDataType b) { return !(a == b); }

/// Relay's spelling of a dtype: "float32", "bool", "int8x4".
inline std::string dtype_name(DLDataType t) {
  if (t.code == kDLUInt && t.bits == 1 && t.lanes == 1) return "bool";
  const char* base = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat" : "opaque";
  std::string out = base + std::to_string(t.bits);
  if (t.lanes != 1) out += "x" + std::to_string(t.lanes);
  return out;
}

}  // namespace weft::sdk
