// Loading a plugin's library and the ABI check (see plugin_library.h).
#include "plugin_library.h"

#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <memory>
#include <vector>

#include "plugin_catalog.h"

namespace weft::plugin_host {

namespace {

/// Libraries are never unloaded: registries hold callbacks into them until exit.
std::vector<std::unique_ptr<boost::dll::shared_library>>& loaded_libraries() {
  static auto* libraries = new std::vector<std::unique_ptr<boost::dll::shared_library>>();
  return *libraries;
}

std::string version_text(uint32_t major, uint32_t minor) { return std::to_string(major) + "." + std::to_string(minor); }

/// The dlerror text inside Boost.DLL's message (the rest is noise: see TOOLCHAIN.md).
std::string dl_message(const std::string& what) {
  const std::string marker = "dlerror system message: ";
  auto start = what.find(marker);
  auto end = what.rfind("): ");
  if (start == std::string::npos || end == std::string::npos || end < start) return what;
  start += marker.size();
  return what.substr(start, end - start);
}

}  // namespace

std::string host_abi_text() { return version_text(WEFT_PLUGIN_ABI_MAJOR, WEFT_PLUGIN_ABI_MINOR); }

const weft_plugin_descriptor_t& open_plugin_library(const PluginRecord& r) {
  const PluginManifest& m = *r.manifest;
  auto lib = std::make_unique<boost::dll::shared_library>();
  try {
    lib->load(m.library_path.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw plugin_error(r, "cannot load library " + m.library_path.string() + ": " + dl_message(e.what()));
  }
  boost::dll::shared_library& library = *lib;
  loaded_libraries().push_back(std::move(lib));
  if (!library.has(WEFT_PLUGIN_ENTRY_SYMBOL)) {
    throw plugin_error(r, "library " + m.library_path.string() + " does not export the entry symbol '" +
                              WEFT_PLUGIN_ENTRY_SYMBOL + "'")
        .note("define it with WEFT_PLUGIN_ENTRY(init) from weft/plugin.h or WEFT_PLUGIN(registrar) from weft/plugin.hpp");
  }
  auto entry = library.get<const weft_plugin_descriptor_t*(uint32_t, uint32_t)>(WEFT_PLUGIN_ENTRY_SYMBOL);
  const weft_plugin_descriptor_t* d = entry(WEFT_PLUGIN_ABI_MAJOR, WEFT_PLUGIN_ABI_MINOR);
  if (!d || d->struct_size < offsetof(weft_plugin_descriptor_t, init) + sizeof(d->init) || !d->init) {
    throw plugin_error(r, "its entry symbol returned no valid plugin descriptor");
  }
  std::string plugin_abi = version_text(d->abi_major, d->abi_minor);
  if (d->abi_major != WEFT_PLUGIN_ABI_MAJOR) {
    throw plugin_error(r, "library was built against plugin ABI " + plugin_abi + ", but this weft provides " +
                              host_abi_text() + " (majors differ); rebuild the plugin against this weft's SDK");
  }
  if (d->abi_minor > WEFT_PLUGIN_ABI_MINOR) {
    throw plugin_error(r, "library was built against plugin ABI " + plugin_abi + ", newer than this weft's " +
                              host_abi_text() + "; upgrade weft or rebuild the plugin against this weft's SDK");
  }
  return *d;
}

}  // namespace weft::plugin_host
