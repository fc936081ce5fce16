// Runs the built `weft` binary for end-to-end tests: exit code, stdout and
// stderr, with a check that no sanitizer report hides behind an expected exit.
#pragma once

#include <gmock/gmock.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace weft::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

/// Runs `cli args` in a shell (args are shell words, quote paths yourself),
/// with stderr captured in `scratch`/stderr.txt; `env` is prefixed to the
/// command line as shell assignments (`NAME='value'`).
inline CliResult run_cli(const std::string& cli, const std::string& args, const std::filesystem::path& scratch,
                         const std::string& env = "") {
  std::filesystem::path err_file = scratch / "stderr.txt";
  std::string cmd = env + (env.empty() ? "" : " ") + "'" + cli + "' " + args + " 2>'" + err_file.string() + "'";
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  EXPECT_THAT(r.err, ::testing::Not(::testing::HasSubstr("Sanitizer")));
  EXPECT_THAT(r.err, ::testing::Not(::testing::HasSubstr("runtime error:")));
  return r;
}

}  // namespace weft::testing
