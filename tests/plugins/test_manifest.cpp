// The manifest reader: every field, and each way a manifest can be wrong,
// reported with the file and (for YAML problems) line and column.
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/plugin_manifest.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class ManifestTest : public ::testing::Test {
 protected:
  /// The error reading `text` as a manifest.
  std::string error_for(const std::string& text) {
    write_file(path(), text);
    try {
      read_plugin_manifest(path());
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "manifest was accepted:\n" << text;
    return "";
  }
  fs::path path() const { return dir_.path() / "p" / "weft-plugin.yaml"; }
  TempDir dir_;
};

TEST_F(ManifestTest, ReadsEveryField) {
  write_file(path(),
             "name: nn\nversion: 0.1.0\nabi: 1\nkind: ops\nlibrary: libweft_nn.so\nrequires: [tensor]\n"
             "provides:\n  ops: [nn.conv2d, nn.relu]\n  passes: [nn.Fold]\ndescription: Neural nets\n");
  PluginManifest m = read_plugin_manifest(path());
  EXPECT_EQ(m.name, "nn");
  EXPECT_EQ(m.version, "0.1.0");  // stays a string
  EXPECT_EQ(m.abi, 1);
  EXPECT_EQ(m.kind, "ops");
  EXPECT_EQ(m.library_path, path().parent_path() / "libweft_nn.so");
  EXPECT_EQ(m.requires_, std::vector<std::string>{"tensor"});
  EXPECT_EQ(m.provided(ProvidedKind::kOp), (std::vector<std::string>{"nn.conv2d", "nn.relu"}));
  EXPECT_EQ(m.provided(ProvidedKind::kPass), std::vector<std::string>{"nn.Fold"});
  EXPECT_TRUE(m.provided(ProvidedKind::kModel).empty());
  EXPECT_EQ(m.description, "Neural nets");
}

TEST_F(ManifestTest, TextInMemoryReadsAsTheFileWouldAndErrorsNameTheGivenPath) {
  const fs::path where = "/plugins/mem/weft-plugin.yaml";
  PluginManifest m = parse_plugin_manifest(
      "name: mem\nversion: 1\nabi: 1\nkind: model\nlibrary: lib/libmem.so\nprovides: {models: [m]}\n", where);
  EXPECT_EQ(m.path, where);
  EXPECT_EQ(m.library_path, fs::path("/plugins/mem/lib/libmem.so"));
  EXPECT_EQ(m.provided(ProvidedKind::kModel), std::vector<std::string>{"m"});
  try {
    parse_plugin_manifest("name: mem\nversion: [1\n", where);
    FAIL() << "malformed YAML was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::ContainsRegex("/plugins/mem/weft-plugin.yaml:[0-9]+:[0-9]+: malformed YAML"));
  }
}

TEST_F(ManifestTest, MalformedYamlNamesFileLineAndColumn) {
  std::string e = error_for("name: x\nversion: 1\nprovides: {ops: [a, b\n");
  EXPECT_THAT(e, HasSubstr(path().string() + ":"));
  EXPECT_THAT(e, HasSubstr("malformed YAML"));
  EXPECT_THAT(e, ::testing::ContainsRegex("weft-plugin.yaml:[0-9]+:[0-9]+: "));
}

TEST_F(ManifestTest, MissingFieldIsNamed) {
  std::string e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\n");
  EXPECT_THAT(e, HasSubstr(path().string()));
  EXPECT_THAT(e, HasSubstr("missing required field 'library'"));
}

TEST_F(ManifestTest, UnknownFieldIsNamedWithItsPosition) {
  std::string e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\nlibrray: liby.so\n");
  EXPECT_THAT(e, HasSubstr("weft-plugin.yaml:6:1: unknown manifest field 'librray'"));
  EXPECT_THAT(e, HasSubstr("expected one of: name, version"));
}

TEST_F(ManifestTest, DuplicateFieldIsAnError) {
  // yaml-cpp would silently keep the first; a manifest must not be ambiguous.
  std::string e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\nname: y\n");
  EXPECT_THAT(e, HasSubstr(":6:1: duplicate manifest field 'name'"));
}

TEST_F(ManifestTest, AbiMustBeAnInteger) {
  std::string e = error_for("name: x\nversion: 1.0\nabi: one\nkind: ops\nlibrary: libx.so\n");
  EXPECT_THAT(e, HasSubstr(":3:6: field 'abi' must be an integer"));
}

TEST_F(ManifestTest, KindMustBeKnown) {
  std::string e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: gadget\nlibrary: libx.so\n");
  EXPECT_THAT(e, HasSubstr(":4:7: unknown plugin kind 'gadget'"));
  EXPECT_THAT(e, HasSubstr("ops, target, model, initializer, pass, frontend"));
}

TEST_F(ManifestTest, NameMustBeAnIdentifier) {
  std::string e = error_for("name: 'my plugin'\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\n");
  EXPECT_THAT(e, HasSubstr("bad plugin name 'my plugin'"));
}

TEST_F(ManifestTest, LibraryMayNotLeaveItsFolder) {
  for (const char* lib : {"../escape.so", "/usr/lib/libm.so.6", "sub/../../x.so", ".."}) {
    std::string e = error_for(std::string("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: ") + lib + "\n");
    EXPECT_THAT(e, HasSubstr(":5:10: library path '" + std::string(lib) + "' leaves the plugin's folder")) << lib;
  }
}

TEST_F(ManifestTest, LibraryInASubfolderIsFine) {
  write_file(path(), "name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: lib/./libx.so\n");
  EXPECT_EQ(read_plugin_manifest(path()).library_path, path().parent_path() / "lib" / "libx.so");
}

TEST_F(ManifestTest, ProvidesKeysAreChecked) {
  std::string e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\nprovides:\n  opz: [a]\n");
  EXPECT_THAT(e, HasSubstr(":7:3: unknown provides field 'opz'"));
  e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\nprovides:\n  ops: a\n");
  EXPECT_THAT(e, HasSubstr("field 'provides.ops' must be a list of names"));
  e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\nprovides:\n  ops: [a, a]\n");
  EXPECT_THAT(e, HasSubstr("provides.ops lists 'a' twice"));
}

TEST_F(ManifestTest, RequiresMustBeAList) {
  std::string e = error_for("name: x\nversion: 1.0\nabi: 1\nkind: ops\nlibrary: libx.so\nrequires: tensor\n");
  EXPECT_THAT(e, HasSubstr(":6:11: field 'requires' must be a list of names"));
}

TEST_F(ManifestTest, ATopLevelListIsNotAManifest) {
  EXPECT_THAT(error_for("- name: x\n"), HasSubstr("must be a mapping of fields"));
}

TEST_F(ManifestTest, UnreadableFileIsReported) {
  try {
    read_plugin_manifest(dir_.path() / "nope" / "weft-plugin.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("nope/weft-plugin.yaml: cannot read plugin manifest"));
  }
}

}  // namespace
}  // namespace weft::testing
