// Element data types, laid out like DLPack's DLDataType so they cross the
// plugin boundary unchanged. Names follow Relay: float32, int64, uint8, bool.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct DataType {
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBFloat = 4 };

  uint8_t code = kFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static constexpr DataType Int(int bits) { return {kInt, static_cast<uint8_t>(bits), 1}; }
  static constexpr DataType UInt(int bits) { return {kUInt, static_cast<uint8_t>(bits), 1}; }
  static constexpr DataType Float(int bits) { return {kFloat, static_cast<uint8_t>(bits), 1}; }
  static constexpr DataType BFloat(int bits) { return {kBFloat, static_cast<uint8_t>(bits), 1}; }
  /// Relay's bool is a 1-bit unsigned integer.
  static constexpr DataType Bool() { return UInt(1); }

  /// Parses "float32", "int8", "uint1", "bool", "bfloat16", "float32x4".
  /// Throws weft::Error naming the text when it is not a dtype.
  static DataType parse(std::string_view text);
  /// The Relay spelling: "float32", "bool", ...
  std::string str() const;

  bool is_float() const { return code == kFloat || code == kBFloat; }
  bool is_int() const { return code == kInt; }
  bool is_uint() const { return code == kUInt; }
  bool is_bool() const { return code == kUInt && bits == 1; }
  /// Storage size of one element (bool takes a byte).
  size_t bytes() const { return (static_cast<size_t>(bits) * lanes + 7) / 8; }

  friend bool operator==(const DataType&, const DataType&) = default;
};

}  // namespace weft

#pragma GCC visibility pop
