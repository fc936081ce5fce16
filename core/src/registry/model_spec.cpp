// Model names on the command line -> (family, normalized parameters).
#include "weft/model_spec.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>

#include "weft/plugin_loader.h"

namespace weft {

namespace {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::optional<int64_t> read_int(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<double> read_float(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> read_bool(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

/// `text` as a value of `field`'s type; Error naming the argument otherwise.
AttrValue read_value(const std::string& family, const AttrField& field, std::string_view text) {
  auto fail = [&](std::string what) {
    return Error("model " + family + ": argument '" + field.name + "' has the malformed value '" + std::string(text) +
                 "'")
        .expected(std::move(what));
  };
  switch (field.type) {
    case AttrType::kInt:
      if (auto v = read_int(text)) return *v;
      throw fail("an integer");
    case AttrType::kFloat:
      if (auto v = read_float(text)) return *v;
      throw fail("a number");
    case AttrType::kBool:
      if (auto v = read_bool(text)) return *v;
      throw fail("true or false");
    case AttrType::kIntList: {
      std::vector<int64_t> dims;
      for (auto part : split(text, 'x')) {
        auto v = read_int(part);
        if (!v) throw fail("integers joined by 'x', e.g. 3x224x224");
        dims.push_back(*v);
      }
      return dims;
    }
    case AttrType::kFloatList: {
      std::vector<double> values;
      for (auto part : split(text, 'x')) {
        auto v = read_float(part);
        if (!v) throw fail("numbers joined by 'x'");
        values.push_back(*v);
      }
      return values;
    }
    case AttrType::kString:
    case AttrType::kDType:
      return std::string(text);
    default:
      // An untyped parameter: the most specific reading that fits.
      if (auto v = read_int(text)) return *v;
      if (auto v = read_float(text)) return *v;
      if (auto v = read_bool(text)) return *v;
      return std::string(text);
  }
}

const AttrField& field_of(const ModelDef& def, std::string_view name) {
  if (const AttrField* f = def.params.find(name)) return *f;
  std::vector<std::string> names;
  for (const auto& f : def.params.fields()) names.push_back(f.name);
  throw Error("model " + def.name + " has no argument '" + std::string(name) + "'")
      .expected("one of: " + join(names, ", "));
}

/// The value the variant's placeholder takes from `rest`, with the variant's
/// fixed parameters; nullopt when `rest` does not have the variant's shape.
std::optional<std::vector<std::pair<std::string, AttrValue>>> match_variant(const ModelDef& def,
                                                                              const ModelVariant& v,
                                                                              std::string_view rest) {
  std::vector<std::pair<std::string, AttrValue>> out;
  std::string_view suffix = v.suffix;
  size_t open = suffix.find('{');
  if (open == std::string_view::npos) {
    if (rest != suffix) return std::nullopt;
  } else {
    size_t close = suffix.find('}', open);
    std::string_view before = suffix.substr(0, open), after = suffix.substr(close + 1);
    if (rest.size() <= before.size() + after.size() || rest.substr(0, before.size()) != before ||
        rest.substr(rest.size() - after.size()) != after) {
      return std::nullopt;
    }
    std::string_view value = rest.substr(before.size(), rest.size() - before.size() - after.size());
    const AttrField& field = field_of(def, suffix.substr(open + 1, close - open - 1));
    // Text that is not a value of the parameter's type ("16-bn" for an int)
    // means another variant may fit.
    try {
      out.emplace_back(field.name, read_value(def.name, field, value));
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  if (v.fixed) {
    for (const auto& entry : v.fixed->entries) out.push_back(entry);
  }
  return out;
}

std::string variants_list(const ModelDef& def) {
  std::vector<std::string> names;
  for (const auto& v : def.variants) names.push_back(variant_name(def.name, v));
  return names.empty() ? "it has none; use " + def.name + ":key=value,..." : join(names, ", ");
}

/// Normalizes against the family's schema; its errors speak of the model's
/// arguments ("model lstm: missing required argument 'iterations'").
Attrs normalize_arguments(const ModelDef& def, const Attrs& given) {
  try {
    return def.params.normalize("model " + def.name, given);
  } catch (const Error& e) {
    std::string message = e.message();
    for (size_t at = message.find("attribute"); at != std::string::npos; at = message.find("attribute", at)) {
      message.replace(at, 9, "argument");
    }
    Error out("model " + def.name + ": " + message);
    if (!e.expected_form().empty()) out.expected(e.expected_form());
    throw out;
  }
}

}  // namespace

std::string variant_name(std::string_view family, const ModelVariant& v) {
  return std::string(family) + "-" + v.suffix;
}

std::vector<std::string> known_model_families() {
  std::set<std::string> names;
  for (const ModelDef* def : ModelRegistry::global().list()) names.insert(def->name);
  for (const PluginRecord& rec : PluginLoader::global().plugins()) {
    if (rec.manifest && rec.state != PluginState::kShadowed) {
      for (const auto& name : rec.manifest->provided(ProvidedKind::kModel)) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

ModelSpec parse_model_spec(std::string_view text) {
  size_t colon = text.find(':');
  std::string_view name = text.substr(0, colon);
  std::string_view args = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);

  // A family name never contains '-': what follows the first one names a variant.
  size_t dash = name.find('-');
  std::string family(name.substr(0, dash));
  const ModelDef* def = family.empty() ? nullptr : ModelRegistry::global().find(family);
  if (!def) {
    throw Error("unknown model '" + std::string(name) + "'")
        .expected("one of the families " + join(known_model_families(), ", ") + " (`weft models` lists them)")
        .status(StatusCode::kNotFound);
  }

  std::vector<std::pair<std::string, AttrValue>> given;
  if (dash != std::string_view::npos) {
    std::string_view rest = name.substr(dash + 1);
    bool matched = false;
    for (const ModelVariant& v : def->variants) {
      if (auto values = match_variant(*def, v, rest)) {
        given = std::move(*values);
        matched = true;
        break;
      }
    }
    if (!matched) {
      throw Error("model '" + std::string(name) + "' is not a variant of " + family)
          .expected(variants_list(*def));
    }
  }
  size_t from_name = given.size();

  if (colon != std::string_view::npos) {
    if (args.empty()) throw Error("model '" + std::string(text) + "': nothing after ':'").expected("key=value,...");
    for (std::string_view item : split(args, ',')) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        throw Error("model " + family + ": argument '" + std::string(item) + "' is not key=value");
      }
      const AttrField& field = field_of(*def, item.substr(0, eq));
      for (size_t i = 0; i < given.size(); ++i) {
        if (given[i].first != field.name) continue;
        throw Error("model " + family + ": argument '" + field.name + "' is given twice")
            .note(i < from_name ? "the name " + std::string(name) + " already sets it" : "it appears twice after ':'");
      }
      given.emplace_back(field.name, read_value(family, field, item.substr(eq + 1)));
    }
  }
  return ModelSpec{family, normalize_arguments(*def, make_attrs(std::move(given)))};
}

Function build_model(const ModelSpec& spec) {
  const ModelDef& def = ModelRegistry::global().get(spec.family);
  return def.build(def.params.normalize("model " + def.name, spec.params));
}

}  // namespace weft
