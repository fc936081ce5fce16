// Attribute values, dictionaries and per-op schemas.
#include "weft/attrs.h"

#include <charconv>
#include <functional>

#include "weft/error.h"

namespace weft {

namespace {

size_t combine(size_t seed, size_t h) { return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

[[noreturn]] void kind_mismatch(AttrType want, AttrType have) {
  throw InternalError(__FILE__, __LINE__,
                      "attr value is " + std::string(attr_type_name(have)) + ", read as " +
                          std::string(attr_type_name(want)));
}

// Like Relay's printer: C++ stream formatting (6 significant digits) and an f suffix.
// The shortest text that parses back to the same double (ostream's six
// digits would change the value on a print/parse round trip).
std::string float_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf) + 'f';
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

/// The number of items of a list value; nullopt for other kinds.
std::optional<size_t> list_size(const AttrValue& v) {
  switch (v.type()) {
    case AttrType::kIntList: return v.as_int_list().size();
    case AttrType::kFloatList: return v.as_float_list().size();
    case AttrType::kList: return v.as_list().size();
    default: return std::nullopt;
  }
}

/// TVM prints a list field its Make function leaves unset as `[]`
/// (nn.max_pool2d_grad's dilation); where the default is a non-empty list, an
/// empty one can only mean the default.
bool means_default(const AttrValue& value, const std::optional<AttrValue>& fallback) {
  return fallback && list_size(value) == size_t{0} && list_size(*fallback).value_or(0) > 0;
}

}  // namespace

std::string_view attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::kNone: return "None";
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kBool: return "bool";
    case AttrType::kString: return "string";
    case AttrType::kDType: return "dtype";
    case AttrType::kIntList: return "int list";
    case AttrType::kFloatList: return "float list";
    case AttrType::kList: return "list";
    case AttrType::kAny: return "any value";
  }
  return "?";
}

int64_t AttrValue::as_int() const {
  if (auto* v = std::get_if<int64_t>(&v_)) return *v;
  kind_mismatch(AttrType::kInt, type());
}

double AttrValue::as_float() const {
  if (auto* v = std::get_if<double>(&v_)) return *v;
  if (auto* v = std::get_if<int64_t>(&v_)) return static_cast<double>(*v);
  kind_mismatch(AttrType::kFloat, type());
}

bool AttrValue::as_bool() const {
  if (auto* v = std::get_if<bool>(&v_)) return *v;
  kind_mismatch(AttrType::kBool, type());
}

const std::string& AttrValue::as_string() const {
  if (auto* v = std::get_if<std::string>(&v_)) return *v;
  kind_mismatch(AttrType::kString, type());
}

DataType AttrValue::as_dtype() const {
  if (auto* v = std::get_if<DataType>(&v_)) return *v;
  kind_mismatch(AttrType::kDType, type());
}

const std::vector<int64_t>& AttrValue::as_int_list() const {
  if (auto* v = std::get_if<std::vector<int64_t>>(&v_)) return *v;
  kind_mismatch(AttrType::kIntList, type());
}

const std::vector<double>& AttrValue::as_float_list() const {
  if (auto* v = std::get_if<std::vector<double>>(&v_)) return *v;
  kind_mismatch(AttrType::kFloatList, type());
}

const std::vector<AttrValue>& AttrValue::as_list() const {
  if (auto* v = std::get_if<std::vector<AttrValue>>(&v_)) return *v;
  kind_mismatch(AttrType::kList, type());
}

