// Reading and writing TVM's metadata section (see metadata.h).
//
// Layout, as tvm::SaveJSON writes it:
//   {"root": R, "nodes": [...], "b64ndarrays": [...], "attrs": {...}}
// node R is a Map whose key "relay.Constant" holds an Array of relay.Constant
// nodes; a constant's attrs.data is an index into b64ndarrays. Its key
// "runtime.BoxInt" holds an Array of runtime.BoxInt nodes, each with its value
// in decimal as "repr_str" (TVM's repr bytes for Box<int64_t>). Each array is
// TVM's NDArray save format: magic, reserved, device, ndim, dtype, shape,
// byte count, little-endian data.
#include "metadata.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

namespace weft::text {

namespace {

using json = nlohmann::json;

constexpr uint64_t kNDArrayMagic = 0xDD5E40F096B4A13Full;
constexpr char kBase64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::vector<unsigned char>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t{bytes[i]} << 16;
    if (i + 1 < bytes.size()) v |= uint32_t{bytes[i + 1]} << 8;
    if (i + 2 < bytes.size()) v |= bytes[i + 2];
    out += kBase64Chars[(v >> 18) & 63];
    out += kBase64Chars[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Chars[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64Chars[v & 63] : '=';
  }
  return out;
}

class MetadataReader {
 public:
  MetadataReader(std::string_view text, const SourceLoc& loc) : loc_(loc) {
    try {
      doc_ = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      fail(std::string("malformed metadata JSON: ") + e.what());
    }
  }

  Metadata read() {
    if (!doc_.is_object()) fail("the metadata section is not a JSON object");
    const json& nodes = member(doc_, "nodes");
    if (!nodes.is_array()) fail("metadata \"nodes\" is not an array");
    nodes_ = &nodes;
    const json& root = node(index_of(member(doc_, "root"), "root"));
    if (type_key(root) != "Map") fail("the metadata root is a " + type_key(root) + ", expected a Map");
    if (doc_.contains("b64ndarrays")) {
      arrays_ = &doc_["b64ndarrays"];
      if (!arrays_->is_array()) fail("metadata \"b64ndarrays\" is not an array");
    }
    Metadata out;
    for (const json* c : entries(root, "relay.Constant")) {
      const json& attrs = member(*c, "attrs");
      out.constants.push_back(constant(tensor(index_of(member(attrs, "data"), "relay.Constant data"))));
    }
    for (const json* box : entries(root, "runtime.BoxInt")) out.boxed_ints.push_back(boxed_int(*box));
    for (const std::string& key : map_keys(root)) {
      if (key == "relay.Constant" || key == "runtime.BoxInt") continue;
      out.listed[key] = entry_indices(root, key);
    }
    for (const json& n : nodes) out.nodes.push_back(meta_node(n));
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw Error(message).at(loc_); }

  const json& member(const json& obj, const char* key) const {
    if (!obj.is_object() || !obj.contains(key)) fail(std::string("metadata is missing \"") + key + "\"");
    return obj[key];
  }

  // Indices appear as numbers, or as strings inside "attrs".
  size_t index_of(const json& v, const std::string& what) const {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      size_t value = 0;
      if (s.empty() || s.size() > 18) fail("metadata " + what + " is not an index: \"" + s + "\"");
      for (char ch : s) {
        if (ch < '0' || ch > '9') fail("metadata " + what + " is not an index: \"" + s + "\"");
        value = value * 10 + static_cast<size_t>(ch - '0');
      }
      return value;
    }
    fail("metadata " + what + " is not an index");
  }

  const json& node(size_t index) const {
    if (index >= nodes_->size())
      fail("metadata node index " + std::to_string(index) + " is out of range (" + std::to_string(nodes_->size()) +
           " nodes)");
    const json& n = (*nodes_)[index];
    if (!n.is_object()) fail("metadata node " + std::to_string(index) + " is not an object");
    return n;
  }

  std::string type_key(const json& n) const {
    if (!n.contains("type_key") || !n["type_key"].is_string()) fail("a metadata node has no type_key");
    return n["type_key"].get<std::string>();
  }

  const json& data_of(const json& n) const {
    static const json empty = json::array();
    if (!n.contains("data")) return empty;
    if (!n["data"].is_array()) fail("metadata node data is not an array");
    return n["data"];
  }

  // The indices of the nodes of type `key` listed under `key` in the root map
  // (none when the map has no such key).
  std::vector<size_t> entry_indices(const json& root, const std::string& key) const {
    std::vector<size_t> out;
    std::optional<size_t> list = map_value(root, key);
    if (!list) return out;
    const json& array = node(*list);
    if (type_key(array) != "Array") fail("metadata " + key + " entry is a " + type_key(array) + ", expected an Array");
    for (const json& item : data_of(array)) {
      size_t index = index_of(item, "Array element");
      const json& n = node(index);
      if (type_key(n) != key) fail("metadata " + key + " list holds a " + type_key(n) + ", expected " + key);
      out.push_back(index);
    }
    return out;
  }

