// Data layouts ("NCHW", "NCHW16c", "OIHW16i16o") for the core: the SDK's
// header-only Layout and BijectiveLayout (one parser for the core and the
// plugins), and parsing that reports a bad layout as a weft::Error.
#pragma once

#include <string_view>

#include <weft/sdk/layout.hpp>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

using sdk::BijectiveLayout;
using sdk::Layout;
using sdk::LayoutAxis;
using sdk::LayoutError;

/// Parses `name`; a weft::Error naming `where` (a pass option, an attr) when it is not a layout.
Layout parse_layout(std::string_view name, std::string_view where);

}  // namespace weft

#pragma GCC visibility pop
