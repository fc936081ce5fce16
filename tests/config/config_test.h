// Helpers of the run-config tests: the error a config's text gives.
#pragma once

#include <fstream>
#include <string>

#include "support/op_test.h"
#include "support/temp_dir.h"
#include "weft/run_config.h"

namespace weft::testing {

/// The error parse_run_config gives for `yaml` read as cfg.yaml; a test
/// failure when it reads.
inline std::string config_error(const std::string& yaml) {
  return error_of([&] { parse_run_config(yaml, "cfg.yaml"); });
}

}  // namespace weft::testing
