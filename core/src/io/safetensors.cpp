// safetensors files (https://github.com/huggingface/safetensors, "Format"):
//   8 bytes   N, little-endian u64
//   N bytes   JSON: {"__metadata__": {str: str}, NAME: {"dtype": "F32",
//             "shape": [2, 3], "data_offsets": [BEGIN, END]}, ...}
//   rest      the data; offsets are relative to its start, and the tensors
//             must cover it exactly, without holes or overlaps.
// The checks are the reference library's: header size limit, a JSON object
// without duplicate keys, offsets contiguous in data order, each span exactly
// shape * itemsize bytes, the buffer fully used.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "io_util.h"
#include "weft/tensor_io.h"

namespace weft {

namespace {

using io::file_error;
using Json = nlohmann::ordered_json;

// The reference library's limit on the header size.
constexpr uint64_t kMaxHeaderSize = 100'000'000;
constexpr std::string_view kMetadataKey = "__metadata__";

struct DtypeName {
  const char* name;
  DataType dtype;
};
constexpr DtypeName kDtypes[] = {
    {"F16", DataType::Float(16)}, {"BF16", DataType::BFloat(16)}, {"F32", DataType::Float(32)},
    {"F64", DataType::Float(64)}, {"I8", DataType::Int(8)},       {"I16", DataType::Int(16)},
    {"I32", DataType::Int(32)},   {"I64", DataType::Int(64)},     {"U8", DataType::UInt(8)},
    {"U16", DataType::UInt(16)},  {"U32", DataType::UInt(32)},    {"U64", DataType::UInt(64)},
    {"BOOL", DataType::Bool()},
};
constexpr const char* kDtypeList = "one of F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, BOOL";

std::optional<DataType> dtype_of(std::string_view name) {
  for (const DtypeName& d : kDtypes)
    if (name == d.name) return d.dtype;
  return std::nullopt;
}

const char* name_of(DataType dtype, std::string_view source) {
  for (const DtypeName& d : kDtypes)
    if (dtype == d.dtype) return d.name;
  throw file_error(source, "safetensors has no dtype for " + dtype.str()).expected(kDtypeList);
}

// Parses the header, rejecting duplicate keys at any depth (nlohmann would keep
// one silently; the reference library refuses the file).
Json parse_header_json(std::string_view text, std::string_view source) {
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open_objects.emplace_back();
    else if (event == Json::parse_event_t::object_end) open_objects.pop_back();
    else if (event == Json::parse_event_t::key && !open_objects.back().insert(parsed.get<std::string>()).second &&
             duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  Json header;
  try {
    header = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::exception& e) {
    throw file_error(source, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!duplicate.empty()) throw file_error(source, "the header has the key '" + duplicate + "' twice");
  if (!header.is_object()) throw file_error(source, "the header is not a JSON object");
  return header;
}

std::vector<uint64_t> unsigned_list(const Json& entry, const char* field, const std::string& where) {
  auto it = entry.find(field);
  if (it == entry.end()) throw file_error(where, std::string("has no '") + field + "'");
  std::vector<uint64_t> values;
  if (it->is_array()) {
    for (const Json& v : *it) {
      if (!v.is_number_unsigned()) break;
      values.push_back(v.get<uint64_t>());
    }
  }
  if (!it->is_array() || values.size() != it->size())
    throw file_error(where, std::string("'") + field + "' is " + it->dump()).expected("a list of non-negative integers");
  return values;
}

struct Entry {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& name, const Json& entry, std::string_view source) {
  std::string where = std::string(source) + " (tensor " + name + ")";
  if (!entry.is_object()) throw file_error(where, "is " + entry.dump()).expected("an object with dtype, shape, data_offsets");
  Entry e{name, {}, {}, 0, 0};
  auto dtype = entry.find("dtype");
  if (dtype == entry.end()) throw file_error(where, "has no 'dtype'");
  std::optional<DataType> dt = dtype->is_string() ? dtype_of(dtype->get<std::string>()) : std::nullopt;
  if (!dt) throw file_error(where, "dtype " + dtype->dump() + " is not supported").expected(kDtypeList);
  e.dtype = *dt;
  for (uint64_t d : unsigned_list(entry, "shape", where)) {
    if (d > static_cast<uint64_t>(INT64_MAX)) throw file_error(where, "a dimension does not fit in 64 bits");
    e.shape.push_back(static_cast<int64_t>(d));
  }
  std::vector<uint64_t> offsets = unsigned_list(entry, "data_offsets", where);
  if (offsets.size() != 2 || offsets[1] < offsets[0])
    throw file_error(where, "data_offsets is " + entry["data_offsets"].dump()).expected("[BEGIN, END] with BEGIN <= END");
  e.begin = offsets[0];
  e.end = offsets[1];
  return e;
}

std::map<std::string, std::string> parse_metadata(const Json& metadata, std::string_view source) {
  std::map<std::string, std::string> out;
  bool ok = metadata.is_object();
  if (ok)
    for (const auto& [key, value] : metadata.items()) {
      if (!value.is_string()) ok = false;
      else out[key] = value.get<std::string>();
    }
  if (!ok) throw file_error(source, "__metadata__ is " + metadata.dump()).expected("an object of string values");
  return out;
}

}  // namespace

SafetensorsContents parse_safetensors(std::span<const std::byte> bytes, std::string_view source_name) {
  if (bytes.size() < 8) throw file_error(source_name, "truncated: no 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  if (n > kMaxHeaderSize)
    throw file_error(source_name, "header length " + std::to_string(n) + " is too large")
        .expected("at most " + std::to_string(kMaxHeaderSize) + " bytes");
  if (n > bytes.size() - 8)
    throw file_error(source_name, "header length " + std::to_string(n) + " runs past the end of the file (" +
                                      std::to_string(bytes.size()) + " bytes)");
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), n);
  if (text.empty() || text[0] != '{') throw file_error(source_name, "the header does not start with '{'");
  Json header = parse_header_json(text, source_name);
  std::span<const std::byte> data = bytes.subspan(8 + n);

  SafetensorsContents contents;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) contents.metadata = parse_metadata(value, source_name);
    else entries.push_back(parse_entry(key, value, source_name));
  }
  // Data order; each tensor must start where the previous one ended.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t expected_begin = 0;
  for (const Entry& e : entries) {
    std::string where = std::string(source_name) + " (tensor " + e.name + ")";
    if (e.begin != expected_begin)
      throw file_error(where, "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "] " +
                                  (e.begin < expected_begin ? "overlap the previous tensor's data" : "leave a hole"))
          .expected("BEGIN = " + std::to_string(expected_begin));
    if (e.end > data.size())
      throw file_error(where, "data_offsets end " + std::to_string(e.end) + " is past the end of the data (" +
                                  std::to_string(data.size()) + " bytes)");
    uint64_t nbytes = io::checked_nbytes(e.shape, e.dtype.bytes(), where);
    if (nbytes != e.end - e.begin)
      throw file_error(where, "data_offsets span " + std::to_string(e.end - e.begin) + " bytes for shape " +
                                  io::shape_text(e.shape) + " of " + e.dtype.str())
          .expected(std::to_string(nbytes) + " bytes");
    Tensor t = Tensor::from_bytes(e.shape, e.dtype, data.subspan(e.begin, nbytes));
    io::normalize_bools(t);
    contents.tensors.emplace_back(e.name, std::move(t));
    expected_begin = e.end;
  }
  if (expected_begin != data.size())
    throw file_error(source_name, "the data has " + std::to_string(data.size() - expected_begin) +
                                      " bytes no tensor refers to")
        .expected("tensors covering all " + std::to_string(data.size()) + " data bytes");
  return contents;
}

NamedTensors load_safetensors(const std::filesystem::path& path) {
  std::vector<std::byte> bytes = io::read_file_bytes(path);
  return parse_safetensors(bytes, path.string()).tensors;
}

void save_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata) {
  std::string where = path.string();
  io::check_writable(tensors, where);
  Json header = Json::object();
  if (!metadata.empty()) header[std::string(kMetadataKey)] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name == kMetadataKey) throw file_error(where, "a tensor cannot be named __metadata__");
    header[name] = {{"dtype", name_of(tensor.dtype(), where + " (tensor " + name + ")")},
                    {"shape", tensor.shape()},
                    {"data_offsets", {offset, offset + tensor.nbytes()}}};
    offset += tensor.nbytes();
  }
  std::string text = header.dump();
  // As the reference writer: spaces pad the header so the data starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');

  std::vector<std::byte> out(8 + text.size());
  for (size_t i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff);
  std::memcpy(out.data() + 8, text.data(), text.size());
  for (const auto& entry : tensors) {
    const auto* data = static_cast<const std::byte*>(entry.second.data());
    out.insert(out.end(), data, data + entry.second.nbytes());
  }
  io::write_file_bytes(path, out);
}

}  // namespace weft
