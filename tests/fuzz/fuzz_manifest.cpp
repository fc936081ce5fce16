// libFuzzer target for the plugin manifest reader (weft-plugin.yaml): any text
// gives a checked manifest or a weft::Error, never a crash, a sanitizer report
// or another exception (yaml-cpp's own included). A manifest that is accepted
// keeps its library inside the plugin's folder.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "weft/error.h"
#include "weft/plugin_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path folder = "/plugins/fuzz";
  weft::PluginManifest m;
  try {
    m = weft::parse_plugin_manifest(text, folder / "weft-plugin.yaml");
  } catch (const weft::Error&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  auto rel = m.library_path.lexically_relative(folder);
  if (rel.empty() || *rel.begin() == ".." || rel == ".") {
    std::fprintf(stderr, "accepted library '%s' resolves outside the plugin folder: %s\n", m.library.c_str(),
                 m.library_path.c_str());
    __builtin_trap();
  }
  return 0;
}
