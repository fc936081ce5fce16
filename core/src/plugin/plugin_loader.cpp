// Discovery, checks and lazy loading of plugins (see weft/plugin_loader.h).
#include "weft/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <set>

#include "handles.h"
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

constexpr const char* kManifestName = "weft-plugin.yaml";

/// Libraries are never unloaded: registries hold callbacks into them until exit.
std::vector<std::unique_ptr<boost::dll::shared_library>>& loaded_libraries() {
  static auto* libraries = new std::vector<std::unique_ptr<boost::dll::shared_library>>();
  return *libraries;
}

std::string version_text(uint32_t major, uint32_t minor) { return std::to_string(major) + "." + std::to_string(minor); }
const std::string kHostAbi = version_text(WEFT_PLUGIN_ABI_MAJOR, WEFT_PLUGIN_ABI_MINOR);

/// The dlerror text inside Boost.DLL's message (the rest is noise: see TOOLCHAIN.md).
std::string dl_message(const std::string& what) {
  const std::string marker = "dlerror system message: ";
  auto start = what.find(marker);
  auto end = what.rfind("): ");
  if (start == std::string::npos || end == std::string::npos || end < start) return what;
  start += marker.size();
  return what.substr(start, end - start);
}

/// Manifests under one search path, sorted for a stable order.
std::vector<fs::path> manifests_under(const fs::path& root) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) return {root};
  if (!fs::is_directory(root, ec)) return {};
  if (fs::is_regular_file(root / kManifestName, ec)) return {root / kManifestName};
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / kManifestName, ec)) {
      found.push_back(entry.path() / kManifestName);
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

/// The folder of libweft_core itself, found through one of its own symbols.
fs::path core_library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&core_library_dir), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  fs::path lib = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : lib.parent_path();
}

/// <prefix>/<libdir>/weft/plugins, where libweft_core is <prefix>/<libdir>/libweft_core.so.
fs::path install_plugin_dir() {
  fs::path dir = core_library_dir();
  if (dir.empty()) return {};
  fs::path subdir(WEFT_PLUGIN_INSTALL_SUBDIR);  // <libdir>/weft/plugins
  fs::path libdir = subdir.parent_path().parent_path();
  for (auto it = libdir.begin(); it != libdir.end(); ++it) dir = dir.parent_path();
  return dir / subdir;
}

}  // namespace

// ---- Impl -------------------------------------------------------------------

struct PluginLoader::Impl {
  PluginLoaderOptions options;
  // Recursive: a plugin's init or callbacks may ask registries for names that
  // lead back here on the same thread.
  mutable std::recursive_mutex mutex;
  std::vector<PluginRecord> records;
  std::map<std::string, size_t, std::less<>> by_name;  // active (not shadowed) records
  std::array<std::map<std::string, size_t, std::less<>>, 6> providers;
  std::vector<std::string> warnings;

  explicit Impl(PluginLoaderOptions o) : options(std::move(o)) { discover(); }

  static Error plugin_error(const PluginRecord& r, const std::string& message) {
    std::string who = r.manifest ? "plugin '" + r.manifest->name + "': " : "";
    return Error(who + message).at(SourceLoc{r.manifest_path.string(), 0, 0});
  }
  static void fail(PluginRecord& r, const std::string& message) {
    r.state = PluginState::kFailed;
    r.error = plugin_error(r, message).what();
  }

  void discover() {
    std::set<fs::path> seen;
    for (const fs::path& root : options.search_paths) {
      std::error_code exists_error;
      if (!fs::exists(root, exists_error)) {
        warnings.push_back("plugin search path entry '" + root.string() + "' does not exist; no plugins come from it");
        continue;
      }
      for (const fs::path& manifest : manifests_under(root)) {
        std::error_code ec;
        fs::path canonical = fs::weakly_canonical(manifest, ec);
        if (!seen.insert(ec ? manifest : canonical).second) continue;
        read(manifest);
      }
    }
    check_requirements();
    index_providers();  // after the checks, so plugins that failed them yield their names
  }

