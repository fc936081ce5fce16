// Each way a plugin can be broken is a clear error naming its manifest, and
// never stops the other plugins from loading.
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/interpreter.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class LoaderErrorTest : public PluginTest {};

TEST_F(LoaderErrorTest, GoodPluginLoadsAndRegistersWhatItDeclares) {
  add_plugin(root(), "scale", "c_scale", "ctest.scale");
  PluginLoader& l = loader();
  EXPECT_EQ(record(l, "scale").state, PluginState::kDiscovered);
  l.load("scale");
  PluginRecord r = record(l, "scale");
  EXPECT_EQ(r.state, PluginState::kLoaded);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.registered[0], std::vector<std::string>{"ctest.scale"});
  ASSERT_NE(OpRegistry::global().find_loaded("ctest.scale"), nullptr);
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale")->plugin, "scale");
}

TEST_F(LoaderErrorTest, MalformedManifestFailsAtDiscoveryWithPosition) {
  write_file(root() / "bad" / "weft-plugin.yaml", "name: bad\nprovides: {ops: [x\n");
  PluginLoader& l = loader();
  auto records = l.plugins();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].state, PluginState::kFailed);
  EXPECT_FALSE(records[0].manifest.has_value());
  EXPECT_THAT(records[0].error, ::testing::ContainsRegex("bad/weft-plugin.yaml:[0-9]+:[0-9]+: malformed YAML"));
}

TEST_F(LoaderErrorTest, MissingLibraryNamesThePath) {
  write_file(root() / "ghost" / "weft-plugin.yaml", manifest("ghost", "ghost", "ghost.op"));
  PluginLoader& l = loader();
  PluginRecord r = record(l, "ghost");
  EXPECT_EQ(r.state, PluginState::kFailed);
  EXPECT_THAT(r.error, HasSubstr((root() / "ghost" / "weft-plugin.yaml").string() + ": plugin 'ghost': "));
  EXPECT_THAT(r.error, HasSubstr("library file missing: " + (root() / "ghost" / "libghost.so").string()));
  // Asking for what it provides reports the same error instead of "unknown op".
  EXPECT_THAT(load_error(l, "ghost"), HasSubstr("library file missing"));
}

TEST_F(LoaderErrorTest, AbiMajorMismatchNamesBothVersions) {
  copy_test_library("c_scale", root() / "future");
  std::string text = manifest("future", "c_scale", "ctest.scale");
  text.replace(text.find("abi: 1"), 6, "abi: 999");
  write_file(root() / "future" / "weft-plugin.yaml", text);
  PluginRecord r = record(loader(), "future");
  EXPECT_EQ(r.state, PluginState::kFailed);
  EXPECT_THAT(r.error, HasSubstr("built for plugin ABI 999"));
  EXPECT_THAT(r.error, HasSubstr("this weft provides plugin ABI " + std::to_string(WEFT_PLUGIN_ABI_MAJOR) + "." +
                                 std::to_string(WEFT_PLUGIN_ABI_MINOR)));
}

TEST_F(LoaderErrorTest, PluginNewerThanHostNamesBothVersions) {
  add_plugin(root(), "newer", "newer_minor", "");
  std::string e = load_error(loader(), "newer");
  std::string host = std::to_string(WEFT_PLUGIN_ABI_MAJOR) + "." + std::to_string(WEFT_PLUGIN_ABI_MINOR);
  std::string plugin = std::to_string(WEFT_PLUGIN_ABI_MAJOR) + "." + std::to_string(WEFT_PLUGIN_ABI_MINOR + 1);
  EXPECT_THAT(e, HasSubstr("built against plugin ABI " + plugin + ", newer than this weft's " + host));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("init must not run")));
}

