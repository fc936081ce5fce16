// `weft targets`: every target, the plugin that provides it, its devices and
// the options a run config may give it; target plugins that fail to load
// are listed with their error, as `weft plugins` lists them.
#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.h"
#include "json_output.h"
#include "load_providers.h"
#include "weft/target.h"

namespace weft::cli {

namespace {

/// One line of the listing: a registered target, or a name a broken plugin declares.
struct TargetEntry {
  std::string name;
  std::string plugin;  // "built-in" for targets of the core
  std::string status;  // available | unavailable (it cannot run here) | failed (its plugin did not load)
  std::string error;
  const TargetDef* def = nullptr;
  std::vector<TargetDevice> devices;
};

std::string_view device_type_name(DLDeviceType type) {
  switch (type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLROCM: return "rocm";
    default: return "other";
  }
}

/// A registered target, with the devices an instance of default options drives.
TargetEntry describe(const TargetDef& def) {
  TargetEntry e{def.name, def.plugin.empty() ? "built-in" : def.plugin, "available", "", &def, {}};
  try {
    e.devices = def.create(def.options.normalize(def.name, empty_attrs()))->devices();
  } catch (const Error& err) {
    e.status = "unavailable";
    e.error = err.what();
  }
  return e;
}

nlohmann::json to_json(const TargetEntry& e) {
  nlohmann::json j{{"name", e.name}, {"plugin", e.plugin}, {"status", e.status}};
  j["error"] = e.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.error);
  j["description"] = e.def ? e.def->description : "";
  j["device_type"] =
      e.def ? nlohmann::json(std::string(device_type_name(e.def->device_type))) : nlohmann::json(nullptr);
  j["devices"] = nlohmann::json::array();
  for (const TargetDevice& d : e.devices) {
    j["devices"].push_back({{"id", d.id}, {"name", d.name}, {"properties", d.properties}});
  }
  j["options"] = nlohmann::json::array();
  if (e.def) {
    for (const AttrField& f : e.def->options.fields()) {
      nlohmann::json o{{"name", f.name}, {"type", std::string(attr_type_name(f.type))}, {"doc", f.doc}};
      o["default"] = f.default_value ? nlohmann::json(f.default_value->str()) : nlohmann::json(nullptr);
      j["options"].push_back(o);
    }
  }
  return j;
}

void print_text(const TargetEntry& e) {
  std::cout << e.name << "  (plugin " << e.plugin << ") [" << e.status << "]\n";
  if (e.def && !e.def->description.empty()) std::cout << "  " << e.def->description << "\n";
  for (const TargetDevice& d : e.devices) {
    std::cout << "  device " << d.id << ": " << d.name;
    for (const auto& [key, value] : d.properties) std::cout << "  " << key << "=" << value;
    std::cout << "\n";
  }
  if (e.def) {
    for (const AttrField& f : e.def->options.fields()) {
      std::cout << "  option " << f.name << ": " << attr_type_name(f.type)
                << (f.default_value ? " = " + f.default_value->str() : " (required)")
                << (f.doc.empty() ? "" : "  " + f.doc) << "\n";
    }
  }
  if (!e.error.empty()) std::cout << "  error: " << e.error << "\n";
}

}  // namespace

void add_targets_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("targets", "List every target, its plugin, devices and options");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print one JSON array");
  cmd->callback([json] {
    std::vector<TargetEntry> broken;
    load_providers(ProvidedKind::kTarget, [&](const PluginRecord& r, const Error& e) {
      for (const std::string& name : r.manifest->provided(ProvidedKind::kTarget)) {
        broken.push_back(TargetEntry{name, r.manifest->name, "failed", e.what(), nullptr, {}});
      }
    });
    std::vector<TargetEntry> entries;
    for (const TargetDef* def : TargetRegistry::global().list()) entries.push_back(describe(*def));
    entries.insert(entries.end(), broken.begin(), broken.end());
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const TargetEntry& e : entries) out.push_back(to_json(e));
      print_json(std::cout, out);
    } else {
      for (const TargetEntry& e : entries) print_text(e);
      if (entries.empty()) std::cout << "no targets found (see `weft plugins`)\n";
    }
    // Non-zero when a target plugin is broken, as `weft plugins`; an unavailable target is not an error.
    if (!broken.empty()) throw CLI::RuntimeError(1);
  });
}

}  // namespace weft::cli
