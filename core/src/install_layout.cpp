// libweft_core's own location and the install prefix (see install_layout.h).
#include "install_layout.h"

#include <dlfcn.h>

namespace weft {

namespace fs = std::filesystem;

fs::path core_library_dir() {
  // Found through one of the library's own symbols.
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&core_library_dir), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  fs::path lib = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : lib.parent_path();
}

fs::path install_prefix() {
  fs::path dir = core_library_dir();
  if (dir.empty()) return {};
  fs::path libdir(WEFT_INSTALL_LIBDIR);  // "lib", or "lib/x86_64-linux-gnu"
  for (auto it = libdir.begin(); it != libdir.end(); ++it) dir = dir.parent_path();
  return dir;
}

bool core_runs_from_build_tree(const fs::path& build_library_dir) {
  std::error_code ec;
  fs::path build = fs::weakly_canonical(build_library_dir, ec);
  return !ec && core_library_dir() == build;
}

}  // namespace weft
