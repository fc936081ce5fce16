// `weft targets`: each target with the plugin that provides it, its devices
// and its options' types and defaults, as text and as JSON. (A broken target
// plugin's listing is in tests/plugins/test_cli.cpp, beside the test plugins.)
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "weft/attrs.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class TargetsCommandTest : public CliCommandTest {};

const nlohmann::json* find_target(const nlohmann::json& list, const std::string& name) {
  for (const auto& t : list) {
    if (t["name"] == name) return &t;
  }
  return nullptr;
}

TEST_F(TargetsCommandTest, JsonListsTheNullTargetWithItsPluginDeviceAndOptions) {
  CliResult r = weft("targets --json");
  nlohmann::json list = nlohmann::json::parse(r.out);
  bool any_failed = false;
  for (const auto& t : list) any_failed = any_failed || t["status"] == "failed";
  EXPECT_EQ(r.exit_code, any_failed ? 1 : 0) << r.err;  // the build tree's plugins may be work in progress
  const nlohmann::json* null = find_target(list, "null");
  ASSERT_NE(null, nullptr) << r.out;
  EXPECT_EQ((*null)["plugin"], "null");
  EXPECT_EQ((*null)["status"], "available");
  EXPECT_TRUE((*null)["error"].is_null());
  EXPECT_EQ((*null)["device_type"], "cpu");
  EXPECT_EQ((*null)["devices"], nlohmann::json::parse(R"([{"id": 0, "name": "cpu", "properties": {}}])"));
  ASSERT_EQ((*null)["options"].size(), 1u);
  EXPECT_EQ((*null)["options"][0]["name"], "verbose");
  EXPECT_EQ((*null)["options"][0]["type"], "bool");
  EXPECT_EQ((*null)["options"][0]["default"], AttrValue(false).str());
  // Targets built into the core are listed as such.
  for (const auto& t : list) {
    if (t["plugin"] == "built-in") EXPECT_EQ(t["status"], "available") << t;
  }
}

TEST_F(TargetsCommandTest, TextShowsDevicesAndOptions) {
  CliResult r = weft("targets");
  EXPECT_THAT(r.out, HasSubstr("null  (plugin null) [available]\n"));
  EXPECT_THAT(r.out, HasSubstr("  device 0: cpu\n"));
  EXPECT_THAT(r.out, HasSubstr("  option verbose: bool = " + AttrValue(false).str() +
                               "  Print each group it compiles to stderr.\n"));
}

}  // namespace
}  // namespace weft::testing
