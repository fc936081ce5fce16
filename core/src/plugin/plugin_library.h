// Internal: loading a plugin's library and the ABI check. The library is
// opened (RTLD_NOW | RTLD_LOCAL) and kept loaded until exit, since
// registries hold callbacks into it; its entry symbol must hand back a
// descriptor whose ABI major is the host's and whose minor is not newer.
#pragma once

#include <weft/plugin.h>

#include <string>

#include "weft/plugin_loader.h"

namespace weft::plugin_host {

/// The host's plugin ABI as "MAJOR.MINOR", for messages.
std::string host_abi_text();

/// Opens plugin `r`'s library and returns its checked descriptor (whose init
/// has not run). weft::Error naming the plugin when the library does not
/// load, lacks the entry symbol, or was built for an incompatible ABI.
const weft_plugin_descriptor_t& open_plugin_library(const PluginRecord& r);

}  // namespace weft::plugin_host
