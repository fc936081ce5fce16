// The plugin loader: finds manifests, checks them, and loads a plugin's
// library (Boost.DLL, RTLD_NOW | RTLD_LOCAL) the first time something it
// provides is asked for, after the plugins it requires.
//
// Discovery order (earlier wins when two folders hold a plugin of the same
// name): the run config's plugin paths, WEFT_PLUGIN_PATH (colon-separated),
// the build tree's plugin folder (when libweft_core runs from the build tree),
// then <prefix>/lib/weft/plugins found from libweft_core's own location. Each path is a manifest file, a plugin folder
// holding weft-plugin.yaml, or a folder of plugin folders.
//
// A plugin that fails (bad manifest, missing library or symbol, ABI mismatch,
// failing init, ...) is recorded with its error; the others keep working.
// Libraries stay loaded until the process exits.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/plugin_manifest.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

enum class PluginState { kDiscovered, kLoaded, kFailed, kShadowed };
/// "discovered", "loaded", "failed", "shadowed".
std::string_view plugin_state_name(PluginState state);

/// One manifest found during discovery and what became of it.
struct PluginRecord {
  std::filesystem::path manifest_path;
  /// Set when the manifest parsed; otherwise only manifest_path and error are.
  std::optional<PluginManifest> manifest;
  PluginState state = PluginState::kDiscovered;
  /// Why it failed (or which plugin shadows it), with the manifest's path.
  std::string error;
  /// Names it registered, by kind, once loaded.
  PerProvidedKind<std::vector<std::string>> registered;

  /// The plugin's name, or the manifest's path when it did not parse.
  std::string display_name() const;
};

struct PluginLoaderOptions {
  /// Where to look, in order (see the file comment for what a path may be).
  std::vector<std::filesystem::path> search_paths;
  /// name -> plugin to use when several plugins provide that name.
  std::map<std::string, std::string> providers;
};

class PluginLoader {
 public:
  /// Discovers and checks manifests at once; loads nothing.
  explicit PluginLoader(PluginLoaderOptions options);
  ~PluginLoader();
  PluginLoader(const PluginLoader&) = delete;
  PluginLoader& operator=(const PluginLoader&) = delete;

  /// The process-wide loader over default_search_paths(), created on first
  /// use. The op, pass, model, initializer, target and frontend registries ask
  /// it for names they do not know.
  static PluginLoader& global();
  /// Re-runs the global loader's discovery with the run config's paths first
  /// (and its provider choices). weft::Error once any plugin has been loaded.
  static void configure_global(const std::vector<std::filesystem::path>& config_paths,
                               const std::map<std::string, std::string>& providers = {});
  /// config_paths, then WEFT_PLUGIN_PATH, the build tree's plugin folder (for
  /// a libweft_core in that build tree) and the install prefix's, if they exist.
  static std::vector<std::filesystem::path> default_search_paths(
      const std::vector<std::filesystem::path>& config_paths = {});

  /// Every manifest found, in discovery order.
  std::vector<PluginRecord> plugins() const;
  /// Problems with the search path itself, which fail no plugin: an entry
  /// that does not exist (a typo in WEFT_PLUGIN_PATH), named in the text.
  std::vector<std::string> warnings() const;
  /// The record of the plugin called `name` that is in use (not shadowed).
  std::optional<PluginRecord> plugin(std::string_view name) const;

  /// Loads plugin `name` after its requirements. weft::Error (naming the
  /// manifest) if it is unknown or fails; a failure is remembered.
  void load(std::string_view name);
  /// Tries to load every plugin; failures are recorded, never thrown.
  void load_all();
  /// Loads the plugin whose manifest declares `name` of `kind`. False if no
  /// manifest declares it; weft::Error if its plugin fails to load.
  bool resolve(ProvidedKind kind, std::string_view name);
  /// The plugin that provides `name` of `kind`, if a manifest declares it.
  std::optional<std::string> provider(ProvidedKind kind, std::string_view name) const;

  /// Points every registry's resolver at this loader (the global loader does
  /// this for itself; tests use it to install their own).
  void install_resolvers();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft

#pragma GCC visibility pop
