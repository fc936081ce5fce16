// Checking a config against what exists: unknown targets and passes, and each
// target's options against the schema it declares, every error at the value.
// The registries are the test's own, so no global state changes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/target.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::error_of;

/// A registry with `ref` (no options) and `fake_cpu`, whose schema has an
/// optional device (int, >= 0), a required cache_dir and a float scale.
class CheckRunConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    targets.add(target("ref", AttrSchema()));
    AttrField device = field("device", AttrType::kInt, AttrValue(0));
    device.expected = "a device index >= 0";
    device.normalize = [](const AttrValue& v) -> std::optional<AttrValue> {
      if (v.as_int() < 0) throw Error("a device index cannot be negative");
      return v;
    };
    AttrSchema schema({device, field("cache_dir", AttrType::kString, std::nullopt),
                       field("scale", AttrType::kFloat, AttrValue(1.0))});
    targets.add(target("fake_cpu", schema));
    passes.add("FoldConstant", [] { return InferType(); });
    passes.add("FuseOps", [] { return InferType(); });
  }

  static TargetDef target(const std::string& name, AttrSchema options) {
    TargetDef def;
    def.name = name;
    def.options = std::move(options);
    return def;
  }
  static AttrField field(const std::string& name, AttrType type, std::optional<AttrValue> default_value) {
    AttrField f;
    f.name = name;
    f.type = type;
    f.default_value = std::move(default_value);
    return f;
  }

  std::map<std::string, Attrs> check(const std::string& yaml) {
    return check_run_config(parse_run_config(yaml, "cfg.yaml"), targets, passes);
  }
  std::string check_error(const std::string& yaml) {
    return error_of([&] { check(yaml); });
  }

  TargetRegistry targets;
  PassRegistry passes;
};

TEST_F(CheckRunConfig, OptionsAreNormalizedWithDefaultsForEveryTargetRefIncluded) {
  auto options = check("targets: [fake_cpu]\ntarget_options: {fake_cpu: {cache_dir: /tmp/w, scale: 2}}\n");
  ASSERT_EQ(options.size(), 2u);
  // Schema order, the default device filled, the int scale coerced to float.
  EXPECT_TRUE(attrs_equal(options.at("fake_cpu"),
                          make_attrs({{"device", int64_t{0}}, {"cache_dir", "/tmp/w"}, {"scale", 2.0}})));
  EXPECT_TRUE(options.at("ref")->empty());
}

TEST_F(CheckRunConfig, AnUnknownTargetNamesTheKnownOnes) {
  EXPECT_EQ(check_error("targets: [fake_cpu, llvm]\n"),
            "cfg.yaml:1:21: unknown target 'llvm'; expected a registered target: fake_cpu, ref\n"
            "  note: `weft targets` lists them; a target plugin outside the default folders needs its folder in "
            "plugin_paths or WEFT_PLUGIN_PATH");
}

TEST_F(CheckRunConfig, AnUnknownOptionIsLocatedAtItsName) {
  EXPECT_EQ(check_error("targets: [fake_cpu]\ntarget_options:\n  fake_cpu: {cache_dir: x, devise: 1}\n"),
            "cfg.yaml:3:28: target 'fake_cpu': unknown attribute 'devise'; expected one of: device, cache_dir, scale");
}

TEST_F(CheckRunConfig, AnOptionOfTheWrongTypeOrValueIsLocatedAtItsName) {
  EXPECT_EQ(check_error("targets: [fake_cpu]\ntarget_options:\n  fake_cpu: {cache_dir: x, device: gpu}\n"),
            "cfg.yaml:3:28: target 'fake_cpu': attribute 'device' has the wrong type: got string \"gpu\"; expected "
            "a device index >= 0");
  EXPECT_EQ(check_error("targets: [fake_cpu]\ntarget_options:\n  fake_cpu: {cache_dir: x, device: -1}\n"),
            "cfg.yaml:3:28: target 'fake_cpu': attribute 'device' has an invalid value -1: a device index cannot be "
            "negative; expected a device index >= 0");
  EXPECT_EQ(check_error("targets: [fake_cpu]\ntarget_options:\n  fake_cpu: {cache_dir: [1, 2]}\n"),
            "cfg.yaml:3:14: target 'fake_cpu': attribute 'cache_dir' has the wrong type: got int list [1, 2]; "
            "expected a value of type string");
}

TEST_F(CheckRunConfig, AMissingRequiredOptionIsLocatedAtTheTargetsOptionsOrItsListing) {
  EXPECT_EQ(check_error("targets: [fake_cpu]\ntarget_options:\n  fake_cpu: {device: 1}\n"),
            "cfg.yaml:3:3: target 'fake_cpu': missing required attribute 'cache_dir'; expected a value of type "
            "string");
  EXPECT_EQ(check_error("opt_level: 2\ntargets: [fake_cpu]\n"),
            "cfg.yaml:2:11: target 'fake_cpu': missing required attribute 'cache_dir'; expected a value of type "
            "string");
}

TEST_F(CheckRunConfig, RefTakesNoOptionsUnlessItDeclaresThem) {
  EXPECT_EQ(check_error("target_options: {ref: {threads: 2}}\n"),
            "cfg.yaml:1:24: target 'ref': unknown attribute 'threads'; expected no attributes");
}

TEST_F(CheckRunConfig, UnknownPassesAreLocatedInTheirList) {
  EXPECT_EQ(check_error("passes:\n  required: [FoldConstant]\n  disabled: [FuseOps, FoldConstnt]\n"),
            "cfg.yaml:3:23: unknown pass 'FoldConstnt' in passes.disabled; expected a registered pass: FoldConstant, "
            "FuseOps");
  EXPECT_EQ(check_error("passes: {required: [Fuse]}\n"),
            "cfg.yaml:1:21: unknown pass 'Fuse' in passes.required; expected a registered pass: FoldConstant, "
            "FuseOps");
}