  void read(const fs::path& path) {
    PluginRecord r;
    r.manifest_path = path;
    try {
      r.manifest = read_plugin_manifest(path);
    } catch (const Error& e) {
      r.state = PluginState::kFailed;
      r.error = e.what();
      records.push_back(std::move(r));
      return;
    }
    const PluginManifest& m = *r.manifest;
    if (auto it = by_name.find(m.name); it != by_name.end()) {
      r.state = PluginState::kShadowed;
      r.error = "shadowed by " + records[it->second].manifest_path.string() + ", found earlier in the search path";
      records.push_back(std::move(r));
      return;
    }
    std::error_code ec;
    if (m.abi != WEFT_PLUGIN_ABI_MAJOR) {
      fail(r, "built for plugin ABI " + std::to_string(m.abi) + " (manifest `abi: " + std::to_string(m.abi) +
                  "`), but this weft provides plugin ABI " + kHostAbi + "; rebuild the plugin against this weft's SDK");
    } else if (!fs::is_regular_file(m.library_path, ec)) {
      fail(r, "library file missing: " + m.library_path.string() + " (manifest `library: " + m.library + "`)");
    }
    by_name.emplace(m.name, records.size());
    records.push_back(std::move(r));
  }

  /// Maps every declared name to its plugin. When several plugins declare one
  /// name, the config's choice (or else the first found that has not already
  /// failed) keeps it and the others fail, naming both manifests.
  void index_providers() {
    for (ProvidedKind kind : kAllProvidedKinds) {
      std::map<std::string, std::vector<size_t>> claims;
      for (auto& [name, index] : by_name) {
        for (const std::string& n : records[index].manifest->provided(kind)) claims[n].push_back(index);
      }
      for (auto& [name, candidates] : claims) {
        std::sort(candidates.begin(), candidates.end());  // discovery order
        // A plugin that already failed does not take a name from a working one.
        auto working = std::find_if(candidates.begin(), candidates.end(),
                                    [&](size_t c) { return records[c].state != PluginState::kFailed; });
        size_t winner = working != candidates.end() ? *working : candidates.front();
        if (auto pick = options.providers.find(name); pick != options.providers.end()) {
          for (size_t c : candidates) {
            if (records[c].manifest->name == pick->second) winner = c;
          }
        }
        providers[static_cast<int>(kind)][name] = winner;
        for (size_t c : candidates) {
          if (c == winner || records[c].state == PluginState::kFailed) continue;
          fail(records[c], std::string(provided_kind_name(kind)) + " '" + name + "' is also provided by plugin '" +
                               records[winner].manifest->name + "' (" + records[winner].manifest_path.string() +
                               "); two plugins cannot provide one name: remove one, or pick one with `providers: {" +
                               name + ": <plugin>}` in the run config");
        }
      }
    }
  }

  /// Missing requirements and requirement cycles fail the plugins involved.
  void check_requirements() {
    for (auto& [name, index] : by_name) {
      PluginRecord& r = records[index];
      if (r.state == PluginState::kFailed) continue;
      for (const std::string& req : r.manifest->requires_) {
        if (!by_name.count(req)) {
          fail(r, "requires plugin '" + req + "', which was not found in the plugin search path");
          break;
        }
      }
    }
    // Depth-first search; a back edge closes a cycle, and every plugin on it fails.
    enum Mark { kNew, kActive, kDone };
    std::map<size_t, Mark> mark;
    std::vector<size_t> stack;
    std::function<void(size_t)> visit = [&](size_t i) {
      mark[i] = kActive;
      stack.push_back(i);
      for (const std::string& req : records[i].manifest->requires_) {
        auto it = by_name.find(req);
        if (it == by_name.end()) continue;
        size_t j = it->second;
        if (mark[j] == kActive) {
          auto start = std::find(stack.begin(), stack.end(), j);
          std::string cycle;
          for (auto k = start; k != stack.end(); ++k) cycle += records[*k].manifest->name + " -> ";
          cycle += records[j].manifest->name;
          for (auto k = start; k != stack.end(); ++k) fail(records[*k], "requirement cycle: " + cycle);
        } else if (mark[j] == kNew) {
          visit(j);
        }
      }
      stack.pop_back();
      mark[i] = kDone;
    };
    for (auto& [name, index] : by_name) {
      if (mark[index] == kNew) visit(index);
    }
  }