TEST_F(LoaderErrorTest, LibraryOfAnotherMajorIsRefusedEvenIfTheManifestSaysOtherwise) {
  add_plugin(root(), "major", "newer_major", "");  // the manifest claims abi: 1
  add_plugin(root(), "scale", "c_scale", "ctest.scale");
  PluginLoader& l = loader();
  std::string e = load_error(l, "major");
  std::string host = std::to_string(WEFT_PLUGIN_ABI_MAJOR) + "." + std::to_string(WEFT_PLUGIN_ABI_MINOR);
  std::string plugin = std::to_string(WEFT_PLUGIN_ABI_MAJOR + 1) + "." + std::to_string(WEFT_PLUGIN_ABI_MINOR);
  EXPECT_THAT(e, HasSubstr("built against plugin ABI " + plugin + ", but this weft provides " + host));
  // The rest of weft keeps working: another plugin loads and its op runs.
  l.load("scale");
  Tensor x = Tensor::empty({2}, DataType::Float(32));
  x.data_as<float>()[0] = 1.5f, x.data_as<float>()[1] = -2.0f;
  Value out = evaluate(call("ctest.scale", {constant(x)}));
  EXPECT_EQ(out.tensor().data_as<float>()[0], 3.0f);  // factor 2 by default
  EXPECT_EQ(out.tensor().data_as<float>()[1], -4.0f);
}

TEST_F(LoaderErrorTest, LibraryEscapingItsFolderIsRefused) {
  copy_test_library("c_scale", root());
  std::string text = manifest("escape", "c_scale", "ctest.scale");
  text.replace(text.find("libc_scale.so"), 13, "../libc_scale.so");
  write_file(root() / "escape" / "weft-plugin.yaml", text);
  PluginLoader& l = loader();
  auto records = l.plugins();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].state, PluginState::kFailed);
  EXPECT_THAT(records[0].error, HasSubstr("library path '../libc_scale.so' leaves the plugin's folder"));
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale"), nullptr);
}

TEST_F(LoaderErrorTest, MissingEntrySymbolIsNamed) {
  add_plugin(root(), "noentry", "no_entry", "");
  std::string e = load_error(loader(), "noentry");
  EXPECT_THAT(e, HasSubstr("does not export the entry symbol 'weft_plugin_entry'"));
  EXPECT_THAT(e, HasSubstr("WEFT_PLUGIN_ENTRY"));
}

TEST_F(LoaderErrorTest, NotASharedLibraryShowsTheLoaderMessage) {
  write_file(root() / "junk" / "libjunk.so", std::string(256, 'x'));  // long enough to have a header
  write_file(root() / "junk" / "weft-plugin.yaml", manifest("junk", "junk", ""));
  std::string e = load_error(loader(), "junk");
  EXPECT_THAT(e, HasSubstr("cannot load library " + (root() / "junk" / "libjunk.so").string()));
  EXPECT_THAT(e, HasSubstr("invalid ELF header"));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("Bad file descriptor")));  // Boost's noise is dropped
}

TEST_F(LoaderErrorTest, InitErrorIsReportedWithItsMessage) {
  add_plugin(root(), "initfail", "init_error", "");
  EXPECT_THAT(load_error(loader(), "initfail"),
              HasSubstr("plugin 'initfail': init failed: no device found at /dev/fake0"));
}

TEST_F(LoaderErrorTest, FlatTargetDescriptorOfAbi13IsRefusedPointingToTheTargetInterface) {
  copy_test_library("old_target", root() / "oldtarget");
  write_file(root() / "oldtarget" / "weft-plugin.yaml",
             "name: oldtarget\nversion: 1.0.0\nabi: 1\nkind: target\nlibrary: libold_target.so\n"
             "provides:\n  targets: [oldtarget]\n");
  PluginLoader& l = loader();
  EXPECT_THAT(load_error(l, "oldtarget"),
              HasSubstr("plugin 'oldtarget': init failed: target 'oldtarget' uses register_target "
                        "(weft_target_desc_t, ABI 1.0-1.3), which this weft no longer accepts: targets register "
                        "through the target interface of ABI 1.4 (docs/targets.md)"));
  EXPECT_EQ(TargetRegistry::global().find_loaded("oldtarget"), nullptr);
}

TEST_F(LoaderErrorTest, TargetInterfaceWithoutARequiredFunctionNamesIt) {
  copy_test_library("partial_target", root() / "partial");
  write_file(root() / "partial" / "weft-plugin.yaml",
             "name: partial\nversion: 1.0.0\nabi: 1\nkind: target\nlibrary: libpartial_target.so\n"
             "provides:\n  targets: [partial]\n");
  EXPECT_THAT(load_error(loader(), "partial"),
              HasSubstr("plugin 'partial': init failed: target 'partial': supports is required"));
  EXPECT_EQ(TargetRegistry::global().find_loaded("partial"), nullptr);
}

