// Finding run configs: a path as given, or an installed config by name, from
// the folder that follows from libweft_core's own location (as the plugin
// loader finds its default plugin folder).
#include <algorithm>

#include "config/run_config_values.h"
#include "install_layout.h"
#include "weft/run_config.h"

namespace weft {

namespace fs = std::filesystem;

fs::path installed_run_config_dir() {
  // A build tree serves its own configs only: an installed weft must not pick
  // up those of the tree it was built in.
  if (core_runs_from_build_tree(WEFT_BUILD_LIBRARY_DIR)) return fs::path(WEFT_CONFIG_BUILD_DIR);
  fs::path prefix = install_prefix();
  return prefix.empty() ? prefix : prefix / WEFT_CONFIG_INSTALL_SUBDIR;
}

std::vector<std::string> installed_run_config_names() {
  std::vector<std::string> names;
  std::error_code ec;
  fs::path dir = installed_run_config_dir();
  if (dir.empty() || !fs::is_directory(dir, ec)) return names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml" && entry.is_regular_file(ec)) names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

fs::path find_run_config(std::string_view name_or_path) {
  std::error_code ec;
  const fs::path given(name_or_path);
  if (!given.empty() && fs::exists(given, ec)) return given;
  // A bare name (no folder, no extension) names an installed config.
  const bool bare_name = !given.empty() && !given.has_parent_path() && !given.has_extension();
  const fs::path dir = installed_run_config_dir();
  if (bare_name && !dir.empty()) {
    fs::path installed = dir / (std::string(name_or_path) + ".yaml");
    if (fs::is_regular_file(installed, ec)) return installed;
  }
  std::vector<std::string> names = installed_run_config_names();
  Error error = bare_name ? Error("no run config named '" + std::string(name_or_path) + "'")
                          : Error("run config file '" + std::string(name_or_path) + "' does not exist");
  error.status(StatusCode::kNotFound);
  if (names.empty()) {
    error.note("no installed configs in " + dir.string());
  } else {
    error.expected("a config file, or the name of an installed one: " + join_names(names))
        .note("installed in " + dir.string());
  }
  throw error;
}

RunConfig default_run_config() { return load_run_config(find_run_config("default")); }

}  // namespace weft