std::optional<AttrValue> AttrValue::coerce(AttrType target) const {
  AttrType from = type();
  if (from == target || target == AttrType::kAny) return *this;
  switch (target) {
    case AttrType::kFloat:
      if (from == AttrType::kInt) return AttrValue(static_cast<double>(as_int()));
      return std::nullopt;
    case AttrType::kDType:
      if (from != AttrType::kString) return std::nullopt;
      try {
        return AttrValue(DataType::parse(as_string()));
      } catch (const Error&) {
        return std::nullopt;
      }
    case AttrType::kString:
      // A dtype is spelled as a string in Relay text (out_dtype="float32").
      if (from == AttrType::kDType) return AttrValue(as_dtype().str());
      return std::nullopt;
    case AttrType::kIntList:
      if (from == AttrType::kList) {
        std::vector<int64_t> out;
        for (const auto& e : as_list()) {
          if (e.type() != AttrType::kInt) return std::nullopt;
          out.push_back(e.as_int());
        }
        return AttrValue(std::move(out));
      }
      return std::nullopt;
    case AttrType::kFloatList:
      if (from == AttrType::kIntList) {
        std::vector<double> out;
        for (int64_t e : as_int_list()) out.push_back(static_cast<double>(e));
        return AttrValue(std::move(out));
      }
      if (from == AttrType::kList) {
        std::vector<double> out;
        for (const auto& e : as_list()) {
          if (e.type() != AttrType::kInt && e.type() != AttrType::kFloat) return std::nullopt;
          out.push_back(e.as_float());
        }
        return AttrValue(std::move(out));
      }
      return std::nullopt;
    case AttrType::kList:
      // Typed lists widen to generic lists of the same elements.
      if (from == AttrType::kIntList) {
        std::vector<AttrValue> out(as_int_list().begin(), as_int_list().end());
        return AttrValue(std::move(out));
      }
      if (from == AttrType::kFloatList) {
        std::vector<AttrValue> out(as_float_list().begin(), as_float_list().end());
        return AttrValue(std::move(out));
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::string AttrValue::str() const {
  switch (type()) {
    case AttrType::kNone: return "None";
    case AttrType::kInt: return std::to_string(as_int());
    case AttrType::kFloat: return float_text(as_float());
    case AttrType::kBool: return as_bool() ? "True" : "False";
    case AttrType::kString: return quote(as_string());
    case AttrType::kDType: return quote(as_dtype().str());
    case AttrType::kIntList: {
      std::string out = "[";
      for (size_t i = 0; i < as_int_list().size(); ++i) out += (i ? ", " : "") + std::to_string(as_int_list()[i]);
      return out + "]";
    }
    case AttrType::kFloatList: {
      std::string out = "[";
      for (size_t i = 0; i < as_float_list().size(); ++i) out += (i ? ", " : "") + float_text(as_float_list()[i]);
      return out + "]";
    }
    case AttrType::kList: {
      std::string out = "[";
      for (size_t i = 0; i < as_list().size(); ++i) out += (i ? ", " : "") + as_list()[i].str();
      return out + "]";
    }
    case AttrType::kAny: break;
  }
  return "None";
}

size_t AttrValue::hash() const {
  size_t h = v_.index();
  switch (type()) {
    case AttrType::kNone: return h;
    case AttrType::kInt: return combine(h, std::hash<int64_t>()(as_int()));
    case AttrType::kFloat: return combine(h, std::hash<double>()(as_float()));
    case AttrType::kBool: return combine(h, as_bool());
    case AttrType::kString: return combine(h, std::hash<std::string>()(as_string()));
    case AttrType::kDType: {
      DataType d = as_dtype();
      return combine(h, (size_t{d.code} << 24) | (size_t{d.bits} << 16) | d.lanes);
    }
    case AttrType::kIntList:
      for (int64_t e : as_int_list()) h = combine(h, std::hash<int64_t>()(e));
      return combine(h, as_int_list().size());
    case AttrType::kFloatList:
      for (double e : as_float_list()) h = combine(h, std::hash<double>()(e));
      return combine(h, as_float_list().size());
    case AttrType::kList:
      for (const auto& e : as_list()) h = combine(h, e.hash());
      return combine(h, as_list().size());
    case AttrType::kAny: break;
  }
  return h;
}

const AttrValue* AttrsNode::find(std::string_view name) const {
  for (const auto& [k, v] : entries)
    if (k == name) return &v;
  return nullptr;
}

const AttrValue& AttrsNode::at(std::string_view name) const {
  const AttrValue* v = find(name);
  WEFT_ICHECK(v != nullptr, "attrs have no field '" + std::string(name) + "'");
  return *v;
}

Attrs make_attrs(std::vector<std::pair<std::string, AttrValue>> entries) {
  if (entries.empty()) return empty_attrs();
  return make_ref<AttrsNode>(std::move(entries));
}

Attrs empty_attrs() {
  // Leaked on purpose: statics holding IR may outlive any other static here.
  static const Attrs* empty = new Attrs(make_ref<AttrsNode>(std::vector<std::pair<std::string, AttrValue>>{}));
  return *empty;
}

// Dictionaries: order is presentation, not meaning.
bool attrs_equal(const Attrs& a, const Attrs& b) {
  if (a.same_as(b)) return true;
  size_t na = a ? a->entries.size() : 0, nb = b ? b->entries.size() : 0;
  if (na != nb) return false;
  if (na == 0) return true;
  for (const auto& [k, v] : a->entries) {
    const AttrValue* w = b->find(k);
    if (!w || !(*w == v)) return false;
  }
  return true;
}

size_t attrs_hash(const Attrs& a) {
  if (!a) return 0;
  size_t h = 0;
  for (const auto& [k, v] : a->entries) h += combine(std::hash<std::string>()(k), v.hash());  // order-free
  return combine(h, a->entries.size());
}

AttrSchema& AttrSchema::add(AttrField field) {
  WEFT_ICHECK(find(field.name) == nullptr, "attr schema declares '" + field.name + "' twice");
  fields_.push_back(std::move(field));
  return *this;
}

const AttrField* AttrSchema::find(std::string_view name) const {
  for (const auto& f : fields_)
    if (f.name == name) return &f;
  return nullptr;
}

Attrs AttrSchema::normalize(std::string_view op_name, const Attrs& given, AttrDefaults defaults) const {
  const std::string op(op_name);
  auto expected_form = [](const AttrField& f) {
    return f.expected.empty() ? "a value of type " + std::string(attr_type_name(f.type)) : f.expected;
  };
  if (given) {
    for (size_t i = 0; i < given->entries.size(); ++i) {
      const std::string& name = given->entries[i].first;
      if (!find(name)) {
        std::string known;
        for (const auto& f : fields_) known += (known.empty() ? "" : ", ") + f.name;
        throw Error("unknown attribute '" + name + "'")
            .op(op)
            .attr(name)
            .expected(known.empty() ? "no attributes" : "one of: " + known);
      }
      for (size_t j = 0; j < i; ++j)
        if (given->entries[j].first == name) throw Error("attribute '" + name + "' given twice").op(op).attr(name);
    }
  }
  std::vector<std::pair<std::string, AttrValue>> out;
  out.reserve(fields_.size());
  for (const auto& field : fields_) {
    const AttrValue* value = given ? given->find(field.name) : nullptr;
    if (!value) {
      const std::optional<AttrValue>& fallback = field.default_for(defaults);
      if (!fallback)
        throw Error("missing required attribute '" + field.name + "'").op(op).attr(field.name).expected(expected_form(field));
      out.emplace_back(field.name, *fallback);
      continue;
    }
    if (defaults == AttrDefaults::kText && means_default(*value, field.default_for(defaults))) {
      out.emplace_back(field.name, *field.default_for(defaults));
      continue;
    }
    // None is accepted exactly where the default is None (an optional attr).
    if (value->is_none()) {
      const std::optional<AttrValue>& fallback = field.default_for(defaults);
      if (fallback && fallback->is_none()) {
        out.emplace_back(field.name, *value);
        continue;
      }
      throw Error("attribute '" + field.name + "' cannot be None").op(op).attr(field.name).expected(expected_form(field));
    }
    std::optional<AttrValue> coerced = value->coerce(field.type);
    if (!coerced)
      throw Error("attribute '" + field.name + "' has the wrong type: got " + std::string(attr_type_name(value->type())) +
                  " " + value->str())
          .op(op)
          .attr(field.name)
          .expected(expected_form(field));
    if (field.normalize) {
      const std::string invalid = "attribute '" + field.name + "' has an invalid value " + value->str();
      std::optional<AttrValue> normal;
      try {
        normal = field.normalize(*coerced);
      } catch (const Error& reason) {
        throw Error(invalid + ": " + reason.message())
            .status(reason.status())
            .op(op)
            .attr(field.name)
            .expected(expected_form(field));
      }
      if (!normal) throw Error(invalid).op(op).attr(field.name).expected(expected_form(field));
      coerced = std::move(normal);
    }
    out.emplace_back(field.name, std::move(*coerced));
  }
  return make_attrs(std::move(out));
}

}  // namespace weft