TEST_F(LoaderErrorTest, AnOpWithPartOfAPreparedKernelNamesWhatGoesTogether) {
  add_plugin(root(), "half", "half_prepared", "ctest.scale");
  EXPECT_THAT(load_error(loader(), "half"),
              HasSubstr("plugin 'half': init failed: op 'ctest.scale': prepare_kernel, run_prepared_kernel and "
                        "release_kernel_plan are set together or not at all"));
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale"), nullptr);
}

TEST_F(LoaderErrorTest, RegisteringAnUndeclaredNameFailsAndKeepsNothing) {
  add_plugin(root(), "sneaky", "c_scale", "ctest.other");
  PluginLoader& l = loader();
  std::string e = load_error(l, "sneaky");
  EXPECT_THAT(e, HasSubstr("registers op 'ctest.scale', which its manifest does not declare"));
  EXPECT_THAT(e, HasSubstr("provides.ops"));
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale"), nullptr);
}

TEST_F(LoaderErrorTest, DeclaringANameItDoesNotRegisterFails) {
  add_plugin(root(), "liar", "c_scale", "ctest.scale, ctest.ghost");
  PluginLoader& l = loader();
  EXPECT_THAT(load_error(l, "liar"), HasSubstr("declares ops it did not register: ctest.ghost"));
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale"), nullptr);  // nothing half-registered
}

TEST_F(LoaderErrorTest, TwoPluginsProvidingOneNameNameEachOther) {
  add_plugin(root(), "first", "c_scale", "ctest.scale");
  add_plugin(root(), "second", "c_scale", "ctest.scale");
  PluginLoader& l = loader();
  PluginRecord second = record(l, "second");
  EXPECT_EQ(second.state, PluginState::kFailed);
  EXPECT_THAT(second.error, HasSubstr("op 'ctest.scale' is also provided by plugin 'first' (" +
                                      (root() / "first" / "weft-plugin.yaml").string() + ")"));
  EXPECT_THAT(second.error, HasSubstr("providers:"));
  EXPECT_EQ(l.provider(ProvidedKind::kOp, "ctest.scale"), "first");
  l.load("first");
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale")->plugin, "first");
}

TEST_F(LoaderErrorTest, ABrokenPluginDoesNotTakeANameFromAWorkingOne) {
  write_file(root() / "a_broken" / "weft-plugin.yaml", manifest("a_broken", "missing", "ctest.scale"));
  add_plugin(root(), "b_good", "c_scale", "ctest.scale");
  PluginLoader& l = loader();
  EXPECT_THAT(record(l, "a_broken").error, HasSubstr("library file missing"));
  EXPECT_EQ(record(l, "b_good").state, PluginState::kDiscovered);
  EXPECT_EQ(l.provider(ProvidedKind::kOp, "ctest.scale"), "b_good");
}

TEST_F(LoaderErrorTest, TheConfigPicksBetweenTwoProviders) {
  add_plugin(root(), "first", "c_scale", "ctest.scale");
  add_plugin(root(), "second", "c_scale", "ctest.scale");
  PluginLoader& l = loader({{root()}, {{"ctest.scale", "second"}}});
  EXPECT_EQ(record(l, "first").state, PluginState::kFailed);
  EXPECT_THAT(record(l, "first").error, HasSubstr("also provided by plugin 'second'"));
  EXPECT_EQ(l.provider(ProvidedKind::kOp, "ctest.scale"), "second");
  EXPECT_TRUE(l.resolve(ProvidedKind::kOp, "ctest.scale"));
  EXPECT_EQ(OpRegistry::global().find_loaded("ctest.scale")->plugin, "second");
}

TEST_F(LoaderErrorTest, MissingRequirementIsNamed) {
  add_plugin(root(), "needy", "c_scale", "ctest.scale", "requires: [nowhere]\n");
  PluginRecord r = record(loader(), "needy");
  EXPECT_EQ(r.state, PluginState::kFailed);
  EXPECT_THAT(r.error, HasSubstr("requires plugin 'nowhere', which was not found"));
}

