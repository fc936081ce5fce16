// The `#[metadata]` section of the Relay text format: TVM's JSON object graph
// (nodes referring to each other by index, tensors as base64 "b64ndarrays" in
// the NDArray binary layout) holding the constants `meta[relay.Constant][N]`
// refers to, the boxed integers `meta[runtime.BoxInt][N]` refers to, and the
// nodes other references (`meta[relay.attrs.Conv2DAttrs][N]`) name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"
#include "weft/expr.h"

namespace weft::text {

/// A node of the metadata's object graph, as SaveJSON wrote it.
struct MetaNode {
  std::string type_key;  ///< "" for the null node
  std::string repr;      ///< repr_str, or repr_b64 decoded (runtime.String's text)
  /// The fields, each as the string SaveJSON wrote (a scalar, or a node index).
  std::map<std::string, std::string> attrs;
  /// An Array's elements, or a Map's values, as node indices (one past the
  /// nodes when malformed).
  std::vector<size_t> data;
  /// A Map's string keys, one per value in `data`.
  std::vector<std::string> keys;
};

/// What a metadata section holds for the text's `meta[TYPE][N]` references.
struct Metadata {
  /// meta[relay.Constant][N], in index order.
  std::vector<Constant> constants;
  /// meta[runtime.BoxInt][N]: the integers TVM keeps boxed in attrs (split's
  /// indices_or_sections), in index order.
  std::vector<int64_t> boxed_ints;
  /// Every node, for what the nodes under other keys refer to.
  std::vector<MetaNode> nodes;
  /// The nodes (indices into `nodes`) listed under each other key of the root
  /// map, as meta[KEY][N] numbers them (relay.attrs.Conv2DAttrs, ...).
  std::map<std::string, std::vector<size_t>> listed;
};

/// The constants listed under "relay.Constant", the integers under
/// "runtime.BoxInt" and, unread, the nodes under other keys. Throws
/// weft::Error at `loc` when the JSON, the node graph, a tensor's bytes or a
/// boxed integer is malformed (what other nodes hold is checked where the text
/// refers to them).
Metadata read_metadata(std::string_view json, const SourceLoc& loc);

/// The JSON text of a metadata section holding `constants` under
/// "relay.Constant", as TVM writes it (without the `#[metadata]` line).
std::string write_metadata(const std::vector<Constant>& constants);

}  // namespace weft::text
