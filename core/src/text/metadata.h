// The `#[metadata]` section of the Relay text format: TVM's JSON object graph
// (nodes referring to each other by index, tensors as base64 "b64ndarrays" in
// the NDArray binary layout) holding the constants `meta[relay.Constant][N]`
// refers to, and the boxed integers `meta[runtime.BoxInt][N]` refers to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"
#include "weft/expr.h"

namespace weft::text {

/// What a metadata section holds for the text's `meta[TYPE][N]` references.
struct Metadata {
  /// meta[relay.Constant][N], in index order.
  std::vector<Constant> constants;
  /// meta[runtime.BoxInt][N]: the integers TVM keeps boxed in attrs (split's
  /// indices_or_sections), in index order.
  std::vector<int64_t> boxed_ints;
};

/// The constants listed under "relay.Constant" and the integers under
/// "runtime.BoxInt". Other keys are ignored. Throws weft::Error at `loc` when
/// the JSON, the node graph, a tensor's bytes or a boxed integer is malformed.
Metadata read_metadata(std::string_view json, const SourceLoc& loc);

/// The JSON text of a metadata section holding `constants` under
/// "relay.Constant", as TVM writes it (without the `#[metadata]` line).
std::string write_metadata(const std::vector<Constant>& constants);

}  // namespace weft::text
