// The default schedule of a fused group's TE, written once in the core and
// parameterized by what the target declares: injective stages that are not
// outputs are inlined into their consumers (as FuseOps grouped them); an
// injective output has its axes fused into one loop, split by the vector
// width (where it divides) with the inner loop vectorized and the outer one
// parallel when the target has several cores. A reduction keeps its data
// loops outside its reduce loops, the outermost parallel, and its innermost
// data axis split by the vector width (where it divides), the lanes
// vectorized inside the reduce loops. A contraction (convolution, dense,
// matmul: a sum of products of two reads) is computed in register tiles:
// rows along the innermost axis that the vector reads do not depend on (so
// each vector loaded serves every row) by whole vectors along the innermost
// axis, its reduce loops outside the tile, each tile written out (through
// the bias and activation fused after it) as soon as it is complete; the
// blocks of columns outside the blocks of rows, so the operand read along
// the columns stays in cache while every row block uses it. On a target of
// many threads (a GPU), every stage's data loops outside its register tile
// fuse into one parallel loop whatever its work: each iteration is a thread.
#pragma once

#include <vector>

#include "weft/attrs.h"
#include "weft/te/schedule.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// What a target tells the default schedules about itself.
struct TargetTraits {
  int vector_lanes = 1;       // elements of one vector register (1: no vectors)
  int cores = 1;              // cores a parallel loop may use
  int vector_registers = 16;  // how many vector registers a tile may use
  /// The least work (elements times reduction steps) a stage runs on several
  /// cores for: below it, starting the others costs more than they save.
  int64_t parallel_work = int64_t{1} << 16;
  /// The target runs a parallel loop's iterations as threads of a GPU, by
  /// the thousand: each stage is one parallel loop over its data (its
  /// register tiles), whatever its work.
  bool many_threads = false;
};

/// The traits a target's normalized options give in the fields
/// `vector_lanes`, `vector_registers`, `cores`, `parallel_work` and `many_threads` (the
/// defaults above where it has none).
TargetTraits target_traits(const Attrs& options);

Schedule default_schedule(const std::vector<Tensor>& outputs, const TargetTraits& traits);

}  // namespace weft::te

#pragma GCC visibility pop