  std::vector<const json*> entries(const json& root, const std::string& key) const {
    std::vector<const json*> out;
    for (size_t index : entry_indices(root, key)) out.push_back(&node(index));
    return out;
  }

  // A Box<int64_t>: its decimal repr, as std::atoll reads it back in TVM, but
  // strictly (a sign, digits, within int64).
  int64_t boxed_int(const json& box) const {
    if (!box.contains("repr_str") || !box["repr_str"].is_string())
      fail("metadata runtime.BoxInt node has no \"repr_str\" holding its value");
    const std::string& text = box["repr_str"].get_ref<const std::string&>();
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      fail("metadata runtime.BoxInt value \"" + text + "\" is not a 64-bit integer");
    return value;
  }

  // The string keys of the root map (TVM >= 0.8 writes no other).
  std::vector<std::string> map_keys(const json& map) const {
    std::vector<std::string> out;
    if (map.contains("keys") && map["keys"].is_array())
      for (const json& k : map["keys"])
        if (k.is_string()) out.push_back(k.get<std::string>());
    return out;
  }

  // A node as it is, its fields unread: malformed parts are left for the
  // reader of the reference to report (a field that is not a string keeps its
  // JSON text; an element that is no index points past the nodes).
  MetaNode meta_node(const json& n) const {
    MetaNode out;
    if (!n.is_object()) return out;
    if (n.contains("type_key") && n["type_key"].is_string()) out.type_key = n["type_key"].get<std::string>();
    if (n.contains("repr_str") && n["repr_str"].is_string()) out.repr = n["repr_str"].get<std::string>();
    if (n.contains("repr_b64") && n["repr_b64"].is_string()) {
      std::vector<unsigned char> bytes = base64_decode(n["repr_b64"].get<std::string>());
      out.repr.assign(bytes.begin(), bytes.end());
    }
    if (n.contains("attrs") && n["attrs"].is_object())
      for (const auto& [key, value] : n["attrs"].items())
        out.attrs[key] = value.is_string() ? value.get<std::string>() : value.dump();
    if (n.contains("data") && n["data"].is_array())
      for (const json& item : n["data"])
        out.data.push_back(item.is_number_unsigned() ? item.get<uint64_t>() : nodes_->size());
    if (n.contains("keys") && n["keys"].is_array())
      for (const json& key : n["keys"]) out.keys.push_back(key.is_string() ? key.get<std::string>() : key.dump());
    return out;
  }

  // The node index stored under `key` in the root map: string keys in "keys"
  // (TVM >= 0.8), or key nodes and values interleaved in "data".
  std::optional<size_t> map_value(const json& map, const std::string& key) const {
    const json& data = data_of(map);
    if (map.contains("keys")) {
      const json& keys = map["keys"];
      if (!keys.is_array() || keys.size() != data.size()) fail("metadata map keys and data differ in length");
      for (size_t i = 0; i < keys.size(); ++i)
        if (keys[i].is_string() && keys[i].get_ref<const std::string&>() == key)
          return index_of(data[i], "map value");
      return std::nullopt;
    }
    if (data.size() % 2) fail("metadata map data has an odd length");
    for (size_t i = 0; i < data.size(); i += 2) {
      const json& key_node = node(index_of(data[i], "map key"));
      if (key_node.contains("repr_str") && key_node["repr_str"].is_string() && key_node["repr_str"] == key)
        return index_of(data[i + 1], "map value");
    }
    return std::nullopt;
  }

  std::vector<unsigned char> base64_decode(const std::string& s) const {
    std::vector<unsigned char> out;
    uint32_t acc = 0;
    int bits = 0;
    bool padding = false;
    for (char ch : s) {
      if (ch == '\n' || ch == '\r' || ch == ' ') continue;
      if (ch == '=') {
        padding = true;
        continue;
      }
      const char* p = std::strchr(kBase64Chars, ch);
      if (ch == '\0' || !p || padding) fail("metadata b64ndarrays holds invalid base64");
      acc = (acc << 6) | static_cast<uint32_t>(p - kBase64Chars);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push_back(static_cast<unsigned char>((acc >> bits) & 0xFF));
      }
    }
    return out;
  }

