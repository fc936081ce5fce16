// Discovery and the requirement graph (see plugin_catalog.h).
#include "plugin_catalog.h"

#include <algorithm>
#include <functional>
#include <set>

#include "plugin_library.h"

namespace weft::plugin_host {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestName = "weft-plugin.yaml";

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

}  // namespace

Error plugin_error(const PluginRecord& r, const std::string& message) {
  std::string who = r.manifest ? "plugin '" + r.manifest->name + "': " : "";
  return Error(who + message).at(SourceLoc{r.manifest_path.string(), 0, 0});
}

void fail(PluginRecord& r, const std::string& message) {
  r.state = PluginState::kFailed;
  r.error = plugin_error(r, message).what();
}

PluginCatalog::PluginCatalog(const std::vector<fs::path>& search_paths,
                             const std::map<std::string, std::string>& provider_choices)
    : search_paths_(search_paths) {
  std::set<fs::path> seen;
  for (const fs::path& root : search_paths_) {
    std::error_code exists_error;
    if (!fs::exists(root, exists_error)) {
      warnings_.push_back("plugin search path entry '" + root.string() + "' does not exist; no plugins come from it");
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
  index_providers(provider_choices);  // after the checks, so plugins that failed them yield their names
}

PluginRecord* PluginCatalog::find(std::string_view name) {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &records_[it->second];
}

PluginRecord& PluginCatalog::active(std::string_view name) {
  if (PluginRecord* r = find(name)) return *r;
  std::string searched;
  for (const auto& p : search_paths_) searched += (searched.empty() ? "" : ", ") + p.string();
  throw Error("no plugin named '" + std::string(name) + "' was found")
      .note("searched: " + (searched.empty() ? std::string("(no search paths)") : searched));
}

PluginRecord* PluginCatalog::provider(ProvidedKind kind, std::string_view name) {
  auto& index = providers_[static_cast<int>(kind)];
  auto it = index.find(name);
  return it == index.end() ? nullptr : &records_[it->second];
}

std::vector<PluginRecord*> PluginCatalog::active_records() {
  std::vector<PluginRecord*> out;
  for (auto& [name, index] : by_name_) out.push_back(&records_[index]);
  return out;
}

void PluginCatalog::read(const fs::path& path) {
  PluginRecord r;
  r.manifest_path = path;
  try {
    r.manifest = read_plugin_manifest(path);
  } catch (const Error& e) {
    r.state = PluginState::kFailed;
    r.error = e.what();
    records_.push_back(std::move(r));
    return;
  }
  const PluginManifest& m = *r.manifest;
  if (auto it = by_name_.find(m.name); it != by_name_.end()) {
    r.state = PluginState::kShadowed;
    r.error = "shadowed by " + records_[it->second].manifest_path.string() + ", found earlier in the search path";
    records_.push_back(std::move(r));
    return;
  }
  std::error_code ec;
  if (m.abi != WEFT_PLUGIN_ABI_MAJOR) {
    fail(r, "built for plugin ABI " + std::to_string(m.abi) + " (manifest `abi: " + std::to_string(m.abi) +
                "`), but this weft provides plugin ABI " + host_abi_text() +
                "; rebuild the plugin against this weft's SDK");
  } else if (!fs::is_regular_file(m.library_path, ec)) {
    fail(r, "library file missing: " + m.library_path.string() + " (manifest `library: " + m.library + "`)");
  }
  by_name_.emplace(m.name, records_.size());
  records_.push_back(std::move(r));
}

/// Missing requirements and requirement cycles fail the plugins involved.
void PluginCatalog::check_requirements() {
  for (auto& [name, index] : by_name_) {
    PluginRecord& r = records_[index];
    if (r.state == PluginState::kFailed) continue;
    for (const std::string& req : r.manifest->requires_) {
      if (!by_name_.count(req)) {
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
    for (const std::string& req : records_[i].manifest->requires_) {
      auto it = by_name_.find(req);
      if (it == by_name_.end()) continue;
      size_t j = it->second;
      if (mark[j] == kActive) {
        auto start = std::find(stack.begin(), stack.end(), j);
        std::string cycle;
        for (auto k = start; k != stack.end(); ++k) cycle += records_[*k].manifest->name + " -> ";
        cycle += records_[j].manifest->name;
        for (auto k = start; k != stack.end(); ++k) fail(records_[*k], "requirement cycle: " + cycle);
      } else if (mark[j] == kNew) {
        visit(j);
      }
    }
    stack.pop_back();
    mark[i] = kDone;
  };
  for (auto& [name, index] : by_name_) {
    if (mark[index] == kNew) visit(index);
  }
}

/// Maps every declared name to its plugin. When several plugins declare one
/// name, the config's choice (or else the first found that has not already
/// failed) keeps it and the others fail, naming both manifests.
void PluginCatalog::index_providers(const std::map<std::string, std::string>& provider_choices) {
  for (ProvidedKind kind : kAllProvidedKinds) {
    std::map<std::string, std::vector<size_t>> claims;
    for (auto& [name, index] : by_name_) {
      for (const std::string& n : records_[index].manifest->provided(kind)) claims[n].push_back(index);
    }
    for (auto& [name, candidates] : claims) {
      std::sort(candidates.begin(), candidates.end());  // discovery order
      // A plugin that already failed does not take a name from a working one.
      auto working = std::find_if(candidates.begin(), candidates.end(),
                                  [&](size_t c) { return records_[c].state != PluginState::kFailed; });
      size_t winner = working != candidates.end() ? *working : candidates.front();
      if (auto pick = provider_choices.find(name); pick != provider_choices.end()) {
        for (size_t c : candidates) {
          if (records_[c].manifest->name == pick->second) winner = c;
        }
      }
      providers_[static_cast<int>(kind)][name] = winner;
      for (size_t c : candidates) {
        if (c == winner || records_[c].state == PluginState::kFailed) continue;
        fail(records_[c], std::string(provided_kind_name(kind)) + " '" + name + "' is also provided by plugin '" +
                              records_[winner].manifest->name + "' (" + records_[winner].manifest_path.string() +
                              "); two plugins cannot provide one name: remove one, or pick one with `providers: {" +
                              name + ": <plugin>}` in the run config");
      }
    }
  }
}

}  // namespace weft::plugin_host
