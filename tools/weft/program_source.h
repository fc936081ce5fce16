// What the CLI's commands run: the program a command-line argument names.
#pragma once

#include <string>

#include "weft/module.h"
#include "weft/tensor_io.h"

namespace weft::cli {

/// A module to show or run, with any parameter values that come with it.
struct Program {
  IRModule mod;
  /// Values for some of main's parameters, by name (empty for a text file).
  NamedTensors params;
  /// Where it came from, for messages: the path as given.
  std::string origin;
};

/// The single place that decides what a command's PROGRAM argument means.
/// Today: a file in the Relay text format (parsed by parse_module_file).
/// weft::Error when the file is missing, unreadable or not a valid program.
Program load_program(const std::string& argument);

}  // namespace weft::cli
