// Reading `meta[relay.attrs.XAttrs][N]` call attributes (see meta_attrs.h).
//
// SaveJSON (node/serialization.cc) writes an attrs node's every field into its
// "attrs" map as a string: scalars as text (int "1", bool "0"/"1", double with
// 17 digits, std::string as is, DataType "float32" or "" for void), ObjectRefs
// as the index of their node ("0" is the null node). Nodes: IntImm/FloatImm
// with attrs "dtype" and "value", runtime.String and runtime.BoxInt with their
// text in repr_str, Array with its elements' indices in "data".
#include "meta_attrs.h"

#include <charconv>

#include "tvm_attrs_types.h"

namespace weft::text {

namespace {

// Deeper than any attr TVM has (pad_width: an Array of Arrays of IntImms).
constexpr int kMaxDepth = 8;

class MetaAttrsReader {
 public:
  MetaAttrsReader(const Metadata& meta, std::string_view op, const SourceLoc& loc) : meta_(meta), op_(op), loc_(loc) {}

  std::vector<std::pair<std::string, AttrValue>> read(std::string_view type_key, int64_t index) {
    std::string ref = "`meta[" + std::string(type_key) + "][" + std::to_string(index) + "]`";
    if (type_key == "DictAttrs") return dictionary(listed_node(type_key, index, ref), ref);
    const TvmOpAttrsTypes* of_op = find_tvm_op_attrs_types(op_);
    std::string op_types = !of_op ? std::string()
                           : std::string(of_op->type_keys[0]) +
                                 (of_op->type_keys[1].empty() ? "" : " or " + std::string(of_op->type_keys[1]));
    const TvmAttrsType* type = find_tvm_attrs_type(type_key);
    if (!type)
      fail(ref + ": TVM v0.19 has no attrs type " + std::string(type_key),
           of_op ? op_types : "the attributes inline, as key=value");
    if (!of_op) fail(ref + ": " + op_ + " takes no attrs type in TVM v0.19", "the attributes inline, as key=value");
    if (type_key != of_op->type_keys[0] && type_key != of_op->type_keys[1])
      fail(ref + " holds " + std::string(type_key) + ", which is not " + op_ + "'s attrs type", op_types);
    const MetaNode& attrs_node = listed_node(type_key, index, ref);
    std::vector<std::pair<std::string, AttrValue>> out;
    for (const auto& [name, text] : attrs_node.attrs) {
      field_ = name;
      const TvmAttrsField* field = nullptr;
      for (const TvmAttrsField& f : type->fields)
        if (f.name == name) field = &f;
      if (!field) {
        std::string names;
        for (const TvmAttrsField& f : type->fields) names += (names.empty() ? "" : ", ") + std::string(f.name);
        fail(ref + ": " + std::string(type_key) + " has no field `" + name + "`", "one of: " + names);
      }
      member_type_ = field->member_type;
      out.emplace_back(name, value(field->kind, text));
    }
    return out;
  }

 private:
  // The `index`th node the section lists under `type_key`.
  const MetaNode& listed_node(std::string_view type_key, int64_t index, const std::string& ref) const {
    auto listed = meta_.listed.find(std::string(type_key));
    size_t count = listed == meta_.listed.end() ? 0 : listed->second.size();
    if (index < 0 || static_cast<uint64_t>(index) >= count)
      fail(ref + " is out of range: the metadata section holds " + std::to_string(count) + " " + std::string(type_key) +
               " nodes",
           "an index below " + std::to_string(count));
    return meta_.nodes[listed->second[static_cast<size_t>(index)]];
  }

  // A DictAttrs node: its one field `__dict__` is a Map from String keys (the
  // attribute names) to objects.
  std::vector<std::pair<std::string, AttrValue>> dictionary(const MetaNode& attrs_node, const std::string& ref) {
    auto dict = attrs_node.attrs.find("__dict__");
    if (dict == attrs_node.attrs.end())
      fail(ref + ": the DictAttrs node has no field `__dict__`", "a `__dict__` field holding the index of a Map");
    field_ = "__dict__";
    member_type_ = "Map<String, ObjectRef>";
    const MetaNode& map = node(dict->second);
    std::vector<std::pair<std::string, AttrValue>> out;
    if (map.type_key.empty()) return out;  // a null Map: no attributes
    if (map.type_key != "Map") wrong_form("a " + map.type_key + " node");
    if (map.keys.size() != map.data.size()) wrong_form("a Map whose keys are not all strings");
    for (size_t i = 0; i < map.keys.size(); ++i) {
      field_ = map.keys[i];
      member_type_ = "ObjectRef";
      if (map.data[i] >= meta_.nodes.size()) wrong_form("a value that is no node index of the section");
      out.emplace_back(map.keys[i], object(meta_.nodes[map.data[i]], 0));
    }
    return out;
  }

