// `weft plugins`: every manifest found, where, what it is and whether it loads.
#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.h"
#include "json_output.h"
#include "weft/plugin_loader.h"

namespace weft::cli {

namespace {

nlohmann::json to_json(const PluginRecord& r) {
  nlohmann::json j;
  j["manifest"] = r.manifest_path.string();
  j["status"] = std::string(plugin_state_name(r.state));
  j["error"] = r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error);
  if (r.manifest) {
    const PluginManifest& m = *r.manifest;
    j["name"] = m.name;
    j["version"] = m.version;
    j["kind"] = m.kind;
    j["abi"] = m.abi;
    j["library"] = m.library_path.string();
    j["requires"] = m.requires_;
    j["description"] = m.description;
    nlohmann::json provides = nlohmann::json::object();
    for (ProvidedKind kind : kAllProvidedKinds) {
      if (!m.provided(kind).empty()) provides[std::string(provided_kind_key(kind))] = m.provided(kind);
    }
    j["provides"] = provides;
  } else {
    j["name"] = nullptr;
  }
  return j;
}

void print_text(const std::vector<PluginRecord>& records) {
  for (const PluginRecord& r : records) {
    std::cout << r.display_name() << "  [" << plugin_state_name(r.state) << "]\n";
    std::cout << "  manifest: " << r.manifest_path.string() << "\n";
    if (r.manifest) {
      const PluginManifest& m = *r.manifest;
      std::cout << "  version " << m.version << ", kind " << m.kind << ", abi " << m.abi << "\n";
      if (!m.description.empty()) std::cout << "  " << m.description << "\n";
      if (!m.requires_.empty()) {
        std::cout << "  requires:";
        for (const auto& req : m.requires_) std::cout << " " << req;
        std::cout << "\n";
      }
      for (ProvidedKind kind : kAllProvidedKinds) {
        if (m.provided(kind).empty()) continue;
        std::cout << "  " << provided_kind_key(kind) << ":";
        for (const auto& n : m.provided(kind)) std::cout << " " << n;
        std::cout << "\n";
      }
    }
    if (!r.error.empty()) std::cout << "  error: " << r.error << "\n";
  }
  if (records.empty()) std::cout << "no plugin manifests found (set WEFT_PLUGIN_PATH)\n";
}

}  // namespace

void add_plugins_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plugins", "List every plugin manifest found, its status and any error");
  auto json = std::make_shared<bool>(false);
  auto no_load = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print one JSON array");
  cmd->add_flag("--no-load", *no_load, "Only read manifests; do not load libraries");
  auto check = std::make_shared<std::string>();
  cmd->add_option("--check", *check,
                  "Load the plugin of this name (and what it requires): silent when it loads; its error and a "
                  "non-zero exit when it is not found or does not load (weft_add_plugin runs it after each build)");
  cmd->callback([json, no_load, check] {
    PluginLoader& loader = PluginLoader::global();
    if (!*no_load) loader.load_all();
    std::vector<PluginRecord> records = loader.plugins();
    if (!check->empty()) {
      std::vector<PluginRecord> named;
      for (const PluginRecord& r : records)
        if (r.manifest && r.manifest->name == *check && r.state != PluginState::kShadowed) named.push_back(r);
      if (named.empty()) {
        std::cerr << "error: no plugin named '" << *check << "' in the plugin search path\n";
        throw CLI::RuntimeError(1);
      }
      if (named.front().state != PluginState::kFailed) return;
      std::cerr << "error: plugin '" << *check << "' (" << named.front().manifest_path.string()
                << ") does not load: " << named.front().error << "\n";
      throw CLI::RuntimeError(1);
    }
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const PluginRecord& r : records) out.push_back(to_json(r));
      print_json(std::cout, out);
    } else {
      print_text(records);
    }
    // Non-zero when any plugin is broken, so scripts notice; the listing is complete either way.
    for (const PluginRecord& r : records) {
      if (r.state == PluginState::kFailed) throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace weft::cli