TEST_F(LoaderErrorTest, RequirementCycleFailsEveryPluginOnIt) {
  add_plugin(root(), "a", "chain_a", "chain.a", "requires: [b]\n");
  add_plugin(root(), "b", "chain_b", "chain.b", "requires: [a]\n");
  add_plugin(root(), "c", "chain_c", "chain.c", "requires: [a]\n");
  PluginLoader& l = loader();
  EXPECT_THAT(record(l, "a").error, HasSubstr("requirement cycle: a -> b -> a"));
  EXPECT_THAT(record(l, "b").error, HasSubstr("requirement cycle: a -> b -> a"));
  // c is not on the cycle, but needs it: it fails when loaded, saying why.
  EXPECT_EQ(record(l, "c").state, PluginState::kDiscovered);
  std::string e = load_error(l, "c");
  EXPECT_THAT(e, HasSubstr("plugin 'c': requires plugin 'a', which failed to load"));
  EXPECT_THAT(e, HasSubstr("requirement cycle"));
}

TEST_F(LoaderErrorTest, FailingRequirementFailsItsDependents) {
  add_plugin(root(), "base", "init_error", "");
  add_plugin(root(), "top", "chain_a", "chain.a", "requires: [base]\n");
  PluginLoader& l = loader();
  std::string e = load_error(l, "top");
  EXPECT_THAT(e, HasSubstr("requires plugin 'base', which failed to load"));
  EXPECT_THAT(e, HasSubstr("no device found at /dev/fake0"));
  EXPECT_EQ(OpRegistry::global().find_loaded("chain.a"), nullptr);
}

TEST_F(LoaderErrorTest, BrokenPluginsDoNotStopGoodOnes) {
  write_file(root() / "bad_yaml" / "weft-plugin.yaml", "name: [\n");
  write_file(root() / "ghost" / "weft-plugin.yaml", manifest("ghost", "ghost", "ghost.op"));
  add_plugin(root(), "initfail", "init_error", "");
  add_plugin(root(), "noentry", "no_entry", "");
  add_plugin(root(), "scale", "c_scale", "ctest.scale");
  PluginLoader& l = loader();
  l.load_all();
  int failed = 0;
  for (const PluginRecord& r : l.plugins()) {
    if (r.state == PluginState::kFailed) ++failed;
    EXPECT_TRUE(r.state == PluginState::kFailed || r.display_name() == "scale") << r.display_name();
  }
  EXPECT_EQ(failed, 4);
  EXPECT_EQ(record(l, "scale").state, PluginState::kLoaded);
  ASSERT_NE(OpRegistry::global().find_loaded("ctest.scale"), nullptr);
}

TEST_F(LoaderErrorTest, EarlierSearchPathShadowsALaterPluginOfTheSameName) {
  TempDir other;
  add_plugin(root(), "scale", "c_scale", "ctest.scale");
  add_plugin(other.path(), "scale", "c_scale", "ctest.scale");
  PluginLoader& l = loader({{root(), other.path()}, {}});
  auto records = l.plugins();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].state, PluginState::kShadowed);
  EXPECT_THAT(records[1].error, HasSubstr("shadowed by " + (root() / "scale" / "weft-plugin.yaml").string()));
  EXPECT_EQ(record(l, "scale").manifest_path, root() / "scale" / "weft-plugin.yaml");
}

TEST_F(LoaderErrorTest, AskingForAnOpOfAFailedPluginGivesItsError) {
  add_plugin(root(), "initfail", "init_error", "");
  std::string text = manifest("initfail", "init_error", "broken.op");
  write_file(root() / "initfail" / "weft-plugin.yaml", text);
  PluginLoader& l = loader();
  l.install_resolvers();
  try {
    OpRegistry::global().find("broken.op");
    FAIL() << "expected the plugin's error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("init failed: no device found"));
  }
  EXPECT_FALSE(l.resolve(ProvidedKind::kOp, "nobody.provides.this"));
}

TEST_F(LoaderErrorTest, UnknownPluginNameListsTheSearchPath) {
  PluginLoader& l = loader();
  try {
    l.load("nothing");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no plugin named 'nothing' was found"));
    EXPECT_THAT(e.what(), HasSubstr(root().string()));
  }
}

}  // namespace
}  // namespace weft::testing
