// `weft run` on a classifier (a program whose main ends in softmax over
// (batch, classes)): the most likely classes of each batch row.
#pragma once

#include <ostream>

#include "weft/module.h"
#include "weft/tensor.h"

namespace weft::cli {

/// main's body is an nn.softmax call giving a (batch, classes) tensor.
bool is_classifier(const IRModule& typed_mod);

/// For each batch row of `probabilities` (batch, classes): the `k` largest
/// (ties by the lower class index), as "class 281: 0.0123".
void print_top_classes(std::ostream& out, const Tensor& probabilities, int k = 5);

}  // namespace weft::cli
