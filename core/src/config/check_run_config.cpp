// Checking a run config: its values on their own, then against the targets
// and passes that exist, each error at the value it is about.
#include <algorithm>
#include <iostream>

#include "config/run_config_values.h"
#include "weft/pass.h"
#include "weft/plugin_loader.h"
#include "weft/target.h"

namespace weft {

namespace {

/// The position of the first of `paths` the config has one for, else `fallback`.
SourceLoc first_known(const RunConfig& config, std::initializer_list<std::string> paths, const SourceLoc& fallback) {
  for (const std::string& path : paths) {
    if (config.locations.count(path)) return config.where(path);
  }
  return fallback;
}

/// A name listed twice in `names` (written at `path`[i]) is an error.
void check_unique(const RunConfig& config, const std::vector<std::string>& names, const std::string& path,
                  const std::string& what) {
  for (size_t i = 0; i < names.size(); ++i) {
    auto first = std::find(names.begin(), names.begin() + i, names[i]);
    if (first == names.begin() + i) continue;
    Error error = Error(what + " '" + names[i] + "' is listed twice");
    error.at(config.where(path + "[" + std::to_string(i) + "]"));
    SourceLoc first_at = config.where(path + "[" + std::to_string(first - names.begin()) + "]");
    if (first_at.line > 0) error.note("first listed at " + first_at.str());
    throw error;
  }
}

void check_targets(const RunConfig& config) {
  for (size_t i = 0; i < config.targets.size(); ++i) {
    const std::string path = "targets[" + std::to_string(i) + "]";
    if (config.targets[i].empty()) {
      throw Error("'" + path + "' is empty").at(config.where(path)).expected("a target name");
    }
    if (config.targets[i] == kReferenceTarget && i + 1 < config.targets.size()) {
      throw Error("'ref' comes before '" + config.targets[i + 1] + "', which would then never run")
          .at(config.where(path))
          .expected("ref last, or left out (it is always the last resort)");
    }
  }
  check_unique(config, config.targets, "targets", "target");
}

void check_passes(const RunConfig& config) {
  check_unique(config, config.required_passes, "passes.required", "pass");
  check_unique(config, config.disabled_passes, "passes.disabled", "pass");
  for (size_t i = 0; i < config.disabled_passes.size(); ++i) {
    const std::string& name = config.disabled_passes[i];
    auto required = std::find(config.required_passes.begin(), config.required_passes.end(), name);
    if (required == config.required_passes.end()) continue;
    Error error = Error("pass '" + name + "' is both required and disabled")
                      .at(config.where("passes.disabled[" + std::to_string(i) + "]"));
    SourceLoc required_at =
        config.where("passes.required[" + std::to_string(required - config.required_passes.begin()) + "]");
    if (required_at.line > 0) error.note("required at " + required_at.str());
    throw error;
  }
}

/// The names `registry` knows: those registered and, for a global registry,
/// those the plugins' manifests declare, loaded or not.
template <typename Def>
std::vector<std::string> known_names(const NamedRegistry<Def>& registry, bool global, ProvidedKind kind) {
  std::vector<std::string> names = registry.names();
  if (global) {
    for (const PluginRecord& plugin : PluginLoader::global().plugins()) {
      if (plugin.manifest && plugin.state != PluginState::kShadowed) {
        for (const std::string& name : plugin.manifest->provided(kind)) names.push_back(name);
      }
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// `name` from `registry`, which loads the plugin providing it. A plugin that
/// fails to load, or a name nobody provides, is an error at `at`; `unknown`
/// starts the latter, which names the known ones (and adds `unknown_note`).
template <typename Def>
const Def& find_listed(NamedRegistry<Def>& registry, bool global, ProvidedKind kind, const std::string& name,
                       const SourceLoc& at, const std::string& unknown, const std::string& unknown_note = "") {
  const std::string what(provided_kind_name(kind));
  const Def* def = nullptr;
  try {
    def = registry.find(name);
  } catch (const Error& e) {
    throw Error(what + " '" + name + "' cannot be loaded").at(at).note(e.what()).status(e.status());
  }
  if (!def) {
    Error error(unknown);
    error.at(at).expected("a registered " + what + ": " + join_names(known_names(registry, global, kind)));
    if (!unknown_note.empty()) error.note(unknown_note);
    throw error.status(StatusCode::kNotFound);
  }
  return *def;
}

const TargetDef& find_target(const std::string& name, const SourceLoc& listed_at, TargetRegistry& targets) {
  return find_listed(targets, &targets == &TargetRegistry::global(), ProvidedKind::kTarget, name, listed_at,
                     "unknown target '" + name + "'",
                     "`weft targets` lists them; a target plugin outside the default folders needs its folder in "
                     "plugin_paths or WEFT_PLUGIN_PATH");
}

/// The target's options normalized by its schema; what the schema refuses is
/// located at the option, else at the target's options, else its listing.
/// The options written for the target, with the config's `threads` (when
/// set) as the target's own `threads` option where it declares one and the
/// config does not set it: one thread count for every target of a run.
Attrs given_options(const RunConfig& config, const TargetDef& def) {
  auto given = config.target_options.find(def.name);
  Attrs options = given != config.target_options.end() ? given->second : empty_attrs();
  const AttrField* threads = def.options.find("threads");
  if (config.threads == 0 || !threads || threads->type != AttrType::kInt || (options && options->find("threads")))
    return options;
  std::vector<std::pair<std::string, AttrValue>> entries = options ? options->entries : decltype(entries){};
  entries.emplace_back("threads", AttrValue(int64_t{config.threads}));
  return make_attrs(std::move(entries));
}

Attrs checked_options(const RunConfig& config, const TargetDef& def, const SourceLoc& listed_at) {
  try {
    return def.options.normalize(def.name, given_options(config, def));
  } catch (const Error& e) {
    const std::string path = "target_options." + def.name;
    Error located("target '" + def.name + "': " + e.message());
    located.at(first_known(config, {path + "." + e.attr_name(), path}, listed_at)).status(e.status());
    if (!e.expected_form().empty()) located.expected(e.expected_form());
    throw located;
  }
}

void check_pass_names(const RunConfig& config, const std::vector<std::string>& names, const std::string& path,
                      PassRegistry& passes) {
  for (size_t i = 0; i < names.size(); ++i) {
    find_listed(passes, &passes == &PassRegistry::global(), ProvidedKind::kPass, names[i],
                config.where(path + "[" + std::to_string(i) + "]"), "unknown pass '" + names[i] + "' in " + path);
  }
}

}  // namespace

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void check_run_config_values(const RunConfig& config) {
  if (config.opt_level < 0 || config.opt_level > 3) {
    throw Error("opt_level " + std::to_string(config.opt_level) + " is out of range")
        .at(config.where("opt_level"))
        .expected("0, 1, 2 or 3");
  }
  if (config.threads < 0) {
    throw Error("threads must not be negative, got " + std::to_string(config.threads))
        .at(config.where("threads"))
        .expected("a number of threads, or 0 for all cores");
  }
  check_targets(config);
  check_passes(config);
  const std::vector<std::string> order = config.target_order();
  for (const auto& [name, options] : config.target_options) {
    if (std::find(order.begin(), order.end(), name) != order.end()) continue;
    throw Error("options for target '" + name + "', which is not in targets")
        .at(config.where("target_options." + name))
        .expected("options only for the targets listed: " + join_names(order));
  }
}

std::map<std::string, Attrs> check_run_config(const RunConfig& config, TargetRegistry& targets,
                                              PassRegistry& passes) {
  check_run_config_values(config);
  // Every target first: a misspelt name says more than its options do.
  const std::vector<std::string> order = config.target_order();
  std::vector<std::pair<const TargetDef*, SourceLoc>> defs;
  for (size_t i = 0; i < order.size(); ++i) {
    // `ref` appended by target_order() was not written anywhere: its errors name the file.
    SourceLoc listed_at = config.where("targets[" + std::to_string(i) + "]");
    if (config.missing_targets == MissingTargetPolicy::kError || order[i] == kReferenceTarget) {
      defs.emplace_back(&find_target(order[i], listed_at, targets), listed_at);
      continue;
    }
    // Skipped: a target nobody provides silently, one whose plugin fails to
    // load with a warning saying why.
    const TargetDef* def = nullptr;
    try {
      def = targets.find(order[i]);
    } catch (const Error& e) {
      std::cerr << "weft: warning: target '" << order[i] << "' is left out (missing_targets: skip): its plugin "
                << "cannot be loaded: " << e.what() << "\n";
    }
    if (def) defs.emplace_back(def, listed_at);
  }
  std::map<std::string, Attrs> options;
  for (const auto& [def, listed_at] : defs) options[def->name] = checked_options(config, *def, listed_at);
  check_pass_names(config, config.required_passes, "passes.required", passes);
  check_pass_names(config, config.disabled_passes, "passes.disabled", passes);
  return options;
}

std::map<std::string, Attrs> check_run_config(const RunConfig& config) {
  return check_run_config(config, TargetRegistry::global(), PassRegistry::global());
}

}  // namespace weft
