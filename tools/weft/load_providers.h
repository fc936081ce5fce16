// Loading every plugin that provides one kind of thing, for the listings
// (`weft ops`, `weft targets`): a plugin that fails is reported, never fatal.
#pragma once

#include <functional>

#include "weft/error.h"
#include "weft/plugin_loader.h"

namespace weft::cli {

/// Loads each plugin in use whose manifest declares something of `kind`;
/// `failed` hears of each one that does not load, with its error.
inline void load_providers(ProvidedKind kind, const std::function<void(const PluginRecord&, const Error&)>& failed) {
  PluginLoader& loader = PluginLoader::global();
  for (const PluginRecord& r : loader.plugins()) {
    if (!r.manifest || r.state == PluginState::kShadowed || r.manifest->provided(kind).empty()) continue;
    try {
      loader.load(r.manifest->name);
    } catch (const Error& e) {
      failed(r, e);
    }
  }
}

}  // namespace weft::cli
