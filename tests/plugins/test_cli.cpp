// End-to-end: the built `weft` binary lists plugins and ops, reports each
// broken plugin with its own error while good ones load, and never crashes.
#include <gmock/gmock.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "plugin_test_util.h"
#include "support/cli_runner.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

/// Runs `weft <args>` with WEFT_PLUGIN_PATH set to plugin_path.
CliResult run_weft(const std::string& args, const std::string& plugin_path, const fs::path& scratch) {
  return run_cli(WEFT_TEST_CLI, args, scratch, "WEFT_PLUGIN_PATH='" + plugin_path + "'");
}

class CliTest : public ::testing::Test {
 protected:
  /// The four broken plugins of the "done when", plus a good one.
  void write_broken_and_good() {
    fs::path root = dir_.path() / "plugins";
    write_file(root / "bad_yaml" / "weft-plugin.yaml", "name: bad_yaml\nprovides: {ops: [x\n");
    copy_test_library("c_scale", root / "abi999");
    write_file(root / "abi999" / "weft-plugin.yaml",
               "name: abi999\nversion: 1.0.0\nabi: 999\nkind: ops\nlibrary: libc_scale.so\n");
    write_file(root / "escape" / "weft-plugin.yaml",
               "name: escape\nversion: 1.0.0\nabi: 1\nkind: ops\nlibrary: ../abi999/libc_scale.so\n");
    write_file(root / "nolib" / "weft-plugin.yaml",
               "name: nolib\nversion: 1.0.0\nabi: 1\nkind: ops\nlibrary: libmissing.so\nprovides: {ops: [m.op]}\n");
    add_plugin(root, "scale", "c_scale", "ctest.scale");
  }
  std::string plugin_path() const { return (dir_.path() / "plugins").string(); }

  TempDir dir_;
};

/// The entry whose `key` equals value (for "manifest": ends with it).
const nlohmann::json* find_plugin(const nlohmann::json& list, const std::string& key, const std::string& value) {
  for (const auto& p : list) {
    if (!p[key].is_string()) continue;
    std::string v = p[key].get<std::string>();
    bool match = key == "manifest" ? v.size() >= value.size() && v.compare(v.size() - value.size(), value.size(), value) == 0
                                   : v == value;
    if (match) return &p;
  }
  return nullptr;
}

