// The exit codes docs/cli.md promises: 0 success (help included), 1 a failure
// in what the command was given, 2 a usage error (whatever code CLI11 itself
// would use).
#include "cli_test_util.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class ExitCodeTest : public CliCommandTest {};

TEST_F(ExitCodeTest, HelpExitsZero) {
  CliResult r = weft("--help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run"));
  r = weft("run --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("--inputs"));
}

TEST_F(ExitCodeTest, UsageErrorsExitTwo) {
  // A missing argument, an unknown option, an extra argument, a value out of
  // range, a value of the wrong kind and an unknown command: CLI11 codes 106,
  // 109, 109, 105, 105 and no command at all.
  for (const std::string args :
       {"show", "run --no-such-option x.relay", "show a.relay b.relay", "run x.relay --seed -1",
        "grad-check x.relay --eps zero", "frobnicate", ""}) {
    CliResult r = weft(args);
    EXPECT_EQ(r.exit_code, 2) << "weft " << args << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << "weft " << args;
  }
}

TEST_F(ExitCodeTest, BadInputExitsOne) {
  CliResult r = weft("show " + data_file("type_error.relay"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("error: "));
  r = weft("show " + scratch("missing.relay"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

}  // namespace
}  // namespace weft::testing
