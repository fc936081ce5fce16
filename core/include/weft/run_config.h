// Run configs: which targets compile a program, in what order, and with which
// passes and options (configs/*.yaml; docs/configs.md is the reference).
//
// Reading a config checks everything that needs no registry: its YAML, its
// keys, the types and ranges of its values. check_run_config then checks it
// against the targets and passes that exist.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "weft/attrs.h"
#include "weft/error.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

class TargetRegistry;
class PassRegistry;

/// What happens to an op no listed target supports: it runs on `ref` with a
/// warning naming it, or the build fails naming it.
enum class FallbackPolicy { kWarn, kError };
/// "warn", "error".
std::string_view fallback_policy_name(FallbackPolicy policy);

/// What happens to a listed target that is not there (no plugin provides it,
/// or its plugin fails to load): the config is refused naming it, or the
/// target is left out (a warning says why when its plugin failed to load).
enum class MissingTargetPolicy { kError, kSkip };
/// "error", "skip".
std::string_view missing_target_policy_name(MissingTargetPolicy policy);

/// The name of the reference target, which runs every op and comes last.
inline constexpr std::string_view kReferenceTarget = "ref";

struct RunConfig {
  /// The file read; "" for a config built in code.
  std::string source;
  /// Priority order. `ref` is implicitly last; listing it (last) is allowed.
  std::vector<std::string> targets;
  FallbackPolicy fallback = FallbackPolicy::kWarn;
  MissingTargetPolicy missing_targets = MissingTargetPolicy::kError;
  int opt_level = 3;
  std::vector<std::string> required_passes, disabled_passes;
  /// Plugin folders or manifests searched first; relative ones are resolved
  /// against the config file's folder.
  std::vector<std::filesystem::path> plugin_paths;
  /// 0: all cores.
  int threads = 0;
  /// Target name -> its options as written (checked by check_run_config).
  std::map<std::string, Attrs> target_options;
  /// Where each value was written, by its path in the document:
  /// "opt_level", "targets[0]", "passes.required[1]", "target_options.llvm",
  /// "target_options.llvm.cache_dir", ... (for a key, the key's position).
  std::map<std::string, SourceLoc> locations;

  /// The position of `path` (see `locations`), or just the file when that
  /// value was not read from it.
  SourceLoc where(std::string_view path) const;
  /// `targets` with `ref` appended unless it is listed.
  std::vector<std::string> target_order() const;
};

/// Reads a config from text; `filename` is where it came from (errors name it,
/// relative plugin_paths resolve against its folder). The text is untrusted:
/// malformed YAML, an empty or non-mapping document, an unknown or duplicated
/// key at any level, a value of the wrong YAML type or a bad value (an
/// opt_level outside 0..3, threads < 0, a fallback other than warn|error, a
/// target listed twice or `ref` before others, options for a target not
/// listed, a pass both required and disabled) is a weft::Error at
/// file:line:column saying what was expected.
RunConfig parse_run_config(std::string_view yaml, const std::string& filename);
/// parse_run_config on a file's contents; an unreadable file is a weft::Error.
RunConfig load_run_config(const std::filesystem::path& path);

/// The folder of the installed configs: <build>/share/weft/configs for a
/// libweft_core in its build tree, else <prefix>/share/weft/configs.
std::filesystem::path installed_run_config_dir();
/// The names of the installed configs (NAME for each NAME.yaml), sorted.
std::vector<std::string> installed_run_config_names();
/// `name_or_path` itself when it is an existing file; otherwise a bare NAME
/// gives the installed NAME.yaml. weft::Error (status kNotFound) when neither
/// exists, listing the installed names.
std::filesystem::path find_run_config(std::string_view name_or_path);
/// The installed configs/default.yaml: what runs when no config is given.
RunConfig default_run_config();

/// Checks `config` against what exists and returns each target's options,
/// normalized by its schema (defaults filled), for every target of
/// config.target_order() that is there: with `missing_targets: skip` the
/// absent ones are left out, and their options go unchecked. weft::Error at the offending value's file:line:column
/// for an unknown target (naming the known ones: those registered and, for
/// the global registries, those plugin manifests declare) or one whose plugin
/// fails to load (unless missing_targets is kSkip), an option its target's
/// schema refuses (AttrSchema::normalize's message), an unknown pass in
/// passes.required or passes.disabled, and everything parse_run_config checks
/// on values (a config may have been changed in code since). Looking a target
/// up loads the plugin that provides it, so configure the plugin loader with
/// config.plugin_paths first (PluginLoader::configure_global).
std::map<std::string, Attrs> check_run_config(const RunConfig& config, TargetRegistry& targets,
                                              PassRegistry& passes);
/// check_run_config against the global registries.
std::map<std::string, Attrs> check_run_config(const RunConfig& config);

}  // namespace weft

#pragma GCC visibility pop
