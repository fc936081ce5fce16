// The loop-IR evaluator: runs a lowered function on host tensors, one
// statement at a time, computing each operation in its dtype exactly as the
// reference kernels do (float32 in float, no wider accumulator). Slow and
// exact: it is the oracle that checks TE computes and schedules without a
// code generator (the `loops` target runs it).
#pragma once

#include <vector>

#include "weft/te/loop_ir.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// Runs f with `inputs` and `outputs` (one tensor per parameter, of its shape
/// and dtype; Error naming the parameter otherwise), writing the outputs.
void evaluate(const LoweredFunc& f, const std::vector<weft::Tensor>& inputs, const std::vector<weft::Tensor>& outputs);
/// evaluate() into new output tensors.
std::vector<weft::Tensor> evaluate(const LoweredFunc& f, const std::vector<weft::Tensor>& inputs);

}  // namespace weft::te

#pragma GCC visibility pop
