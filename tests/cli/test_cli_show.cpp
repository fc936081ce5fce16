// `weft show`: the typed program as Relay text (which parses back to the same
// text) and the --json summary of inputs, output type and op counts.
#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_test_util.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class ShowCommandTest : public CliCommandTest {};

TEST_F(ShowCommandTest, PrintsTheTypedProgramWhichShowsBackTheSame) {
  CliResult r = weft("show " + data_file("nested_tuple.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("#[version = \"0.0.5\"]"));
  EXPECT_THAT(r.out, HasSubstr("sum(%x, axis=[1]) /* ty=Tensor[(2), float32] */"));
  std::ofstream(scratch("again.relay")) << r.out;
  CliResult again = weft("show " + scratch("again.relay"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);
}

TEST_F(ShowCommandTest, JsonListsInputsOutputAndOpCounts) {
  CliResult r = weft("show --json " + data_file("nested_tuple.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"], nlohmann::json::parse(R"([{"name": "x", "shape": [2, 3], "dtype": "float32"},
                                                   {"name": "y", "shape": [2, 3], "dtype": "float32"}])"));
  EXPECT_EQ(j["params"], nlohmann::json::array());
  EXPECT_EQ(j["output"], "((Tensor[(2, 3), float32], Tensor[(2, 3), float32]), Tensor[(2), float32])");
  EXPECT_EQ(j["op_counts"], nlohmann::json::parse(R"({"add": 1, "multiply": 1, "sum": 1})"));

  r = weft("show --json " + data_file("dynamic_input.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::parse("[null, 3]"));
  EXPECT_EQ(j["output"], "Tensor[(?, 3), float32]");
}

TEST_F(ShowCommandTest, ErrorsNameTheFile) {
  CliResult r = weft("show " + data_file("type_error.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: " + data_file("type_error.relay") + ":3:3: op add: shapes"));
  r = weft("show " + scratch("missing.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("program file"));
  r = weft("show");
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace
}  // namespace weft::testing
