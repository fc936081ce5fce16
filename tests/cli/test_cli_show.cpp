// `weft show`: the typed program as Relay text (which parses back to the same
// text) and the --json summary of inputs, output type and op counts.
#include <nlohmann/json.hpp>

#include <algorithm>
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

// TVM's lstm names every step's input `data`; weft lists, binds and saves the
// parameters under the names TVM's text shows (%data, %data1, %data2).
TEST_F(ShowCommandTest, ParametersSharingANameAreListedAndSavedUnderTheNamesTheTextShows) {
  CliResult r = weft("show --json lstm:iterations=3,num_hidden=8 --params-out " + scratch("p.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::vector<std::string> inputs, params, saved;
  for (const auto& p : j["inputs"]) inputs.push_back(p["name"]);
  for (const auto& p : j["params"]) params.push_back(p["name"]);
  for (const auto& [name, t] : load_tensor_file(scratch("p.npz"))) saved.push_back(name);
  EXPECT_EQ(inputs, (std::vector<std::string>{"data", "data1", "data2"}));
  std::vector<std::string> weights;
  for (const char* step : {"0", "1", "2"})
    for (const char* kind : {"i2h_", "h2h_"})
      for (const char* what : {"_weight", "_bias"}) weights.push_back(kind + std::string(step) + what);
  std::sort(params.begin(), params.end());
  std::sort(weights.begin(), weights.end());
  EXPECT_EQ(params, weights);
  std::sort(saved.begin(), saved.end());
  EXPECT_EQ(saved, weights);

  // The printed program names them so, and reads back with the same names.
  r = weft("show lstm:iterations=3,num_hidden=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("def @main(%data: Tensor[(1, 8), float32]"));
  EXPECT_THAT(r.out, HasSubstr(", %data1: Tensor[(1, 8), float32]"));
  EXPECT_THAT(r.out, HasSubstr(", %data2: Tensor[(1, 8), float32]"));
  std::ofstream(scratch("lstm.relay")) << r.out;
  r = weft("show --json " + scratch("lstm.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> from_text;
  const nlohmann::json from_text_json = nlohmann::json::parse(r.out);
  for (const auto& p : from_text_json["inputs"]) from_text.push_back(p["name"]);
  ASSERT_GE(from_text.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(from_text.begin(), from_text.begin() + 6),
            (std::vector<std::string>{"data", "i2h_0_weight", "i2h_0_bias", "h2h_0_weight", "h2h_0_bias", "data1"}));
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

TEST_F(ShowCommandTest, AnAttributeNormalizersOwnReasonReachesTheUser) {
  std::ofstream(scratch("pad.relay")) << "#[version = \"0.0.5\"]\n"
                                         "def @main(%x: Tensor[(2, 3), float32]) {\n"
                                         "  nn.pad(%x, 0f, pad_width=[[1, 2, 3], [0, 0]])\n"
                                         "}\n";
  CliResult r = weft("show " + scratch("pad.relay"));
  EXPECT_EQ(r.exit_code, 1);
  // The nn plugin's normalizer says what is wrong; the host adds where and the expected form.
  EXPECT_THAT(r.err, HasSubstr(scratch("pad.relay") + ":3:3: op nn.pad, attr pad_width: attribute 'pad_width' has an "
                               "invalid value [[1, 2, 3], [0, 0]]: pad_width[0] has 3 elements"));
}

}  // namespace
}  // namespace weft::testing
