// Parsing layouts with the core's error type.
#include "weft/layout.h"

#include <string>

#include "weft/error.h"

namespace weft {

Layout parse_layout(std::string_view name, std::string_view where) {
  try {
    return Layout(name);
  } catch (const LayoutError& e) {
    throw Error(std::string(where) + ": " + e.what()).expected("a layout such as NCHW, NHWC or NCHW16c");
  }
}

}  // namespace weft
