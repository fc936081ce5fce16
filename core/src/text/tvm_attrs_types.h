// TVM v0.19's Relay attrs structs, as the text parser needs them to read a
// call's attributes printed as `meta[relay.attrs.XAttrs][N]`: each struct's
// type key and its fields' member types (which say how SaveJSON wrote each
// field), and the attrs types a call to each op may hold. The table,
// tvm_attrs_types.cpp, is generated from TVM's sources by
// tests/golden/tvm_attrs/gen_tvm_attr_defaults.py --cpp-table.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace weft::text {

/// How a field sits in the metadata JSON (node/serialization.cc's JSONAttrGetter).
enum class TvmFieldKind : uint8_t {
  // Scalars, written as a string in the node's "attrs".
  kInt,     ///< int, int64_t: "1"
  kFloat,   ///< double: 17 significant digits
  kBool,    ///< bool: "0" or "1"
  kString,  ///< std::string: the text itself
  kDType,   ///< DataType: "float32", "" for void
  // ObjectRefs, written as the index of their node ("0": null).
  kIntImm,            ///< Integer, IndexExpr, PrimExpr, Bool: an IntImm (or FloatImm) node
  kFloatImm,          ///< FloatImm: a FloatImm node
  kStringObj,         ///< tvm::String: a runtime.String node
  kArray,             ///< Array<...>: an Array node of such nodes
  kBoxedIntOrArray,   ///< Variant<runtime::Int, Array<runtime::Int>> (split's indices_or_sections)
  kUnsupported,       ///< Expr, VirtualDevice, Map, ...: no weft attr value holds them
};

/// One field of an attrs struct.
struct TvmAttrsField {
  std::string_view name;
  TvmFieldKind kind;
  std::string_view member_type;  ///< as the struct declares it, for messages
};

/// One attrs struct: its type key ("relay.attrs.Conv2DAttrs") and fields.
struct TvmAttrsType {
  std::string_view type_key;
  std::span<const TvmAttrsField> fields;
};

/// The attrs type keys a call to `op` may hold: the one it registers and, where
/// it differs, the one its Make function builds (nn.avg_pool2d_grad registers
/// MaxPool2DAttrs and builds AvgPool2DAttrs); the second is empty otherwise.
struct TvmOpAttrsTypes {
  std::string_view op;
  std::array<std::string_view, 2> type_keys;
};

/// The struct with `type_key`, or nullptr.
const TvmAttrsType* find_tvm_attrs_type(std::string_view type_key);

/// The attrs types of `op`, or nullptr when TVM's `op` has none (or TVM has no `op`).
const TvmOpAttrsTypes* find_tvm_op_attrs_types(std::string_view op);

}  // namespace weft::text