  [[noreturn]] void fail(const std::string& message, const std::string& expected) const {
    Error e(message);
    e.op(op_);
    if (!field_.empty()) e.attr(field_);
    throw e.expected(expected).at(loc_);
  }

  // `text` is not in the form of the field's member type.
  [[noreturn]] void wrong_form(const std::string& what) const {
    fail("metadata field `" + field_ + "` holds " + what, "what SaveJSON writes for a member of type " + member_type_);
  }

  AttrValue value(TvmFieldKind kind, const std::string& text) {
    switch (kind) {
      case TvmFieldKind::kInt: return AttrValue(integer(text));
      case TvmFieldKind::kFloat: return AttrValue(floating(text));
      case TvmFieldKind::kBool:
        if (text != "0" && text != "1") wrong_form("\"" + text + "\", not \"0\" or \"1\"");
        return AttrValue(text == "1");
      case TvmFieldKind::kString: return AttrValue(text);
      case TvmFieldKind::kDType: return text.empty() ? AttrValue() : AttrValue(text);  // "" is void: unset
      default: break;
    }
    const MetaNode& n = node(text);
    if (n.type_key.empty()) return AttrValue();  // a null ObjectRef
    switch (kind) {
      case TvmFieldKind::kIntImm:
        if (n.type_key != "IntImm" && n.type_key != "FloatImm") wrong_form("a " + n.type_key + " node");
        break;
      case TvmFieldKind::kFloatImm:
        if (n.type_key != "FloatImm") wrong_form("a " + n.type_key + " node");
        break;
      case TvmFieldKind::kStringObj:
        if (n.type_key != "runtime.String") wrong_form("a " + n.type_key + " node");
        break;
      case TvmFieldKind::kArray:
        if (n.type_key != "Array") wrong_form("a " + n.type_key + " node");
        break;
      case TvmFieldKind::kBoxedIntOrArray:
        if (n.type_key != "runtime.BoxInt" && n.type_key != "Array") wrong_form("a " + n.type_key + " node");
        break;
      default: fail("metadata field `" + field_ + "` is a " + member_type_ + ", which weft has no attr value for", "None");
    }
    return object(n, 0);
  }

  // An IntImm, FloatImm, runtime.String, runtime.BoxInt or an Array of them.
  AttrValue object(const MetaNode& n, int depth) {
    if (depth > kMaxDepth) wrong_form("Arrays nested deeper than " + std::to_string(kMaxDepth) + " levels");
    if (n.type_key.empty()) return AttrValue();
    if (n.type_key == "IntImm") {
      auto dtype = n.attrs.find("dtype");
      int64_t v = integer(imm_value(n));
      return dtype != n.attrs.end() && dtype->second == "bool" ? AttrValue(v != 0) : AttrValue(v);
    }
    if (n.type_key == "FloatImm") return AttrValue(floating(imm_value(n)));
    if (n.type_key == "runtime.String") return AttrValue(n.repr);
    if (n.type_key == "runtime.BoxInt") return AttrValue(integer(n.repr));
    if (n.type_key != "Array") wrong_form("a " + n.type_key + " node");
    std::vector<AttrValue> items;
    for (size_t index : n.data) {
      if (index >= meta_.nodes.size()) wrong_form("an Array element that is not a node index");
      items.push_back(object(meta_.nodes[index], depth + 1));
    }
    return AttrValue(std::move(items));
  }

  const std::string& imm_value(const MetaNode& n) const {
    auto it = n.attrs.find("value");
    if (it == n.attrs.end()) wrong_form("an " + n.type_key + " node without a \"value\"");
    return it->second;
  }

  const MetaNode& node(const std::string& text) const {
    size_t index = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || index >= meta_.nodes.size())
      wrong_form("\"" + text + "\", which is no node index (the section has " + std::to_string(meta_.nodes.size()) +
                 " nodes)");
    return meta_.nodes[index];
  }

  int64_t integer(const std::string& text) const {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      wrong_form("\"" + text + "\", which is not a 64-bit integer");
    return v;
  }

  // As the 17 digits an ostream wrote; "inf" and "nan" too.
  double floating(const std::string& text) const {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      wrong_form("\"" + text + "\", which is not a number");
    return v;
  }

  const Metadata& meta_;
  std::string op_;
  SourceLoc loc_;
  std::string field_;
  std::string member_type_;
};

}  // namespace

std::vector<std::pair<std::string, AttrValue>> read_meta_call_attrs(const Metadata& meta, std::string_view type_key,
                                                                    int64_t index, std::string_view op,
                                                                    const SourceLoc& loc) {
  return MetaAttrsReader(meta, op, loc).read(type_key, index);
}

}  // namespace weft::text
