// Every kind of bad config text and its exact message, at file:line:column:
// malformed YAML, documents that are not one mapping, unknown and duplicate
// keys at each level, values of the wrong YAML type, and bad values.
#include <gtest/gtest.h>

#include "config_test.h"

namespace weft {
namespace {

using testing::config_error;
using testing::error_of;

const std::string kSettings =
    "expected a mapping of settings: targets, missing_targets, fallback, opt_level, passes, plugin_paths, threads, "
    "target_options (see docs/configs.md)";

TEST(RunConfigErrors, MalformedYamlIsLocated) {
  // yaml-cpp's messages, at its positions.
  EXPECT_EQ(config_error("targets: [a, b\n"), "cfg.yaml:2:1: malformed YAML: end of sequence flow not found");
  EXPECT_EQ(config_error("opt_level: 1\n  threads: 2\n"), "cfg.yaml:2:10: malformed YAML: illegal map value");
  EXPECT_EQ(config_error("targets: *nowhere\n"),
            "cfg.yaml:1:10: malformed YAML: the referenced anchor is not defined");
  // Text yaml-cpp reads as endless empty documents (found by fuzz_run_config).
  EXPECT_EQ(config_error(",argets: [t]\n"), "cfg.yaml:1:1: malformed YAML: cannot read past ','");
}

TEST(RunConfigErrors, TheDocumentMustBeOneMapping) {
  EXPECT_EQ(config_error(""), "cfg.yaml:1:1: the run config is empty; " + kSettings);
  EXPECT_EQ(config_error("# only a comment\n"), "cfg.yaml:1:1: the run config is empty; " + kSettings);
  EXPECT_EQ(config_error("- targets\n"), "cfg.yaml:1:1: a run config must be a mapping of settings; " + kSettings);
  EXPECT_EQ(config_error("\n  onednn\n"), "cfg.yaml:2:3: a run config must be a mapping of settings; " + kSettings);
  EXPECT_EQ(config_error("opt_level: 1\n---\nopt_level: 2\n"),
            "cfg.yaml:2:1: a run config is one YAML document; a second one starts here");
  EXPECT_EQ(config_error("---\nopt_level: 1\n...\n---\n"),
            "cfg.yaml:4:1: a run config is one YAML document; a second one starts here");
}

TEST(RunConfigErrors, UnknownKeysAtEveryLevel) {
  EXPECT_EQ(config_error("opt_level: 1\ntarget: [llvm]\n"),
            "cfg.yaml:2:1: unknown key 'target'; expected one of: targets, missing_targets, fallback, opt_level, "
            "passes, plugin_paths, threads, target_options");
  EXPECT_EQ(config_error("passes: {required: [], enabled: [FuseOps]}\n"),
            "cfg.yaml:1:24: unknown key 'passes.enabled'; expected one of: required, disabled");
  EXPECT_EQ(config_error("[targets]: 1\n"), "cfg.yaml:1:1: keys must be plain names");
  EXPECT_EQ(config_error("passes: {[required]: []}\n"), "cfg.yaml:1:10: keys of 'passes' must be plain names");
}

TEST(RunConfigErrors, DuplicateKeysAtEveryLevel) {
  EXPECT_EQ(config_error("opt_level: 1\nthreads: 2\nopt_level: 2\n"),
            "cfg.yaml:3:1: duplicate key 'opt_level'\n  note: first given at cfg.yaml:1:1");
  EXPECT_EQ(config_error("passes:\n  disabled: []\n  disabled: [FuseOps]\n"),
            "cfg.yaml:3:3: duplicate key 'passes.disabled'\n  note: first given at cfg.yaml:2:3");
  EXPECT_EQ(config_error("targets: [t]\ntarget_options: {t: {}, t: {}}\n"),
            "cfg.yaml:2:25: duplicate key 'target_options.t'\n  note: first given at cfg.yaml:2:18");
  EXPECT_EQ(config_error("targets: [t]\ntarget_options: {t: {device: 0, device: 1}}\n"),
            "cfg.yaml:2:33: duplicate key 'target_options.t.device'\n  note: first given at cfg.yaml:2:22");
}

TEST(RunConfigErrors, ListsMustBeListsOfNames) {
  EXPECT_EQ(config_error("targets: llvm\n"),
            "cfg.yaml:1:10: 'targets' must be a list; expected a list of target names in priority order, like "
            "[onednn, llvm]");
  EXPECT_EQ(config_error("targets: [llvm, {name: x}]\n"),
            "cfg.yaml:1:17: 'targets[1]' must be a name; expected a list of target names in priority order, like "
            "[onednn, llvm]");
  EXPECT_EQ(config_error("targets: [llvm, \"\"]\n"),
            "cfg.yaml:1:17: 'targets[1]' must be a name; expected a list of target names in priority order, like "
            "[onednn, llvm]");
  // A plain null is YAML's empty value: the skeleton target's name needs quotes.
  EXPECT_EQ(config_error("targets: [null]\n"),
            "cfg.yaml:1:11: 'targets[0]' is empty (YAML reads a plain null or ~ as no value); expected a name; "
            "quote a name such as \"null\"");
  EXPECT_EQ(config_error("passes: {required: FoldConstant}\n"),
            "cfg.yaml:1:20: 'passes.required' must be a list; expected a list of pass names, like [FoldConstant]");
  EXPECT_EQ(config_error("plugin_paths: /opt/weft\n"),
            "cfg.yaml:1:15: 'plugin_paths' must be a list; expected a list of plugin folders or manifests");
}

TEST(RunConfigErrors, MappingsMustBeMappings) {
  EXPECT_EQ(config_error("passes: [FuseOps]\n"),
            "cfg.yaml:1:9: 'passes' must be a mapping; expected {required: [...], disabled: [...]}");
  EXPECT_EQ(config_error("target_options: [llvm]\n"),
            "cfg.yaml:1:17: 'target_options' must be a mapping; expected target names mapped to their options, "
            "like {llvm: {cache_dir: /tmp/weft}}");
  EXPECT_EQ(config_error("targets: [llvm]\ntarget_options: {llvm: fast}\n"),
            "cfg.yaml:2:24: 'target_options.llvm' must be a mapping; expected option names mapped to values, like "
            "{device: 0}");
  EXPECT_EQ(config_error("targets: [llvm]\ntarget_options: {llvm: {cache: {dir: x}}}\n"),
            "cfg.yaml:2:32: option 'target_options.llvm.cache' must be a value or a list; expected a number, true "
            "or false, a string, or a list of them");
  EXPECT_EQ(config_error("targets: [llvm]\ntarget_options: {llvm: {cache: [{dir: x}]}}\n"),
            "cfg.yaml:2:33: option 'target_options.llvm.cache' must be a value or a list; expected a number, true "
            "or false, a string, or a list of them");
}

TEST(RunConfigErrors, IntegersMustBePlainIntegers) {
  const std::string opt = "; expected an integer from 0 to 3";
  EXPECT_EQ(config_error("opt_level: three\n"), "cfg.yaml:1:12: 'opt_level' must be an integer, got 'three'" + opt);
  EXPECT_EQ(config_error("opt_level: 2.5\n"), "cfg.yaml:1:12: 'opt_level' must be an integer, got '2.5'" + opt);
  EXPECT_EQ(config_error("opt_level: \"2\"\n"), "cfg.yaml:1:12: 'opt_level' must be an integer, got '2'" + opt);
  EXPECT_EQ(config_error("opt_level: [2]\n"), "cfg.yaml:1:12: 'opt_level' must be an integer, got no value" + opt);
  EXPECT_EQ(config_error("opt_level:\n"), "cfg.yaml:1:1: 'opt_level' must be an integer, got no value" + opt);
  EXPECT_EQ(config_error("opt_level: 99999999999\n"),
            "cfg.yaml:1:12: 'opt_level' must be an integer, got '99999999999'" + opt);
  EXPECT_EQ(config_error("opt_level: +-2\n"), "cfg.yaml:1:12: 'opt_level' must be an integer, got '+-2'" + opt);
  EXPECT_EQ(config_error("opt_level: 0x2\n"), "cfg.yaml:1:12: 'opt_level' must be an integer, got '0x2'" + opt);
  EXPECT_EQ(config_error("threads: many\n"),
            "cfg.yaml:1:10: 'threads' must be an integer, got 'many'; expected an integer, the number of threads "
            "(0: all cores)");
}

TEST(RunConfigErrors, FallbackIsWarnOrError) {
  const std::string expected =
      "; expected warn (run the ops no listed target supports on ref, naming them) or error (fail naming them)";
  EXPECT_EQ(config_error("fallback: ignore\n"), "cfg.yaml:1:11: bad fallback 'ignore'" + expected);
  EXPECT_EQ(config_error("fallback: [warn]\n"), "cfg.yaml:1:11: bad fallback" + expected);
  EXPECT_EQ(config_error("fallback:\n"), "cfg.yaml:1:1: bad fallback" + expected);
}

TEST(RunConfigErrors, MissingTargetsIsErrorOrSkip) {
  const std::string expected =
      "; expected error (refuse the config naming a listed target that is not there) or skip (leave it out)";
  EXPECT_EQ(config_error("missing_targets: ignore\n"), "cfg.yaml:1:18: bad missing_targets 'ignore'" + expected);
  EXPECT_EQ(config_error("missing_targets: [skip]\n"), "cfg.yaml:1:18: bad missing_targets" + expected);
}

TEST(RunConfigErrors, OptLevelAndThreadsOutOfRange) {
  EXPECT_EQ(config_error("targets: []\nopt_level: 4\n"),
            "cfg.yaml:2:1: opt_level 4 is out of range; expected 0, 1, 2 or 3");
  EXPECT_EQ(config_error("opt_level: -1\n"), "cfg.yaml:1:1: opt_level -1 is out of range; expected 0, 1, 2 or 3");
  EXPECT_EQ(config_error("threads: -2\n"),
            "cfg.yaml:1:1: threads must not be negative, got -2; expected a number of threads, or 0 for all cores");
}

TEST(RunConfigErrors, TargetsAreListedOnceAndRefLast) {
  EXPECT_EQ(config_error("targets: [llvm, onednn, llvm]\n"),
            "cfg.yaml:1:25: target 'llvm' is listed twice\n  note: first listed at cfg.yaml:1:11");
  EXPECT_EQ(config_error("targets: [ref, llvm]\n"),
            "cfg.yaml:1:11: 'ref' comes before 'llvm', which would then never run; expected ref last, or left out "
            "(it is always the last resort)");
}

TEST(RunConfigErrors, OptionsOnlyForListedTargets) {
  EXPECT_EQ(config_error("targets: [llvm]\ntarget_options:\n  vulkan: {device: 0}\n"),
            "cfg.yaml:3:3: options for target 'vulkan', which is not in targets; expected options only for the "
            "targets listed: llvm, ref");
}

TEST(RunConfigErrors, APassIsListedOnceAndNotBothRequiredAndDisabled) {
  EXPECT_EQ(config_error("passes:\n  required: [FuseOps]\n  disabled: [FoldConstant, FuseOps]\n"),
            "cfg.yaml:3:28: pass 'FuseOps' is both required and disabled\n  note: required at cfg.yaml:2:14");
  EXPECT_EQ(config_error("passes: {disabled: [FuseOps, FuseOps]}\n"),
            "cfg.yaml:1:30: pass 'FuseOps' is listed twice\n  note: first listed at cfg.yaml:1:21");
}

TEST(RunConfigErrors, LoadingNamesTheFileAndRefusesFolders) {
  EXPECT_EQ(error_of([] { load_run_config("/nonexistent/weft/cpu.yaml"); }),
            "/nonexistent/weft/cpu.yaml: cannot read run config");
  testing::ScratchDir dir;
  EXPECT_EQ(error_of([&] { load_run_config(dir.path()); }),
            dir.path().string() + ": a run config must be a file, not a folder");
}

TEST(RunConfigErrors, ALoadedFileIsNamedInItsErrors) {
  testing::ScratchDir dir;
  std::ofstream(dir / "bad.yaml") << "targets: [llvm]\nopt_level: 9\n";
  EXPECT_EQ(error_of([&] { load_run_config(dir / "bad.yaml"); }),
            (dir / "bad.yaml").string() + ":2:1: opt_level 9 is out of range; expected 0, 1, 2 or 3");
}

}  // namespace
}  // namespace weft
