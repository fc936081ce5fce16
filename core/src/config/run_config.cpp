// Reading run configs (configs/*.yaml). yaml-cpp reports malformed YAML with
// positions, but accepts duplicate keys silently and resolves no scalar
// types, so keys, types and values are all checked here, each error at the
// node it is about.
#include "weft/run_config.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include "config/run_config_values.h"

namespace weft {

namespace fs = std::filesystem;

std::string_view fallback_policy_name(FallbackPolicy policy) {
  switch (policy) {
    case FallbackPolicy::kWarn: return "warn";
    case FallbackPolicy::kError: return "error";
  }
  return "?";
}

std::string_view missing_target_policy_name(MissingTargetPolicy policy) {
  switch (policy) {
    case MissingTargetPolicy::kError: return "error";
    case MissingTargetPolicy::kSkip: return "skip";
  }
  return "?";
}

SourceLoc RunConfig::where(std::string_view path) const {
  auto it = locations.find(std::string(path));
  return it != locations.end() ? it->second : SourceLoc{source, 0, 0};
}

std::vector<std::string> RunConfig::target_order() const {
  std::vector<std::string> order = targets;
  if (std::find(order.begin(), order.end(), kReferenceTarget) == order.end()) order.emplace_back(kReferenceTarget);
  return order;
}

namespace {

const std::vector<std::string> kTopLevelKeys = {"targets", "missing_targets", "fallback",      "opt_level",
                                                "passes",  "plugin_paths",    "threads",       "target_options"};
const std::vector<std::string> kPassesKeys = {"required", "disabled"};

/// A plain (unquoted, untagged) scalar: only those can be numbers or booleans.
bool is_plain(const YAML::Node& node) { return node.Tag() == "?"; }

/// The text after an optional leading '+' (from_chars takes only '-'), or
/// nullopt for text that is no decimal number: only digits, signs, '.' and
/// exponents, so "inf", "nan" and hex floats stay strings, as in YAML's core
/// schema.
std::optional<std::string_view> number_text(const std::string& text) {
  std::string_view t = text;
  if (t.size() > 1 && t[0] == '+' && t[1] != '-') t.remove_prefix(1);
  if (t.empty() || t.find_first_not_of("0123456789+-.eE") != std::string_view::npos) return std::nullopt;
  return t;
}

std::optional<int64_t> parse_integer(const std::string& text) {
  auto t = number_text(text);
  int64_t value = 0;
  if (!t) return std::nullopt;
  auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), value);
  if (ec != std::errc() || end != t->data() + t->size()) return std::nullopt;
  return value;
}

std::optional<double> parse_float(const std::string& text) {
  auto t = number_text(text);
  double value = 0;
  if (!t) return std::nullopt;
  auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), value, std::chars_format::general);
  if (ec != std::errc() || end != t->data() + t->size()) return std::nullopt;
  return value;
}

