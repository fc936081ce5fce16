// The TE of Relay: a typed op call's outputs from its op's te_compute, and a
// typed Primitive function (one FuseOps group) as one TE graph, its calls'
// computes chained as the function chains the calls. What targets that
// generate code lower (lower.h), and what `weft opt --emit te` prints.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "weft/expr.h"
#include "weft/te/tensor.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// Whether the TE layer can describe `call`: an op call with a te_compute and
/// static shapes (what a TE target's supports() asks).
bool has_te(const Call& call);

/// The op's te_compute of a typed call over `inputs` (one per input tensor
/// of the call, a tuple argument's fields one by one), checked against the
/// call's type: one tensor per output tensor, of its shape and dtype. Error
/// naming the op otherwise; kUnsupported where the op has no TE (for it).
std::vector<Tensor> call_te(const Call& call, std::span<const Tensor> inputs);

/// A Primitive function as TE.
struct FunctionTe {
  /// One placeholder per parameter tensor (a tuple parameter's fields
  /// depth-first), named after the parameter: the kernel's inputs.
  std::vector<Tensor> params;
  /// Placeholders standing for the function's constants, with their data.
  std::vector<std::pair<Tensor, weft::Tensor>> constants;
  /// One tensor per result tensor, each a compute of its own (a result that
  /// is a parameter, a constant, an output of a multi-output compute or
  /// another result again is copied).
  std::vector<Tensor> outputs;
  /// The placeholders in the order a lowered kernel takes them: params, then
  /// constants.
  std::vector<Tensor> inputs() const;
};

/// The TE of a typed function of op calls, tuples and projections (a
/// Primitive function). Error naming what it cannot describe.
FunctionTe function_te(const Function& fn);

}  // namespace weft::te

#pragma GCC visibility pop
