// The two directions of FoldScaleAxis over one function (Relay's
// ForwardFoldScaleAxis and BackwardFoldScaleAxis expressions); the function
// must be typed. Both walk the graph with explicit stacks.
#pragma once

#include "graph.h"

namespace weft::fold_scale_axis {

/// multiply(x, s) followed (through add/subtract and, for s >= 0, relu) by a
/// conv2d or dense becomes x into that op with its weight multiplied by s.
Expr forward_fold(const Expr& function);

/// A conv2d or dense followed (through add/subtract/bias_add and, for
/// s >= 0, relu) by multiply(., s) becomes that op with its weight multiplied by s.
Expr backward_fold(const Expr& function);

}  // namespace weft::fold_scale_axis