/// YAML 1.2's core-schema booleans.
std::optional<bool> parse_bool(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

/// Where each document of a stream starts, and nothing else.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// One mapping entry, the key's text with both nodes.
struct Entry {
  std::string key;
  YAML::Node key_node, value;
};

class RunConfigReader {
 public:
  explicit RunConfigReader(const std::string& filename) : folder_(fs::path(filename).parent_path()) {
    config_.source = filename;
  }

  RunConfig read(std::string_view text) {
    YAML::Node root;
    try {
      check_one_document(text);
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw error_at(e.mark, "malformed YAML: " + e.msg);
    }
    const std::string keys_expected = "a mapping of settings: " + join_names(kTopLevelKeys) + " (see docs/configs.md)";
    if (root.IsNull()) {
      throw Error("the run config is empty").at(SourceLoc{config_.source, 1, 1}).expected(keys_expected);
    }
    if (!root.IsMap()) {
      throw error_at(root.Mark(), "a run config must be a mapping of settings").expected(keys_expected);
    }

    for (const Entry& e : entries(root, kTopLevelKeys, "")) {
      locate(e.key, e.key_node);
      if (e.key == "targets") {
        config_.targets = names(e, "targets", "a list of target names in priority order, like [onednn, llvm]");
      } else if (e.key == "missing_targets") {
        config_.missing_targets = missing_targets(e);
      } else if (e.key == "fallback") {
        config_.fallback = fallback(e);
      } else if (e.key == "opt_level") {
        config_.opt_level = integer(e, "opt_level", "an integer from 0 to 3");
      } else if (e.key == "threads") {
        config_.threads = integer(e, "threads", "an integer, the number of threads (0: all cores)");
      } else if (e.key == "passes") {
        passes(e);
      } else if (e.key == "plugin_paths") {
        for (const std::string& path : names(e, "plugin_paths", "a list of plugin folders or manifests")) {
          fs::path p(path);
          config_.plugin_paths.push_back((p.is_relative() ? folder_ / p : p).lexically_normal());
        }
      } else {
        target_options(e);
      }
    }
    check_run_config_values(config_);
    return std::move(config_);
  }

 private:
  /// A second document is an error. Asked of the parser document by document,
  /// not with YAML::LoadAll: on text it cannot read (a line starting with
  /// ',') yaml-cpp 0.7 yields empty documents without moving on, for ever.
  void check_one_document(std::string_view text) const {
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    DocumentStarts starts;
    if (!parser.HandleNextDocument(starts) || !parser.HandleNextDocument(starts)) return;
    const YAML::Mark& second = starts.marks.back();
    if (second.pos == starts.marks.front().pos) {
      const std::string at = second.pos >= 0 && static_cast<size_t>(second.pos) < text.size()
                                 ? std::string(" '") + text[second.pos] + "'"
                                 : std::string();
      throw error_at(second, "malformed YAML: cannot read past" + (at.empty() ? " here" : at));
    }
    throw error_at(second, "a run config is one YAML document; a second one starts here");
  }

  SourceLoc loc(const YAML::Mark& mark) const {
    // yaml-cpp marks are 0-based; -1 means "no position".
    return SourceLoc{config_.source, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0};
  }
  Error error_at(const YAML::Mark& mark, std::string message) const { return Error(std::move(message)).at(loc(mark)); }
  /// A value's position, or its key's for an empty value (yaml-cpp places
  /// that at the next token, often on the next line).
  YAML::Mark mark_of(const Entry& e) const { return e.value.IsNull() ? e.key_node.Mark() : e.value.Mark(); }
  void locate(const std::string& path, const YAML::Node& node) { config_.locations[path] = loc(node.Mark()); }

  /// A mapping's entries in order; unknown keys (when `allowed` is not empty),
  /// duplicate and non-scalar keys are errors. `where` prefixes key paths.
  std::vector<Entry> entries(const YAML::Node& map, const std::vector<std::string>& allowed,
                             const std::string& where) const {
    std::vector<Entry> out;
    for (auto it = map.begin(); it != map.end(); ++it) {
      // Copies: yaml-cpp's iterator hands out a temporary pair.
      Entry e{"", it->first, it->second};
      if (!e.key_node.IsScalar() || e.key_node.Scalar().empty()) {
        throw error_at(e.key_node.Mark(), "keys" + (where.empty() ? std::string() : " of '" + where + "'") +
                                              " must be plain names");
      }
      e.key = e.key_node.Scalar();
      const std::string path = where.empty() ? e.key : where + "." + e.key;
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
        throw error_at(e.key_node.Mark(), "unknown key '" + path + "'").expected("one of: " + join_names(allowed));
      }
      for (const Entry& seen : out) {
        if (seen.key == e.key) {
          throw error_at(e.key_node.Mark(), "duplicate key '" + path + "'")
              .note("first given at " + loc(seen.key_node.Mark()).str());
        }
      }
      out.push_back(std::move(e));
    }
    return out;
  }

  /// A mapping's entries; an empty value is an empty mapping.
  std::vector<Entry> mapping(const Entry& e, const std::string& path, const std::vector<std::string>& allowed,
                             const std::string& expected) const {
    if (e.value.IsNull()) return {};
    if (!e.value.IsMap()) throw error_at(mark_of(e), "'" + path + "' must be a mapping").expected(expected);
    return entries(e.value, allowed, path);
  }

  /// A list of non-empty names, each located as path[i]; an empty value is an empty list.
  std::vector<std::string> names(const Entry& e, const std::string& path, const std::string& expected) {
    if (e.value.IsNull()) return {};
    if (!e.value.IsSequence()) throw error_at(mark_of(e), "'" + path + "' must be a list").expected(expected);
    std::vector<std::string> out;
    for (const YAML::Node& item : e.value) {
      const std::string item_path = path + "[" + std::to_string(out.size()) + "]";
      if (item.IsNull()) {
        throw error_at(item.Mark(), "'" + item_path + "' is empty (YAML reads a plain null or ~ as no value)")
            .expected("a name; quote a name such as \"null\"");
      }
      if (!item.IsScalar() || item.Scalar().empty()) {
        throw error_at(item.Mark(), "'" + item_path + "' must be a name").expected(expected);
      }
      locate(item_path, item);
      out.push_back(item.Scalar());
    }
    return out;
  }

  int integer(const Entry& e, const std::string& path, const std::string& expected) const {
    std::optional<int64_t> value;
    if (e.value.IsScalar() && is_plain(e.value)) value = parse_integer(e.value.Scalar());
    if (!value || *value < INT32_MIN || *value > INT32_MAX) {
      std::string got = e.value.IsScalar() ? " '" + e.value.Scalar() + "'" : "";
      throw error_at(mark_of(e), "'" + path + "' must be an integer, got" + (got.empty() ? " no value" : got))
          .expected(expected);
    }
    return static_cast<int>(*value);
  }

  FallbackPolicy fallback(const Entry& e) const {
    std::string text = e.value.IsScalar() ? e.value.Scalar() : "";
    if (text == "warn") return FallbackPolicy::kWarn;
    if (text == "error") return FallbackPolicy::kError;
    throw error_at(mark_of(e), "bad fallback" + (text.empty() ? std::string() : " '" + text + "'"))
        .expected("warn (run the ops no listed target supports on ref, naming them) or error (fail naming them)");
  }

  MissingTargetPolicy missing_targets(const Entry& e) const {
    std::string text = e.value.IsScalar() ? e.value.Scalar() : "";
    if (text == "error") return MissingTargetPolicy::kError;
    if (text == "skip") return MissingTargetPolicy::kSkip;
    throw error_at(mark_of(e), "bad missing_targets" + (text.empty() ? std::string() : " '" + text + "'"))
        .expected("error (refuse the config naming a listed target that is not there) or skip (leave it out)");
  }

  void passes(const Entry& e) {
    for (const Entry& list : mapping(e, "passes", kPassesKeys, "{required: [...], disabled: [...]}")) {
      const std::string path = "passes." + list.key;
      locate(path, list.key_node);
      auto names_of = names(list, path, "a list of pass names, like [FoldConstant]");
      (list.key == "required" ? config_.required_passes : config_.disabled_passes) = std::move(names_of);
    }
  }

  void target_options(const Entry& e) {
    const std::string expected = "target names mapped to their options, like {llvm: {cache_dir: /tmp/weft}}";
    for (const Entry& target : mapping(e, "target_options", {}, expected)) {
      const std::string path = "target_options." + target.key;
      locate(path, target.key_node);
      std::vector<std::pair<std::string, AttrValue>> options;
      for (const Entry& option : mapping(target, path, {}, "option names mapped to values, like {device: 0}")) {
        const std::string option_path = path + "." + option.key;
        locate(option_path, option.key_node);
        options.emplace_back(option.key, value(option.value, option_path, mark_of(option)));
      }
      config_.target_options[target.key] = make_attrs(std::move(options));
    }
  }

  /// An option's value as an attribute: null -> None; a plain scalar -> bool,
  /// int, float or else string; a quoted one -> string; a list of ints -> int
  /// list, of numbers -> float list, else a list of values. The target's
  /// schema coerces and checks it. Lists nest no deeper than yaml-cpp's
  /// depth guard lets a document.
  AttrValue value(const YAML::Node& node, const std::string& path, const YAML::Mark& mark) const {
    if (node.IsNull()) return AttrValue();
    if (node.IsScalar()) {
      const std::string& text = node.Scalar();
      if (!is_plain(node)) return AttrValue(text);
      if (auto b = parse_bool(text)) return AttrValue(*b);
      if (auto i = parse_integer(text)) return AttrValue(*i);
      if (auto f = parse_float(text)) return AttrValue(*f);
      return AttrValue(text);
    }
    if (!node.IsSequence()) {
      throw error_at(mark, "option '" + path + "' must be a value or a list")
          .expected("a number, true or false, a string, or a list of them");
    }
    std::vector<AttrValue> items;
    for (const YAML::Node& item : node) items.push_back(value(item, path, item.Mark()));
    auto all = [&](auto pred) { return std::all_of(items.begin(), items.end(), pred); };
    if (all([](const AttrValue& v) { return v.type() == AttrType::kInt; })) {
      std::vector<int64_t> ints;
      for (const AttrValue& v : items) ints.push_back(v.as_int());
      return AttrValue(std::move(ints));
    }
    if (all([](const AttrValue& v) { return v.type() == AttrType::kInt || v.type() == AttrType::kFloat; })) {
      std::vector<double> floats;
      for (const AttrValue& v : items) floats.push_back(v.as_float());
      return AttrValue(std::move(floats));
    }
    return AttrValue(std::move(items));
  }

  fs::path folder_;
  RunConfig config_;
};

}  // namespace

RunConfig parse_run_config(std::string_view yaml, const std::string& filename) {
  return RunConfigReader(filename).read(yaml);
}

RunConfig load_run_config(const fs::path& path) {
  std::error_code ec;
  const SourceLoc file{path.string(), 0, 0};
  if (fs::is_directory(path, ec)) throw Error("a run config must be a file, not a folder").at(file);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) throw Error("cannot read run config").at(file).status(StatusCode::kNotFound);
  return parse_run_config(text.str(), path.string());
}

}  // namespace weft
