// The plugin loader's public face (see weft/plugin_loader.h): search paths, the
// global loader and the registries' resolvers, and loading in requirement order.
#include "weft/plugin_loader.h"

#include <atomic>
#include <cstdlib>
#include <functional>

#include "install_layout.h"
#include "plugin_catalog.h"
#include "plugin_library.h"
#include "registrar.h"
#include "weft/error.h"

namespace weft {

namespace fs = std::filesystem;

std::string_view plugin_state_name(PluginState state) {
  switch (state) {
    case PluginState::kDiscovered: return "discovered";
    case PluginState::kLoaded: return "loaded";
    case PluginState::kFailed: return "failed";
    case PluginState::kShadowed: return "shadowed";
  }
  return "?";
}

std::string PluginRecord::display_name() const { return manifest ? manifest->name : manifest_path.string(); }

namespace {

/// <prefix>/<libdir>/weft/plugins, where libweft_core is <prefix>/<libdir>/libweft_core.so.
fs::path install_plugin_dir() {
  fs::path prefix = install_prefix();
  return prefix.empty() ? prefix : prefix / WEFT_PLUGIN_INSTALL_SUBDIR;
}

}  // namespace

// ---- Impl -------------------------------------------------------------------

/// The catalog (discovery, plugin_catalog.h) and loading in requirement order:
/// a plugin's library (plugin_library.h) opens after those it requires, then
/// registers (registrar.h).
struct PluginLoader::Impl {
  // Recursive: a plugin's init or callbacks may ask registries for names that
  // lead back here on the same thread.
  mutable std::recursive_mutex mutex;
  plugin_host::PluginCatalog catalog;

  explicit Impl(const PluginLoaderOptions& o) : catalog(o.search_paths, o.providers) {}

  void load(PluginRecord& r) {
    if (r.state == PluginState::kLoaded) return;
    if (r.state != PluginState::kDiscovered) throw Error(r.error);
    // Mark failed up front: a requirement that loops back here sees a failure, not a recursion.
    r.state = PluginState::kFailed;
    r.error = plugin_host::plugin_error(r, "is already being loaded (requirement cycle)").what();
    try {
      for (const std::string& req : r.manifest->requires_) {
        try {
          load(catalog.active(req));
        } catch (const Error& e) {
          throw plugin_host::plugin_error(r, "requires plugin '" + req + "', which failed to load").note(e.what());
        }
      }
      r.registered = plugin_host::register_plugin(r, plugin_host::open_plugin_library(r));
      r.state = PluginState::kLoaded;
      r.error.clear();
    } catch (const Error& e) {
      r.state = PluginState::kFailed;
      r.error = e.what();
      throw;
    } catch (const std::exception& e) {
      // Not a user error (a weft bug or out of memory), but still this plugin's failure only.
      plugin_host::fail(r, std::string("failed to load: ") + e.what());
      throw Error(r.error);
    }
  }
};

// ---- PluginLoader ---------------------------------------------------------------

namespace {

std::atomic<PluginLoader*> resolver_owner{nullptr};

/// Resolvers that ask whichever loader is installed (the global one by default).
void set_resolvers(std::function<bool(ProvidedKind, std::string_view)> resolve) {
  auto for_kind = [resolve](ProvidedKind kind) {
    return [resolve, kind](std::string_view name) { return resolve(kind, name); };
  };
  OpRegistry::global().set_resolver(for_kind(ProvidedKind::kOp));
  PassRegistry::global().set_resolver(for_kind(ProvidedKind::kPass));
  ModelRegistry::global().set_resolver(for_kind(ProvidedKind::kModel));
  InitializerRegistry::global().set_resolver(for_kind(ProvidedKind::kInitializer));
  TargetRegistry::global().set_resolver(for_kind(ProvidedKind::kTarget));
  FrontendRegistry::global().set_resolver(for_kind(ProvidedKind::kFrontend));
}

void install_global_resolvers() {
  set_resolvers([](ProvidedKind kind, std::string_view name) { return PluginLoader::global().resolve(kind, name); });
}

// Any program linking libweft_core resolves names through plugins without
// setting anything up; the global loader itself is only created on first miss.
const bool kResolversInstalled = (install_global_resolvers(), true);

PluginLoader*& global_slot() {
  static PluginLoader* loader = nullptr;  // leaked: libraries and registries outlive statics
  return loader;
}
std::mutex& global_mutex() {
  static auto* m = new std::mutex();
  return *m;
}

}  // namespace

PluginLoader::PluginLoader(PluginLoaderOptions options) : impl_(std::make_unique<Impl>(options)) {}

PluginLoader::~PluginLoader() {
  PluginLoader* self = this;
  if (resolver_owner.compare_exchange_strong(self, nullptr)) install_global_resolvers();
}

PluginLoader& PluginLoader::global() {
  std::lock_guard lock(global_mutex());
  PluginLoader*& loader = global_slot();
  if (!loader) loader = new PluginLoader(PluginLoaderOptions{default_search_paths(), {}});
  return *loader;
}

void PluginLoader::configure_global(const std::vector<fs::path>& config_paths,
                                    const std::map<std::string, std::string>& providers) {
  std::lock_guard lock(global_mutex());
  PluginLoader*& loader = global_slot();
  if (loader) {
    for (const PluginRecord& r : loader->plugins()) {
      if (r.state == PluginState::kLoaded) {
        throw Error("plugin paths from the run config must be set before any plugin is loaded")
            .note("plugin '" + r.display_name() + "' is already loaded");
      }
    }
  }
  // The old loader is kept alive (resolvers may still be running on it) and
  // reachable, so leak checkers see it as owned.
  static auto* retired = new std::vector<PluginLoader*>();
  if (loader) retired->push_back(loader);
  loader = new PluginLoader(PluginLoaderOptions{default_search_paths(config_paths), providers});
}

std::vector<fs::path> PluginLoader::default_search_paths(const std::vector<fs::path>& config_paths) {
  std::vector<fs::path> paths(config_paths.begin(), config_paths.end());
  if (const char* env = std::getenv("WEFT_PLUGIN_PATH")) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) paths.emplace_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  // The build tree's folder serves only a libweft_core running from that build
  // tree: an installed weft must not pick up plugins from where it was built.
  std::error_code ec;
  if (core_runs_from_build_tree(WEFT_BUILD_LIBRARY_DIR) && fs::is_directory(WEFT_PLUGIN_BUILD_DIR, ec)) {
    paths.emplace_back(fs::weakly_canonical(WEFT_PLUGIN_BUILD_DIR, ec));
  }
  if (fs::path installed = install_plugin_dir(); !installed.empty() && fs::is_directory(installed, ec)) {
    paths.push_back(installed);
  }
  return paths;
}

