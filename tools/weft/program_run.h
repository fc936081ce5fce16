// A program loaded for `weft run` and `weft bench`: its typed module and one
// argument per parameter of main, from tensor files, the program's own weights
// (a model's workload) or seeded random data (see main_arguments.h).
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "program_source.h"
#include "weft/interpreter.h"
#include "weft/module.h"

namespace weft::cli {

struct ProgramRunOptions {
  std::string program, inputs, params;
  uint32_t seed = 0;
  std::vector<std::string> shapes;  // --shape NAME=DIMS, for an imported model's symbolic dimensions
};

struct ProgramRun {
  Program program;
  IRModule mod;             // typed
  std::vector<Value> args;  // one per parameter of main, in order
  /// The parameters given by the program or --params (by user-facing name):
  /// weights, which a build binds as constants as relay.build(params=...) does.
  std::set<std::string> weights;
};

/// Loads the program and binds main's arguments; what is drawn at random is
/// named on `notes`.
ProgramRun load_program_run(const ProgramRunOptions& options, std::ostream& notes);

/// What a build takes: a module whose main has static parameter types, and
/// main's arguments (the inputs), in order.
struct BuildInput {
  IRModule mod;
  std::vector<Value> inputs;
};
/// `run`'s module with its weights bound as constants, specialized to the
/// arguments of the parameters left.
BuildInput bind_weights(const ProgramRun& run);
/// Drops `run`'s references to its weights (the program's parameters and the
/// arguments bound as constants) once a bound module holds them, so that the
/// build that consumes that module can let each weight go as a pass replaces
/// it (batch norm folded in, a layout transformed) and a run holds the built
/// program's constants only, not the weights a second time.
void release_weights(ProgramRun& run);
/// `mod` (typed), main re-typed for `inputs` where a parameter has a `?`
/// extent (bind_argument_types): a build needs static shapes.
IRModule specialize_to_inputs(const IRModule& mod, const std::vector<Value>& inputs);

}  // namespace weft::cli
