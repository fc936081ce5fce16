// The `#[metadata]` section of the Relay text format: TVM's JSON object graph
// (nodes referring to each other by index, tensors as base64 "b64ndarrays" in
// the NDArray binary layout) holding the constants `meta[relay.Constant][N]`
// refers to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"
#include "weft/expr.h"

namespace weft::text {

/// The constants listed under "relay.Constant", in index order. Other keys are
/// ignored. Throws weft::Error at `loc` when the JSON, the node graph or a
/// tensor's bytes are malformed.
std::vector<Constant> read_metadata_constants(std::string_view json, const SourceLoc& loc);

/// The JSON text of a metadata section holding `constants` under
/// "relay.Constant", as TVM writes it (without the `#[metadata]` line).
std::string write_metadata(const std::vector<Constant>& constants);

}  // namespace weft::text
