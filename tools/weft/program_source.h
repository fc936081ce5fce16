// What the CLI's commands run: the program a command-line argument names.
#pragma once

#include <string>
#include <vector>

#include "weft/module.h"
#include "weft/tensor_io.h"

namespace weft::cli {

/// A module to show or run, with any parameter values that come with it.
struct Program {
  IRModule mod;
  /// Values for some of main's parameters, by name (empty for a text file).
  NamedTensors params;
  /// Where it came from, for messages: the path or model name as given.
  std::string origin;
  /// The model family when the argument named a model ("" for a file).
  std::string model;
  /// The initializer of its workload: the model's own, xavier for a file.
  std::string initializer = "xavier";
  /// The frontend that imported it ("" for Relay text or a zoo model).
  std::string frontend;
};

/// How a model argument becomes a program.
struct ProgramOptions {
  /// Fill the model's parameters as create_workload does (with the model's
  /// initializer, seeded with `seed`); off when the caller brings its own
  /// (`weft run --params`).
  bool initialize_params = true;
  uint64_t seed = 0;
  /// For a file a frontend reads (an .onnx model): shapes of its inputs with
  /// symbolic dimensions, NAME=DIMS each (`--shape data=1x3x224x224`).
  std::vector<std::string> shapes;
  /// The same for the tensors given for its inputs (--inputs): they bind the
  /// inputs they name that have symbolic dimensions, and are ignored otherwise.
  std::vector<std::string> input_shapes;
  /// For an imported model: its weights (the frontend's let-bound named
  /// constants) as main's last parameters, their values in `params`.
  bool weights_as_params = false;
};

/// Whether `argument` is a file a frontend plugin imports (an .onnx model).
bool imported_by_frontend(const std::string& argument);

/// The single place that decides what a command's PROGRAM argument means:
/// an existing file whose suffix a frontend plugin reads (.onnx) is imported
/// by it; any other existing file is a program in the Relay text format
/// (parsed by parse_module_file); otherwise a model name (model_spec.h: `resnet-18`,
/// `vgg:num_layers=11,batch_norm=true`), built by its plugin, with its
/// parameters as `params` when options ask for them. weft::Error when the
/// file is unreadable or not a valid program, when the argument is neither a
/// file nor a model family (listing the families), or when the model's
/// arguments are wrong.
Program load_program(const std::string& argument, const ProgramOptions& options = {});

}  // namespace weft::cli