TEST_F(CheckRunConfig, ATargetWhosePluginFailsToLoadIsLocatedWithThePluginsError) {
  auto resolver = [](std::string_view name) -> bool {
    if (name == "broken") throw Error("plugin 'broken': cannot open libweft_broken.so");
    return false;
  };
  targets.set_resolver(resolver);
  EXPECT_EQ(check_error("targets: [broken]\n"),
            "cfg.yaml:1:11: target 'broken' cannot be loaded\n"
            "  note: plugin 'broken': cannot open libweft_broken.so");
}

TEST_F(CheckRunConfig, WithMissingTargetsSkipATargetNobodyProvidesIsLeftOutWithItsOptionsUnchecked) {
  auto options = check(
      "targets: [llvm, fake_cpu]\nmissing_targets: skip\n"
      "target_options: {llvm: {no_such_option: 1}, fake_cpu: {cache_dir: /tmp/w}}\n");
  ASSERT_EQ(options.size(), 2u);
  EXPECT_EQ(options.count("llvm"), 0u);
  EXPECT_EQ(options.at("fake_cpu")->at("cache_dir").as_string(), "/tmp/w");
  EXPECT_TRUE(options.count("ref"));
  // Skipping is about absence only: a target that is there is checked as ever.
  EXPECT_THAT(check_error("targets: [llvm, fake_cpu]\nmissing_targets: skip\n"),
              HasSubstr("target 'fake_cpu': missing required attribute 'cache_dir'"));
}

TEST_F(CheckRunConfig, WithMissingTargetsSkipATargetWhosePluginFailsToLoadIsLeftOutWithAWarning) {
  targets.set_resolver([](std::string_view name) -> bool {
    if (name == "broken") throw Error("plugin 'broken': cannot open libweft_broken.so");
    return false;
  });
  ::testing::internal::CaptureStderr();
  auto options = check("targets: [broken]\nmissing_targets: skip\n");
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(options.size(), 1u);
  EXPECT_TRUE(options.count("ref"));
  EXPECT_THAT(warning, HasSubstr("target 'broken' is left out (missing_targets: skip)"));
  EXPECT_THAT(warning, HasSubstr("cannot open libweft_broken.so"));
}

TEST_F(CheckRunConfig, ValuesChangedInCodeAreCheckedAgain) {
  RunConfig config = parse_run_config("targets: [fake_cpu]\nopt_level: 2\n", "cfg.yaml");
  config.opt_level = 7;
  EXPECT_EQ(error_of([&] { check_run_config(config, targets, passes); }),
            "cfg.yaml:2:1: opt_level 7 is out of range; expected 0, 1, 2 or 3");
  // Built in code: no file to name.
  RunConfig built;
  built.targets = {"fake_cpu", "fake_cpu"};
  EXPECT_EQ(error_of([&] { check_run_config(built, targets, passes); }),
            "target 'fake_cpu' is listed twice");
  built.targets = {"llvm"};
  EXPECT_EQ(error_of([&] { check_run_config(built, targets, passes); }),
            "unknown target 'llvm'; expected a registered target: fake_cpu, ref\n"
            "  note: `weft targets` lists them; a target plugin outside the default folders needs its folder in "
            "plugin_paths or WEFT_PLUGIN_PATH");
}

TEST_F(CheckRunConfig, TheCorePassesAreKnownByName) {
  RunConfig config = parse_run_config("passes: {required: [InferType], disabled: [FuseOps, FoldConstant]}\n", "c.yaml");
  EXPECT_NO_THROW(check_run_config(config, targets, PassRegistry::global()));
}

TEST_F(CheckRunConfig, TheGlobalPassRegistryNamesThePassesPluginsDeclareLoadedOrNot) {
  // FoldScaleAxis is the fold_scale_axis plugin's, found through its manifest.
  RunConfig config = parse_run_config("passes: {required: [FoldScaleAxs]}\n", "c.yaml");
  std::string message = error_of([&] { check_run_config(config, targets, PassRegistry::global()); });
  EXPECT_THAT(message, StartsWith("c.yaml:1:21: unknown pass 'FoldScaleAxs' in passes.required; expected a registered "
                                  "pass: "));
  EXPECT_THAT(message, HasSubstr(" FoldScaleAxis,"));
  EXPECT_THAT(message, HasSubstr(" InferType,"));
}

TEST_F(CheckRunConfig, TheConfigsThreadsAreTheThreadsOfEachTargetThatTakesThemUnlessItsOptionsSayOtherwise) {
  targets.add(target("threaded_cpu", AttrSchema({field("threads", AttrType::kInt, AttrValue(0))})));
  auto options = check("targets: [threaded_cpu, fake_cpu]\nthreads: 3\ntarget_options: {fake_cpu: {cache_dir: c}}\n");
  EXPECT_EQ(options.at("threaded_cpu")->at("threads").as_int(), 3);
  EXPECT_EQ(options.at("fake_cpu")->find("threads"), nullptr);  // it has no such option
  options = check("targets: [threaded_cpu]\nthreads: 3\ntarget_options: {threaded_cpu: {threads: 1}}\n");
  EXPECT_EQ(options.at("threaded_cpu")->at("threads").as_int(), 1);
  options = check("targets: [threaded_cpu]\n");  // 0: each target's own default
  EXPECT_EQ(options.at("threaded_cpu")->at("threads").as_int(), 0);
}

}  // namespace
}  // namespace weft