  Tensor tensor(size_t index) const {
    if (!arrays_ || index >= arrays_->size() || !(*arrays_)[index].is_string())
      fail("metadata constant refers to tensor " + std::to_string(index) + ", which b64ndarrays does not hold");
    std::vector<unsigned char> bytes = base64_decode((*arrays_)[index].get<std::string>());
    size_t pos = 0;
    std::string what = "metadata tensor " + std::to_string(index);
    auto read = [&](void* dst, size_t n) {
      if (bytes.size() - pos < n) fail(what + " is truncated");
      std::memcpy(dst, bytes.data() + pos, n);
      pos += n;
    };
    uint64_t magic = 0, reserved = 0;
    int32_t device[2], ndim = 0;
    uint8_t code = 0, nbits = 0;
    uint16_t lanes = 0;
    read(&magic, 8);
    if (magic != kNDArrayMagic) fail(what + " does not start with the NDArray magic number");
    read(&reserved, 8);
    read(device, 8);
    read(&ndim, 4);
    read(&code, 1);
    read(&nbits, 1);
    read(&lanes, 2);
    if (ndim < 0 || ndim > 32) fail(what + " has " + std::to_string(ndim) + " dimensions");
    DataType dtype{code, nbits, lanes};
    bool known = lanes == 1 && ((code == DataType::kFloat && (nbits == 16 || nbits == 32 || nbits == 64)) ||
                                (code == DataType::kBFloat && nbits == 16) ||
                                ((code == DataType::kInt || code == DataType::kUInt) &&
                                 (nbits == 8 || nbits == 16 || nbits == 32 || nbits == 64)) ||
                                (code == DataType::kUInt && nbits == 1));
    if (!known)
      fail(what + " has an unsupported dtype (code " + std::to_string(code) + ", bits " + std::to_string(nbits) +
           ", lanes " + std::to_string(lanes) + ")");
    std::vector<int64_t> shape(static_cast<size_t>(ndim));
    // Every element takes at least a byte, so the product of the non-zero
    // dims is bounded by the bytes present (which also keeps it from overflowing).
    uint64_t nonzero_numel = 1;
    bool empty = false;
    for (auto& d : shape) {
      read(&d, 8);
      if (d < 0) fail(what + " has a negative dimension");
      if (d == 0) {
        empty = true;
      } else if (__builtin_mul_overflow(nonzero_numel, static_cast<uint64_t>(d), &nonzero_numel) ||
                 nonzero_numel > bytes.size()) {
        fail(what + " has more elements than its bytes can hold");
      }
    }
    uint64_t numel = empty ? 0 : nonzero_numel;
    int64_t data_size = 0;
    read(&data_size, 8);
    uint64_t expected = numel * dtype.bytes();
    if (data_size < 0 || static_cast<uint64_t>(data_size) != expected)
      fail(what + " declares " + std::to_string(data_size) + " data bytes; its shape and dtype need " +
           std::to_string(expected));
    if (bytes.size() - pos < expected) fail(what + " is truncated");
    if (dtype.is_bool())
      for (uint64_t i = 0; i < expected; ++i)
        if (bytes[pos + i] > 1) fail(what + " is a bool array holding a byte other than 0 or 1");
    return Tensor::from_bytes(shape, dtype,
                              std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data() + pos), expected));
  }

  SourceLoc loc_;
  json doc_;
  const json* nodes_ = nullptr;
  const json* arrays_ = nullptr;
};

std::vector<unsigned char> ndarray_bytes(const Tensor& t) {
  std::vector<unsigned char> out;
  auto put = [&](const void* p, size_t n) {
    auto* b = static_cast<const unsigned char*>(p);
    out.insert(out.end(), b, b + n);
  };
  uint64_t magic = kNDArrayMagic, reserved = 0;
  int32_t device[2] = {1, 0};  // kDLCPU, 0
  int32_t ndim = t.ndim();
  DataType d = t.dtype();
  put(&magic, 8);
  put(&reserved, 8);
  put(device, 8);
  put(&ndim, 4);
  put(&d.code, 1);
  put(&d.bits, 1);
  put(&d.lanes, 2);
  for (int64_t dim : t.shape()) put(&dim, 8);
  int64_t size = static_cast<int64_t>(t.nbytes());
  put(&size, 8);
  put(t.data(), t.nbytes());
  return out;
}

}  // namespace

Metadata read_metadata(std::string_view json_text, const SourceLoc& loc) {
  return MetadataReader(json_text, loc).read();
}

std::string write_metadata(const std::vector<Constant>& constants) {
  json nodes = json::array();
  nodes.push_back({{"type_key", ""}});
  nodes.push_back({{"type_key", "Map"}, {"keys", {"relay.Constant"}}, {"data", {2}}});
  json items = json::array();
  for (size_t i = 0; i < constants.size(); ++i) items.push_back(3 + i);
  nodes.push_back({{"type_key", "Array"}, {"data", items}});
  json arrays = json::array();
  for (size_t i = 0; i < constants.size(); ++i) {
    nodes.push_back({{"type_key", "relay.Constant"},
                     {"attrs", {{"_checked_type_", "0"}, {"data", std::to_string(i)}, {"span", "0"}, {"virtual_device_", "0"}}}});
    arrays.push_back(base64_encode(ndarray_bytes(constants[i]->data)));
  }
  json doc = {{"root", 1}, {"nodes", nodes}, {"b64ndarrays", arrays}, {"attrs", {{"tvm_version", "0.19.0"}}}};
  return doc.dump(2);
}

}  // namespace weft::text
