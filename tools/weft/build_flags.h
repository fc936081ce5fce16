// The flags `weft run` and `weft bench` share to choose how a program is built:
// a run config (a file, or an installed config's name; configs/default.yaml
// when none is given) and overrides of its targets, fallback and opt_level.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "weft/run_config.h"

namespace weft::cli {

struct BuildFlags {
  std::string config;
  std::vector<std::string> targets;  // --target T1,T2: replaces the config's list
  std::string fallback;              // --fallback warn|error
  std::optional<int> opt_level;      // -O N
};

/// Adds --config, --target, --fallback and -O to `cmd`.
void add_build_flags(CLI::App& cmd, BuildFlags& flags);

/// The config the flags name, with their overrides. An override's value is
/// located at its flag, so an error about it (an unknown target) names the
/// flag rather than the file.
RunConfig run_config_from(const BuildFlags& flags);

}  // namespace weft::cli
