// The targets the conformance suite runs on: every target registered or
// declared by a plugin manifest the loader finds (ref, null, and whatever
// target plugins the build tree or WEFT_PLUGIN_PATH holds), and whether each
// can run on this machine.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/plugin_loader.h"
#include "weft/run_config.h"
#include "weft/target.h"

namespace weft::testing {

/// Every target name, `ref` first, the others sorted. Reads manifests only:
/// a target's plugin loads when its first case runs, so a broken target
/// plugin fails its cases (naming the error) instead of the suite's start.
inline std::vector<std::string> targets_under_test() {
  std::vector<std::string> names = {std::string(kReferenceTarget)};
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const TargetDef* def : TargetRegistry::global().list()) add(def->name);
  for (const PluginRecord& record : PluginLoader::global().plugins())
    if (record.manifest && record.state != PluginState::kShadowed)
      for (const std::string& name : record.manifest->provided(ProvidedKind::kTarget)) add(name);
  std::sort(names.begin() + 1, names.end());
  return names;
}

/// The config a conformance case builds with: `target` first, then ref for
/// what it does not run, with a warning naming those ops.
inline RunConfig conformance_config(const std::string& target) {
  RunConfig config;
  config.targets = {target};
  config.fallback = FallbackPolicy::kWarn;
  return config;
}

/// Why `target` cannot run here (its create() threw: no device, no driver),
/// or nullopt when it can. Probed once per target and remembered: creating a
/// GPU target opens its device. A target that is unknown or whose plugin fails
/// to load is a weft::Error, not a reason to skip.
inline std::optional<std::string> target_unavailable(const std::string& target) {
  static std::map<std::string, std::optional<std::string>> probed;
  if (auto it = probed.find(target); it != probed.end()) return it->second;
  std::map<std::string, Attrs> options = check_run_config(conformance_config(target));
  std::optional<std::string> why;
  try {
    TargetRegistry::global().get(target).create(options.at(target));
  } catch (const std::exception& e) {
    why = e.what();
  }
  return probed.emplace(target, why).first->second;
}

}  // namespace weft::testing
