// The status a standard C++ exception crosses the plugin boundary as, in
// either direction: the SDK's guard (plugin code called by the host) and the
// host's (host functions called by a plugin) map them alike. Each side's own
// error type (sdk::Error, weft::Error) carries its code and is caught first;
// header-only, no weft types.
#pragma once

#include <weft/plugin.h>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace weft::sdk {

struct ExceptionStatus {
  weft_status_code_t code;
  std::string message;
};

///   std::bad_alloc, std::length_error  OUT_OF_MEMORY: an allocation failed or
///                                      asked for more than a container holds;
///   std::overflow_error                INVALID_ARGUMENT: CheckedInt's attr
///                                      arithmetic, an attr too large;
///   any other                          INTERNAL with its what(): a bug, since
///                                      bad input is reported as an Error.
inline ExceptionStatus exception_status(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::length_error*>(&e))
    return {WEFT_STATUS_OUT_OF_MEMORY, std::string("out of memory (") + e.what() + ")"};
  if (dynamic_cast<const std::overflow_error*>(&e)) return {WEFT_STATUS_INVALID_ARGUMENT, e.what()};
  return {WEFT_STATUS_INTERNAL, e.what()};
}

}  // namespace weft::sdk
