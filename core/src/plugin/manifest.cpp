// Reading and checking weft-plugin.yaml. yaml-cpp reports malformed YAML and
// mistyped scalars with positions, but silently accepts duplicate keys and
// reports a missing key without naming it, so both are checked here.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "weft/error.h"
#include "weft/plugin_manifest.h"

namespace weft {

namespace fs = std::filesystem;

std::string_view provided_kind_key(ProvidedKind kind) {
  switch (kind) {
    case ProvidedKind::kOp: return "ops";
    case ProvidedKind::kModel: return "models";
    case ProvidedKind::kInitializer: return "initializers";
    case ProvidedKind::kPass: return "passes";
    case ProvidedKind::kTarget: return "targets";
    case ProvidedKind::kFrontend: return "frontends";
  }
  return "?";
}

std::string_view provided_kind_name(ProvidedKind kind) {
  switch (kind) {
    case ProvidedKind::kOp: return "op";
    case ProvidedKind::kModel: return "model";
    case ProvidedKind::kInitializer: return "initializer";
    case ProvidedKind::kPass: return "pass";
    case ProvidedKind::kTarget: return "target";
    case ProvidedKind::kFrontend: return "frontend";
  }
  return "?";
}

namespace {

const char* const kFields[] = {"name", "version", "abi", "kind", "library", "requires", "provides", "description"};
const char* const kKinds[] = {"ops", "target", "model", "initializer", "pass", "frontend"};

std::string join(const char* const* items, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::string(items[i]);
  return out;
}

class ManifestReader {
 public:
  explicit ManifestReader(fs::path path) : path_(std::move(path)) {}

  Error error_at(const YAML::Mark& mark, std::string message) const {
    // yaml-cpp marks are 0-based; -1 means "no position".
    SourceLoc loc{path_.string(), mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0};
    return Error(std::move(message)).at(loc);
  }
  Error error(std::string message) const { return Error(std::move(message)).at(SourceLoc{path_.string(), 0, 0}); }

  /// Checks a mapping's keys against `allowed` (no unknown, no duplicate) and
  /// returns them by name.
  std::map<std::string, YAML::Node> keys(const YAML::Node& map, const char* const* allowed, size_t n,
                                         const std::string& what) const {
    std::map<std::string, YAML::Node> out;
    for (auto it = map.begin(); it != map.end(); ++it) {
      // Copies: yaml-cpp's iterator hands out a temporary pair.
      YAML::Node key = it->first;
      YAML::Node value = it->second;
      if (!key.IsScalar()) throw error_at(key.Mark(), what + " keys must be plain names");
      std::string k = key.Scalar();
      if (std::find_if(allowed, allowed + n, [&](const char* a) { return k == a; }) == allowed + n) {
        throw error_at(key.Mark(), "unknown " + what + " field '" + k + "'").expected("one of: " + join(allowed, n));
      }
      if (out.count(k)) throw error_at(key.Mark(), "duplicate " + what + " field '" + k + "'");
      out.emplace(k, value);
    }
    return out;
  }

  std::string scalar(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) throw error_at(node.Mark(), "field '" + field + "' must be a single value");
    return node.Scalar();
  }

  std::vector<std::string> name_list(const YAML::Node& node, const std::string& field) const {
    if (node.IsNull()) return {};
    if (!node.IsSequence()) throw error_at(node.Mark(), "field '" + field + "' must be a list of names, like [a, b]");
    std::vector<std::string> out;
    for (const YAML::Node& item : node) {
      if (!item.IsScalar() || item.Scalar().empty()) throw error_at(item.Mark(), "'" + field + "' entries must be names");
      out.push_back(item.Scalar());
    }
    return out;
  }

  static bool valid_name(const std::string& name) {
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
  }

