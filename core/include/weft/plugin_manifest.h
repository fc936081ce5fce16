// A plugin's manifest (weft-plugin.yaml): what the plugin is, where its
// library is, what it needs and what it provides. docs/plugins.md describes
// the fields.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// The kinds of thing a plugin provides, in the order of the manifest's
/// `provides:` keys.
enum class ProvidedKind : int { kOp, kModel, kInitializer, kPass, kTarget, kFrontend };
/// Every kind, in enum order: the one list the number of kinds comes from.
inline constexpr std::array kAllProvidedKinds = {ProvidedKind::kOp,   ProvidedKind::kModel,  ProvidedKind::kInitializer,
                                                 ProvidedKind::kPass, ProvidedKind::kTarget, ProvidedKind::kFrontend};
static_assert(
    [] {
      for (size_t i = 0; i < kAllProvidedKinds.size(); ++i) {
        if (static_cast<size_t>(kAllProvidedKinds[i]) != i) return false;
      }
      return true;
    }(),
    "kAllProvidedKinds must list the ProvidedKinds in enum order");
/// One T per kind, indexed by static_cast<int>(kind).
template <typename T>
using PerProvidedKind = std::array<T, kAllProvidedKinds.size()>;
/// The manifest key: "ops", "models", "initializers", "passes", "targets", "frontends".
std::string_view provided_kind_key(ProvidedKind kind);
/// The singular, for messages: "op", "model", ...
std::string_view provided_kind_name(ProvidedKind kind);

struct PluginManifest {
  std::filesystem::path path;  // the manifest file itself
  std::string name;
  std::string version;
  int abi = 0;       // plugin ABI major it was built against
  std::string kind;  // ops | target | model | initializer | pass | frontend
  std::string library;                // as written, relative to the manifest's folder
  std::filesystem::path library_path;  // resolved, inside the manifest's folder
  std::vector<std::string> requires_;  // plugin names
  std::string description;
  /// provides[ProvidedKind] = declared names.
  PerProvidedKind<std::vector<std::string>> provides;

  const std::vector<std::string>& provided(ProvidedKind kind) const {
    return provides[static_cast<int>(kind)];
  }
};

/// Reads and checks a manifest. Throws weft::Error located at the file (and
/// line:column for YAML problems) for malformed YAML, a missing, unknown,
/// duplicated or mistyped field, a bad name or kind, and a `library:` that
/// leaves the manifest's folder. Does not look at the library file itself.
PluginManifest read_plugin_manifest(const std::filesystem::path& path);

/// Checks a manifest's text as read_plugin_manifest does; `path` is where the
/// manifest would live (errors name it, `library:` resolves against its
/// folder). The text is untrusted: anything malformed is a weft::Error.
PluginManifest parse_plugin_manifest(std::string_view text, const std::filesystem::path& path);

}  // namespace weft

#pragma GCC visibility pop