TEST_F(CliTest, PluginsJsonReportsEachBrokenPluginWhileGoodOnesLoad) {
  write_broken_and_good();
  CliResult r = run_weft("plugins --json", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;  // some plugins failed
  nlohmann::json list = nlohmann::json::parse(r.out);

  auto expect_failed = [&](const std::string& manifest_part, const std::string& error_part) {
    const nlohmann::json* p = find_plugin(list, "manifest", manifest_part);
    ASSERT_NE(p, nullptr) << manifest_part;
    EXPECT_EQ((*p)["status"], "failed") << manifest_part;
    EXPECT_THAT((*p)["error"].get<std::string>(), HasSubstr(error_part)) << manifest_part;
  };
  expect_failed("bad_yaml/weft-plugin.yaml", "malformed YAML");
  expect_failed("abi999/weft-plugin.yaml", "built for plugin ABI 999");
  expect_failed("escape/weft-plugin.yaml", "library path '../abi999/libc_scale.so' leaves the plugin's folder");
  expect_failed("nolib/weft-plugin.yaml", "library file missing");

  const nlohmann::json* scale = find_plugin(list, "name", "scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ((*scale)["status"], "loaded");
  EXPECT_TRUE((*scale)["error"].is_null());
  EXPECT_EQ((*scale)["provides"]["ops"], nlohmann::json::array({"ctest.scale"}));
  EXPECT_EQ((*scale)["version"], "1.0.0");
  EXPECT_EQ((*scale)["kind"], "ops");

  const nlohmann::json* tensor = find_plugin(list, "name", "tensor");  // the build tree's own plugin
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ((*tensor)["status"], "loaded");
}

TEST_F(CliTest, PluginsTextShowsErrors) {
  write_broken_and_good();
  CliResult r = run_weft("plugins", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("scale  [loaded]"));
  EXPECT_THAT(r.out, HasSubstr("abi999  [failed]"));
  EXPECT_THAT(r.out, HasSubstr("error: "));
}

TEST_F(CliTest, NoLoadOnlyReadsManifests) {
  write_broken_and_good();
  CliResult r = run_weft("plugins --json --no-load", plugin_path(), dir_.path());
  nlohmann::json list = nlohmann::json::parse(r.out);
  EXPECT_EQ((*find_plugin(list, "name", "scale"))["status"], "discovered");
}

// The build tree's own plugins are listed too and may be work in progress, so
// the exit status is checked against the listing rather than assumed.
TEST_F(CliTest, ExitStatusIsZeroExactlyWhenNoPluginFailed) {
  add_plugin(dir_.path() / "plugins", "scale", "c_scale", "ctest.scale");
  CliResult r = run_weft("plugins --json", plugin_path(), dir_.path());
  nlohmann::json list = nlohmann::json::parse(r.out);
  bool any_failed = false;
  for (const auto& p : list) any_failed = any_failed || p["status"] == "failed";
  EXPECT_EQ(r.exit_code, any_failed ? 1 : 0) << r.out;
  EXPECT_EQ((*find_plugin(list, "name", "scale"))["status"], "loaded");
}

TEST_F(CliTest, OpsListsEveryOpWithPluginInputsAndAttrs) {
  add_plugin(dir_.path() / "plugins", "scale", "c_scale", "ctest.scale");
  CliResult r = run_weft("ops --json", plugin_path(), dir_.path());
  // Non-zero exactly when some (build-tree) plugin providing ops could not be loaded.
  EXPECT_EQ(r.exit_code, r.err.find("warning: skipping plugin") != std::string::npos ? 1 : 0) << r.err;
  nlohmann::json ops = nlohmann::json::parse(r.out);
  const nlohmann::json* scale = find_plugin(ops, "name", "ctest.scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ((*scale)["plugin"], "scale");
  EXPECT_EQ((*scale)["inputs"][0]["name"], "data");
  EXPECT_EQ((*scale)["attrs"][0]["name"], "factor");
  EXPECT_EQ((*scale)["attrs"][0]["type"], "float");
  EXPECT_EQ((*scale)["attrs"][0]["default"], AttrValue(2.0).str());
  EXPECT_EQ((*scale)["has_te_compute"], true);  // built in C with the te_* host functions
  const nlohmann::json* add = find_plugin(ops, "name", "add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ((*add)["plugin"], "tensor");
  EXPECT_EQ((*add)["pattern"], "broadcast");
  // Each attribute's type, default and the values it accepts, as its errors say them.
  const nlohmann::json* cast = find_plugin(ops, "name", "cast");
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ((*cast)["attrs"][0]["name"], "dtype");
  EXPECT_EQ((*cast)["attrs"][0]["allowed"], "a dtype such as \"int32\"");
  EXPECT_EQ((*scale)["attrs"][0]["allowed"], "a number");  // a float attr's, as its type says
}

TEST_F(CliTest, OpsWarnsAboutBrokenPluginsAndListsTheRest) {
  write_broken_and_good();
  CliResult r = run_weft("ops", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("warning: skipping plugin nolib"));
  EXPECT_THAT(r.out, HasSubstr("ctest.scale  (plugin scale, level 2, elemwise, TE)"));
}

TEST_F(CliTest, TargetsListsABrokenTargetPluginWithItsError) {
  fs::path root = dir_.path() / "plugins";
  copy_test_library("old_target", root / "oldtarget");
  write_file(root / "oldtarget" / "weft-plugin.yaml",
             "name: oldtarget\nversion: 1.0.0\nabi: 1\nkind: target\nlibrary: libold_target.so\n"
             "provides:\n  targets: [oldtarget]\n");
  CliResult r = run_weft("targets --json", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json list = nlohmann::json::parse(r.out);
  const nlohmann::json* old = find_plugin(list, "name", "oldtarget");
  ASSERT_NE(old, nullptr) << r.out;
  EXPECT_EQ((*old)["plugin"], "oldtarget");
  EXPECT_EQ((*old)["status"], "failed");
  EXPECT_THAT((*old)["error"].get<std::string>(),
              HasSubstr("plugin 'oldtarget': init failed: target 'oldtarget' uses register_target"));
  const nlohmann::json* null = find_plugin(list, "name", "null");  // the build tree's own target still loads
  ASSERT_NE(null, nullptr);
  EXPECT_EQ((*null)["status"], "available");

  r = run_weft("targets", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("oldtarget  (plugin oldtarget) [failed]\n  error: "));
}

/// A program whose main calls `op` on a float32 vector.
std::string program_calling(const std::string& op) {
  return "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  " + op + "(%x)\n}\n";
}

TEST_F(CliTest, RunAndShowNameTheFailedPluginThatDeclaresAnOp) {
  write_broken_and_good();
  fs::path program = dir_.path() / "m.relay";
  write_file(program, program_calling("m.op"));  // declared by nolib, whose library is missing
  for (const std::string command : {"show ", "run "}) {
    CliResult r = run_weft(command + "'" + program.string() + "'", plugin_path(), dir_.path());
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_THAT(r.err, HasSubstr("plugin 'nolib': library file missing")) << command;
    EXPECT_THAT(r.err, HasSubstr("op 'm.op' comes from plugin 'nolib', which failed to load")) << command;
  }
}

TEST_F(CliTest, UnknownOpNotesEveryFailedPluginWithItsError) {
  write_broken_and_good();
  fs::path program = dir_.path() / "x.relay";
  write_file(program, program_calling("x"));  // bad_yaml's manifest does not parse: it might have provided x
  CliResult listing = run_weft("plugins --json", plugin_path(), dir_.path());
  nlohmann::json list = nlohmann::json::parse(listing.out);
  const nlohmann::json* bad = find_plugin(list, "manifest", "bad_yaml/weft-plugin.yaml");
  ASSERT_NE(bad, nullptr);
  for (const std::string command : {"show ", "run "}) {
    CliResult r = run_weft(command + "'" + program.string() + "'", plugin_path(), dir_.path());
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_THAT(r.err, HasSubstr("unknown operator `x`")) << command;
    // The same text `weft plugins` gives.
    EXPECT_THAT(r.err, HasSubstr("failed to load: " + (*bad)["error"].get<std::string>())) << command;
    EXPECT_THAT(r.err, HasSubstr("note: plugin abi999 failed to load: ")) << command;
  }

  // Without broken plugins, an unknown op is only that. (The build tree's own
  // plugins are listed too and may be work in progress: checked, not assumed.)
  fs::path good = dir_.path() / "good";
  add_plugin(good, "scale", "c_scale", "ctest.scale");
  bool any_failed = false;
  nlohmann::json good_list = nlohmann::json::parse(run_weft("plugins --json", good.string(), dir_.path()).out);
  for (const auto& p : good_list) any_failed = any_failed || p["status"] == "failed";
  CliResult r = run_weft("show '" + program.string() + "'", good.string(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown operator `x`"));
  EXPECT_EQ(r.err.find("failed to load") != std::string::npos, any_failed) << r.err;
}

TEST_F(CliTest, JsonKeepsTheListingWhenAManifestIsNotValidUtf8) {
  fs::path root = dir_.path() / "plugins";
  add_plugin(root, "scale", "c_scale", "ctest.scale", "description: \"caf\xe9 \xff ok\"\n");  // Latin-1, not UTF-8
  CliResult r = run_weft("plugins --json", plugin_path(), dir_.path());
  nlohmann::json list = nlohmann::json::parse(r.out);  // throws if the output is not whole, valid JSON
  const nlohmann::json* scale = find_plugin(list, "name", "scale");
  ASSERT_NE(scale, nullptr) << r.err;
  EXPECT_EQ((*scale)["description"], "caf\uFFFD \uFFFD ok");  // each bad byte replaced, the rest kept
  EXPECT_EQ((*scale)["status"], "loaded");
  EXPECT_NE(find_plugin(list, "name", "tensor"), nullptr);  // the other plugins are listed too
}

TEST_F(CliTest, MissingSearchPathEntryIsAWarningNamingIt) {
  add_plugin(dir_.path() / "plugins", "scale", "c_scale", "ctest.scale");
  std::string missing = (dir_.path() / "no-such-folder").string();
  CliResult r = run_weft("plugins --json", missing + ":" + plugin_path(), dir_.path());
  EXPECT_THAT(r.err, HasSubstr("warning: plugin search path entry '" + missing + "' does not exist"));
  nlohmann::json list = nlohmann::json::parse(r.out);  // the listing is whole
  EXPECT_EQ((*find_plugin(list, "name", "scale"))["status"], "loaded");

  r = run_weft("plugins --json", plugin_path(), dir_.path());
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("does not exist")));
}

TEST_F(CliTest, AFrontendGetsOnlyTheOptionsItDeclaresAndAFlagItLacksIsAnError) {
  const fs::path root = dir_.path() / "plugins";
  copy_test_library("sdk_plugin", root / "sdk");
  write_file(root / "sdk" / "weft-plugin.yaml",
             "name: sdk\nversion: 0.2.0\nabi: 1\nkind: ops\nlibrary: libsdk_plugin.so\nprovides:\n"
             "  ops: [sdk.axpy, sdk.throw, sdk.stamp, sdk.row_argmax, sdk.bad_te]\n  models: [sdk.tiny]\n"
             "  initializers: [sdk.counter]\n  passes: [sdk.RenameMain, sdk.ContextProbe, sdk.ReadUnknownConfig]\n"
             "  frontends: [sdk.len]\n");
  write_file(dir_.path() / "m.len", "3\n");
  const std::string model = (dir_.path() / "m.len").string();
  // sdk.len has no shapes, input_shapes or initializers option: the CLI sends none of them.
  CliResult r = run_weft("show " + model, plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("%x: Tensor[(3), float32]"));
  r = run_weft("run " + model + " --shape x=4", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--shape: frontend 'sdk.len' has no option 'shapes'"));
  r = run_weft("import " + model + " --params-out " + (dir_.path() / "p.npz").string(), plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--params-out: frontend 'sdk.len' has no option 'initializers'"));
}

TEST_F(CliTest, CheckingAPluginNoManifestNamesIsExitOneSayingSo) {
  add_plugin(dir_.path() / "plugins", "scale", "c_scale", "ctest.scale");
  CliResult r = run_weft("plugins --check no_such_plugin", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no plugin named 'no_such_plugin' in the plugin search path"));
  r = run_weft("plugins --check scale", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliTest, UnknownCommandFailsWithUsage) {
  CliResult r = run_weft("frobnicate", plugin_path(), dir_.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'frobnicate'"));
  EXPECT_THAT(r.err, HasSubstr("plugins"));
}

}  // namespace
}  // namespace weft::testing