  PluginManifest read(std::string_view text) const {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw error_at(e.mark, "malformed YAML: " + e.msg);
    }
    if (!root.IsMap()) throw error_at(root.Mark(), "a plugin manifest must be a mapping of fields (name, version, ...)");
    auto fields = keys(root, kFields, std::size(kFields), "manifest");
    for (const char* required : {"name", "version", "abi", "kind", "library"}) {
      if (!fields.count(required)) {
        throw error(std::string("missing required field '") + required + "'")
            .expected("fields name, version, abi, kind and library (see docs/plugins.md)");
      }
    }

    PluginManifest m;
    m.path = path_;
    m.name = scalar(fields["name"], "name");
    if (!valid_name(m.name)) {
      throw error_at(fields["name"].Mark(), "bad plugin name '" + m.name + "'")
          .expected("a letter followed by letters, digits, '_', '-' or '.'");
    }
    m.version = scalar(fields["version"], "version");
    try {
      m.abi = fields["abi"].as<int>();
    } catch (const YAML::Exception&) {
      throw error_at(fields["abi"].Mark(), "field 'abi' must be an integer (the plugin ABI major version)");
    }
    m.kind = scalar(fields["kind"], "kind");
    if (std::find(std::begin(kKinds), std::end(kKinds), m.kind) == std::end(kKinds)) {
      throw error_at(fields["kind"].Mark(), "unknown plugin kind '" + m.kind + "'")
          .expected("one of: " + join(kKinds, std::size(kKinds)));
    }
    m.library = scalar(fields["library"], "library");
    m.library_path = checked_library_path(m.library, fields["library"].Mark());
    if (fields.count("requires")) m.requires_ = name_list(fields["requires"], "requires");
    if (fields.count("description")) m.description = scalar(fields["description"], "description");
    if (fields.count("provides")) read_provides(fields["provides"], m);
    return m;
  }

 private:
  /// The library path must name a file inside the manifest's folder: relative,
  /// and not leaving the folder through "..". Checked on the text, so a
  /// symlink inside the folder stays the packager's choice.
  fs::path checked_library_path(const std::string& library, const YAML::Mark& mark) const {
    fs::path rel(library);
    fs::path normal = rel.lexically_normal();
    bool escapes = library.empty() || rel.is_absolute() || rel.has_root_name() || normal.empty() ||
                   *normal.begin() == ".." || normal == ".";
    if (escapes) {
      throw error_at(mark, "library path '" + library + "' leaves the plugin's folder")
          .expected("a file name relative to the manifest's folder, inside it (e.g. libweft_nn.so)");
    }
    return path_.parent_path() / normal;
  }

  void read_provides(const YAML::Node& node, PluginManifest& m) const {
    if (node.IsNull()) return;
    if (!node.IsMap()) throw error_at(node.Mark(), "field 'provides' must map kinds to lists of names, like {ops: [a, b]}");
    const char* kinds[kAllProvidedKinds.size()];
    std::string keys_storage[kAllProvidedKinds.size()];
    for (size_t i = 0; i < kAllProvidedKinds.size(); ++i) {
      keys_storage[i] = std::string(provided_kind_key(kAllProvidedKinds[i]));
      kinds[i] = keys_storage[i].c_str();
    }
    auto entries = keys(node, kinds, kAllProvidedKinds.size(), "provides");
    for (ProvidedKind kind : kAllProvidedKinds) {
      std::string key(provided_kind_key(kind));
      if (!entries.count(key)) continue;
      auto names = name_list(entries[key], "provides." + key);
      std::set<std::string> seen;
      for (const std::string& n : names) {
        if (!seen.insert(n).second) {
          throw error_at(entries[key].Mark(), "provides." + key + " lists '" + n + "' twice");
        }
      }
      m.provides[static_cast<int>(kind)] = std::move(names);
    }
  }

  fs::path path_;
};

}  // namespace

PluginManifest read_plugin_manifest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) throw Error("cannot read plugin manifest").at(SourceLoc{path.string(), 0, 0});
  return ManifestReader(path).read(text.str());
}

PluginManifest parse_plugin_manifest(std::string_view text, const fs::path& path) {
  return ManifestReader(path).read(text);
}

}  // namespace weft
