// Internal: discovery. Finds the manifests under the search paths, checks
// each one (and its ABI major and library file), resolves shadowing, fails
// plugins whose requirements are missing or form a cycle, and indexes which
// plugin provides each declared name. Loads nothing.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"
#include "weft/plugin_loader.h"

namespace weft::plugin_host {

/// An error about plugin `r`: "plugin 'NAME': message", located at its manifest.
Error plugin_error(const PluginRecord& r, const std::string& message);
/// Marks `r` failed with plugin_error's text.
void fail(PluginRecord& r, const std::string& message);

class PluginCatalog {
 public:
  PluginCatalog(const std::vector<std::filesystem::path>& search_paths,
                const std::map<std::string, std::string>& provider_choices);

  /// Every manifest found, in discovery order.
  std::vector<PluginRecord>& records() { return records_; }
  const std::vector<PluginRecord>& records() const { return records_; }
  /// The record in use (not shadowed) for plugin `name`, or nullptr.
  PluginRecord* find(std::string_view name);
  /// Like find, but an unknown name is a weft::Error listing the search paths.
  PluginRecord& active(std::string_view name);
  /// The record whose manifest provides `name` of `kind`, or nullptr.
  PluginRecord* provider(ProvidedKind kind, std::string_view name);
  /// The records in use, by plugin name.
  std::vector<PluginRecord*> active_records();
  /// Problems with the search path itself, which fail no plugin (an entry
  /// that does not exist).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void read(const std::filesystem::path& manifest_path);
  void check_requirements();
  void index_providers(const std::map<std::string, std::string>& provider_choices);

  std::vector<std::filesystem::path> search_paths_;
  std::vector<PluginRecord> records_;
  std::map<std::string, size_t, std::less<>> by_name_;  // active (not shadowed) records
  PerProvidedKind<std::map<std::string, size_t, std::less<>>> providers_;
  std::vector<std::string> warnings_;
};

}  // namespace weft::plugin_host