std::vector<PluginRecord> PluginLoader::plugins() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->catalog.records();
}

std::vector<std::string> PluginLoader::warnings() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->catalog.warnings();
}

std::optional<PluginRecord> PluginLoader::plugin(std::string_view name) const {
  std::lock_guard lock(impl_->mutex);
  if (const PluginRecord* r = impl_->catalog.find(name)) return *r;
  return std::nullopt;
}

void PluginLoader::load(std::string_view name) {
  std::lock_guard lock(impl_->mutex);
  impl_->load(impl_->catalog.active(name));
}

void PluginLoader::load_all() {
  std::lock_guard lock(impl_->mutex);
  for (PluginRecord* r : impl_->catalog.active_records()) {
    try {
      impl_->load(*r);
    } catch (const Error&) {
      // Recorded in the plugin's record; the others still load.
    }
  }
}

bool PluginLoader::resolve(ProvidedKind kind, std::string_view name) {
  std::lock_guard lock(impl_->mutex);
  PluginRecord* r = impl_->catalog.provider(kind, name);
  if (!r) return false;
  try {
    impl_->load(*r);
  } catch (Error& e) {
    throw e.note(std::string(provided_kind_name(kind)) + " '" + std::string(name) + "' comes from plugin '" +
                 r->display_name() + "', which failed to load");
  }
  return true;
}

std::optional<std::string> PluginLoader::provider(ProvidedKind kind, std::string_view name) const {
  std::lock_guard lock(impl_->mutex);
  if (const PluginRecord* r = impl_->catalog.provider(kind, name)) return r->manifest->name;
  return std::nullopt;
}

void PluginLoader::install_resolvers() {
  resolver_owner = this;
  set_resolvers([this](ProvidedKind kind, std::string_view name) { return resolve(kind, name); });
}

}  // namespace weft