  PluginRecord& active(std::string_view name) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      std::string searched;
      for (const auto& p : options.search_paths) searched += (searched.empty() ? "" : ", ") + p.string();
      throw Error("no plugin named '" + std::string(name) + "' was found")
          .note("searched: " + (searched.empty() ? std::string("(no search paths)") : searched));
    }
    return records[it->second];
  }

  void load(PluginRecord& r) {
    if (r.state == PluginState::kLoaded) return;
    if (r.state != PluginState::kDiscovered) throw Error(r.error);
    // Mark failed up front: a requirement that loops back here sees a failure, not a recursion.
    r.state = PluginState::kFailed;
    r.error = plugin_error(r, "is already being loaded (requirement cycle)").what();
    try {
      for (const std::string& req : r.manifest->requires_) {
        try {
          load(active(req));
        } catch (const Error& e) {
          throw plugin_error(r, "requires plugin '" + req + "', which failed to load").note(e.what());
        }
      }
      load_library(r);
      r.state = PluginState::kLoaded;
      r.error.clear();
    } catch (const Error& e) {
      r.state = PluginState::kFailed;
      r.error = e.what();
      throw;
    } catch (const std::exception& e) {
      // Not a user error (a weft bug or out of memory), but still this plugin's failure only.
      r.state = PluginState::kFailed;
      r.error = plugin_error(r, std::string("failed to load: ") + e.what()).what();
      throw Error(r.error);
    }
  }

  void load_library(PluginRecord& r) {
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
                                kHostAbi + " (majors differ); rebuild the plugin against this weft's SDK");
    }
    if (d->abi_minor > WEFT_PLUGIN_ABI_MINOR) {
      throw plugin_error(r, "library was built against plugin ABI " + plugin_abi + ", newer than this weft's " +
                                kHostAbi + "; upgrade weft or rebuild the plugin against this weft's SDK");
    }
    weft_registrar_s registrar(m);
    weft_status_t status = nullptr;
    try {
      status = d->init(plugin_host::host_api(), &registrar);
    } catch (const std::exception& e) {
      throw plugin_error(r, std::string("init threw a C++ exception across the C boundary: ") + e.what());
    } catch (...) {
      throw plugin_error(r, "init threw an exception across the C boundary");
    }
    registrar.open = false;
    if (auto message = plugin_host::take_error(status)) throw plugin_error(r, "init failed: " + *message);
    try {
      plugin_host::commit_registrations(registrar);
    } catch (const Error& e) {
      throw plugin_error(r, e.what());
    }
    r.registered = registrar.names;
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

PluginLoader::PluginLoader(PluginLoaderOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

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
  fs::path build_dir = fs::weakly_canonical(WEFT_PLUGIN_BUILD_DIR, ec);
  if (!ec && core_library_dir() == build_dir.parent_path().parent_path() && fs::is_directory(build_dir, ec)) {
    paths.push_back(build_dir);
  }
  if (fs::path installed = install_plugin_dir(); !installed.empty() && fs::is_directory(installed, ec)) {
    paths.push_back(installed);
  }
  return paths;
}

std::vector<PluginRecord> PluginLoader::plugins() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->records;
}

std::vector<std::string> PluginLoader::warnings() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->warnings;
}

std::optional<PluginRecord> PluginLoader::plugin(std::string_view name) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->by_name.find(name);
  if (it == impl_->by_name.end()) return std::nullopt;
  return impl_->records[it->second];
}

void PluginLoader::load(std::string_view name) {
  std::lock_guard lock(impl_->mutex);
  impl_->load(impl_->active(name));
}

void PluginLoader::load_all() {
  std::lock_guard lock(impl_->mutex);
  for (auto& [name, index] : impl_->by_name) {
    try {
      impl_->load(impl_->records[index]);
    } catch (const Error&) {
      // Recorded in the plugin's record; the others still load.
    }
  }
}

bool PluginLoader::resolve(ProvidedKind kind, std::string_view name) {
  std::lock_guard lock(impl_->mutex);
  auto& index = impl_->providers[static_cast<int>(kind)];
  auto it = index.find(name);
  if (it == index.end()) return false;
  impl_->load(impl_->records[it->second]);
  return true;
}

std::optional<std::string> PluginLoader::provider(ProvidedKind kind, std::string_view name) const {
  std::lock_guard lock(impl_->mutex);
  auto& index = impl_->providers[static_cast<int>(kind)];
  auto it = index.find(name);
  if (it == index.end()) return std::nullopt;
  return impl_->records[it->second].manifest->name;
}

void PluginLoader::install_resolvers() {
  resolver_owner = this;
  set_resolvers([this](ProvidedKind kind, std::string_view name) { return resolve(kind, name); });
}

}  // namespace weft
