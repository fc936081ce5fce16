// Reading the build flags into a run config (see build_flags.h).
#include "build_flags.h"

#include <algorithm>

namespace weft::cli {

void add_build_flags(CLI::App& cmd, BuildFlags& flags) {
  cmd.add_option("--config", flags.config,
                 "A run config: a YAML file, or an installed config's name (configs/NAME.yaml); default: default");
  cmd.add_option("--target", flags.targets, "Targets in priority order instead of the config's, e.g. null,ref")
      ->delimiter(',');
  cmd.add_option("--fallback", flags.fallback, "What happens to ops no listed target supports, instead of the config's")
      ->check(CLI::IsMember({"warn", "error"}));
  cmd.add_option("-O", flags.opt_level, "Opt level 0-3 of the build's pipeline, instead of the config's")
      ->check(CLI::Range(0, 3));
}

RunConfig run_config_from(const BuildFlags& flags) {
  RunConfig config = flags.config.empty() ? default_run_config() : load_run_config(find_run_config(flags.config));
  if (!flags.targets.empty()) {
    config.targets = flags.targets;
    config.missing_targets = MissingTargetPolicy::kError;  // targets asked for by name must be there
    // The config's options for the targets --target leaves out are moot.
    std::erase_if(config.target_options, [&](const auto& entry) {
      return entry.first != kReferenceTarget &&
             std::find(flags.targets.begin(), flags.targets.end(), entry.first) == flags.targets.end();
    });
    for (auto it = config.locations.begin(); it != config.locations.end();)
      it = it->first.starts_with("targets") ? config.locations.erase(it) : std::next(it);
    config.locations["targets"] = SourceLoc{"--target"};
    for (size_t i = 0; i < flags.targets.size(); ++i)
      config.locations["targets[" + std::to_string(i) + "]"] = SourceLoc{"--target"};
  }
  if (!flags.fallback.empty()) {
    config.fallback = flags.fallback == "error" ? FallbackPolicy::kError : FallbackPolicy::kWarn;
    config.locations["fallback"] = SourceLoc{"--fallback"};
  }
  if (flags.opt_level) {
    config.opt_level = *flags.opt_level;
    config.locations["opt_level"] = SourceLoc{"-O"};
  }
  return config;
}

}  // namespace weft::cli
