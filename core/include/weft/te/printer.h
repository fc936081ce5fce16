// Readable text of TE and of the loop IR, for tests, `weft opt --emit` and
// debugging. Names are the ones given at construction, made unique per print
// (a second, different `k` prints as `k_1`).
//
//   x = placeholder((4, 8), float32)
//   relu = compute((4, 8), [i, j]): max(x[i, j], 0f)
//   matmul = compute((4, 4), [i, j]): sum(a[i, k] * b[k, j], axis=[k: 8])
#pragma once

#include <string>
#include <vector>

#include "weft/te/expr.h"
#include "weft/te/loop_ir.h"
#include "weft/te/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

std::string print(const PrimExpr& e);
/// A shape as "(4, 8)", a 1-D one as "(4,)".
std::string print_shape(const std::vector<int64_t>& shape);
/// Every stage the outputs depend on, producers first, one per line.
std::string print(const std::vector<Tensor>& outputs);
/// A loop nest, indented two spaces per level.
std::string print(const Stmt& s);
/// The kernel's signature, then its body.
std::string print(const LoweredFunc& f);

}  // namespace weft::te

#pragma GCC visibility pop
