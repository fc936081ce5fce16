// Lowering: a scheduled TE graph becomes one loop-IR function. Each stage not
// inlined becomes a loop nest (its schedule's loops, outermost first) writing
// its buffer: outputs are the function's output parameters, intermediates are
// allocated inside it, placeholders are its inputs. A reduction initializes
// its accumulator just outside its reduce loops and updates it inside them.
// The result is simplified and its bounds proven (bounds_check.h).
#pragma once

#include <string>
#include <vector>

#include "weft/te/loop_ir.h"
#include "weft/te/schedule.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// The loop IR of `schedule`. Inputs are the placeholders in `inputs`' order
/// when given (it must list each one), else in the order the graph reaches
/// them. Error for a schedule that cannot be lowered (an inlined output);
/// InternalError when an access cannot be proven in bounds.
LoweredFunc lower(const Schedule& schedule, std::string name = "main", const std::vector<Tensor>& inputs = {});
/// lower() with the default schedule of `outputs`.
LoweredFunc lower(const std::vector<Tensor>& outputs, std::string name = "main", const std::vector<Tensor>& inputs = {});

}  // namespace weft::te

#pragma GCC visibility pop
