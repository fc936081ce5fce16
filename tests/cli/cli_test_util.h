// Shared pieces of the `weft show` / `weft run` tests: paths to the test
// programs and their data (tests/cli/data, written by gen_cli_data.py), a
// runner for the built binary, and a tolerance comparison of tensor files.
#pragma once

#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "weft/tensor_io.h"

namespace weft::testing {

inline std::string data_file(const std::string& name) { return std::string(WEFT_CLI_DATA_DIR) + "/" + name; }

class CliCommandTest : public ::testing::Test {
 protected:
  /// `weft ARGS`; data files are named relative to tests/cli/data.
  CliResult weft(const std::string& args) { return run_cli(WEFT_TEST_CLI, args, dir_.path()); }
  std::string scratch(const std::string& name) const { return (dir_ / name).string(); }
  /// Whether `weft targets` lists `name` as available: onednn is built only
  /// where libdnnl is installed.
  bool target_available(const std::string& name) {
    CliResult r = weft("targets --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const auto& t : nlohmann::json::parse(r.out)) {
      if (t.at("name") == name) return t.at("status") == "available";
    }
    return false;
  }

  ScratchDir dir_;
};

/// Same names in the same order, same dtypes and shapes, values within float32
/// tolerance (exact for integers and bools).
inline void expect_tensor_files_near(const std::string& actual_path, const std::string& expected_path) {
  NamedTensors actual = load_tensor_file(actual_path), expected = load_tensor_file(expected_path);
  ASSERT_EQ(actual.size(), expected.size()) << actual_path;
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto& [name, a] = actual[i];
    const Tensor& e = expected[i].second;
    EXPECT_EQ(name, expected[i].first);
    ASSERT_EQ(a.dtype(), e.dtype()) << name;
    ASSERT_EQ(a.shape(), e.shape()) << name;
    double tolerance = a.dtype().is_float() ? 1e-5 : 0.0;
    for (int64_t k = 0; k < a.numel(); ++k) {
      double x = a.element_as_double(k), y = e.element_as_double(k);
      EXPECT_LE(std::abs(x - y), tolerance * (1 + std::abs(y))) << name << "[" << k << "]: " << x << " vs " << y;
    }
  }
}

}  // namespace weft::testing
