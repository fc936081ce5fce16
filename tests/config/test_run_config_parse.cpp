// Reading run configs: every key into its field, the defaults of the keys
// left out, how option values are typed, and where each value was written.
#include <gtest/gtest.h>

#include "config_test.h"

namespace weft {
namespace {

namespace fs = std::filesystem;

TEST(RunConfigParse, EveryKeyReachesItsField) {
  const std::string yaml =
      "targets: [onednn, llvm]\n"
      "missing_targets: skip\n"
      "fallback: error\n"
      "opt_level: 2\n"
      "passes: {required: [FoldConstant], disabled: [FuseOps, SimplifyExpr]}\n"
      "plugin_paths: [vendor/plugins, /opt/weft/plugins, ../shared]\n"
      "threads: 4\n"
      "target_options: {llvm: {cache_dir: /tmp/weft}, onednn: {}}\n";
  RunConfig c = parse_run_config(yaml, "/etc/weft/cpu.yaml");
  EXPECT_EQ(c.source, "/etc/weft/cpu.yaml");
  EXPECT_EQ(c.targets, (std::vector<std::string>{"onednn", "llvm"}));
  EXPECT_EQ(c.missing_targets, MissingTargetPolicy::kSkip);
  EXPECT_EQ(c.fallback, FallbackPolicy::kError);
  EXPECT_EQ(c.opt_level, 2);
  EXPECT_EQ(c.required_passes, (std::vector<std::string>{"FoldConstant"}));
  EXPECT_EQ(c.disabled_passes, (std::vector<std::string>{"FuseOps", "SimplifyExpr"}));
  // Relative paths are the config file's folder's; absolute ones stay.
  EXPECT_EQ(c.plugin_paths,
            (std::vector<fs::path>{"/etc/weft/vendor/plugins", "/opt/weft/plugins", "/etc/shared"}));
  EXPECT_EQ(c.threads, 4);
  ASSERT_EQ(c.target_options.size(), 2u);
  EXPECT_TRUE(attrs_equal(c.target_options.at("llvm"), make_attrs({{"cache_dir", "/tmp/weft"}})));
  EXPECT_TRUE(c.target_options.at("onednn")->empty());
}

TEST(RunConfigParse, KeysLeftOutKeepTheirDefaults) {
  RunConfig c = parse_run_config("opt_level: 1\n", "cfg.yaml");
  EXPECT_TRUE(c.targets.empty());
  EXPECT_EQ(c.missing_targets, MissingTargetPolicy::kError);
  EXPECT_EQ(c.fallback, FallbackPolicy::kWarn);
  EXPECT_EQ(c.opt_level, 1);
  EXPECT_TRUE(c.required_passes.empty() && c.disabled_passes.empty() && c.plugin_paths.empty());
  EXPECT_EQ(c.threads, 0);
  EXPECT_TRUE(c.target_options.empty());
  EXPECT_EQ(parse_run_config("fallback: warn\n", "cfg.yaml").opt_level, 3);
}

TEST(RunConfigParse, AKeyWithNoValueIsAnEmptyListOrMapping) {
  RunConfig c = parse_run_config("targets:\npasses:\nplugin_paths:\ntarget_options:\n", "cfg.yaml");
  EXPECT_TRUE(c.targets.empty() && c.required_passes.empty() && c.plugin_paths.empty() && c.target_options.empty());
  c = parse_run_config("targets: [x]\npasses: {required:}\ntarget_options: {x:}\n", "cfg.yaml");
  EXPECT_TRUE(c.required_passes.empty());
  EXPECT_TRUE(c.target_options.at("x")->empty());
}

TEST(RunConfigParse, BlockStyleReadsAsFlowStyle) {
  const std::string block =
      "targets:\n"
      "  - llvm\n"
      "passes:\n"
      "  disabled:\n"
      "    - FuseOps\n"
      "target_options:\n"
      "  llvm:\n"
      "    opt: 2\n";
  RunConfig c = parse_run_config(block, "cfg.yaml");
  RunConfig flow =
      parse_run_config("{targets: [llvm], passes: {disabled: [FuseOps]}, target_options: {llvm: {opt: 2}}}", "f.yaml");
  EXPECT_EQ(c.targets, flow.targets);
  EXPECT_EQ(c.disabled_passes, flow.disabled_passes);
  EXPECT_TRUE(attrs_equal(c.target_options.at("llvm"), flow.target_options.at("llvm")));
}

TEST(RunConfigParse, RefIsImplicitlyLastAndMayBeListedLast) {
  EXPECT_EQ(parse_run_config("targets: [a, b]", "cfg.yaml").target_order(),
            (std::vector<std::string>{"a", "b", "ref"}));
  EXPECT_EQ(parse_run_config("targets: [a, ref]", "cfg.yaml").target_order(),
            (std::vector<std::string>{"a", "ref"}));
  EXPECT_EQ(parse_run_config("targets: []", "cfg.yaml").target_order(), (std::vector<std::string>{"ref"}));
  // Options for ref are for a listed target, listed or not.
  EXPECT_NO_THROW(parse_run_config("target_options: {ref: {}}", "cfg.yaml"));
}

TEST(RunConfigParse, OptionValuesAreTypedAsYamlCoreScalarsAndQuotedOnesStayStrings) {
  const std::string yaml =
      "targets: [t]\n"
      "target_options:\n"
      "  t: {i: -3, p: +7, f: 2.5, e: 1e-3, b: true, B: False, s: hello, q: \"4\", n: null, tilde: ~,\n"
      "      ints: [1, 2], floats: [1, 2.5], mixed: [1, x], empty: [], nested: [[1, 2], [3]],\n"
      "      inf: inf, nan: nan, hex: 0x10, signs: +-3, yes: yes}\n";
  Attrs o = parse_run_config(yaml, "cfg.yaml").target_options.at("t");
  EXPECT_EQ(*o->find("i"), AttrValue(int64_t{-3}));
  EXPECT_EQ(*o->find("p"), AttrValue(int64_t{7}));
  EXPECT_EQ(*o->find("f"), AttrValue(2.5));
  EXPECT_EQ(*o->find("e"), AttrValue(1e-3));
  EXPECT_EQ(*o->find("b"), AttrValue(true));
  EXPECT_EQ(*o->find("B"), AttrValue(false));
  EXPECT_EQ(*o->find("s"), AttrValue("hello"));
  EXPECT_EQ(*o->find("q"), AttrValue("4"));
  EXPECT_TRUE(o->find("n")->is_none());
  EXPECT_TRUE(o->find("tilde")->is_none());
  EXPECT_EQ(*o->find("ints"), AttrValue(std::vector<int64_t>{1, 2}));
  EXPECT_EQ(*o->find("floats"), AttrValue(std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(*o->find("mixed"), AttrValue(std::vector<AttrValue>{int64_t{1}, "x"}));
  EXPECT_EQ(*o->find("empty"), AttrValue(std::vector<int64_t>{}));
  EXPECT_EQ(*o->find("nested"),
            AttrValue(std::vector<AttrValue>{std::vector<int64_t>{1, 2}, std::vector<int64_t>{3}}));
  // Not decimal numbers: strings, as YAML's core schema reads them (.inf and
  // .nan would be its floats, which no option needs).
  EXPECT_EQ(*o->find("inf"), AttrValue("inf"));
  EXPECT_EQ(*o->find("nan"), AttrValue("nan"));
  EXPECT_EQ(*o->find("hex"), AttrValue("0x10"));
  EXPECT_EQ(*o->find("signs"), AttrValue("+-3"));
  // YAML 1.1's yes/no are plain strings in the core schema.
  EXPECT_EQ(*o->find("yes"), AttrValue("yes"));
  // Written order is kept.
  EXPECT_EQ(o->entries.front().first, "i");
  EXPECT_EQ(o->entries.back().first, "yes");
}

TEST(RunConfigParse, EveryValueIsLocatedAtItsKeyOrListItem) {
  const std::string yaml =
      "# a comment line\n"
      "targets: [onednn,  llvm]\n"
      "opt_level: 2\n"
      "passes:\n"
      "  disabled: [FuseOps]\n"
      "target_options:\n"
      "  llvm: {cache_dir: x}\n";
  RunConfig c = parse_run_config(yaml, "cpu.yaml");
  EXPECT_EQ(c.where("targets").str(), "cpu.yaml:2:1");
  EXPECT_EQ(c.where("targets[0]").str(), "cpu.yaml:2:11");
  EXPECT_EQ(c.where("targets[1]").str(), "cpu.yaml:2:20");
  EXPECT_EQ(c.where("opt_level").str(), "cpu.yaml:3:1");
  EXPECT_EQ(c.where("passes.disabled").str(), "cpu.yaml:5:3");
  EXPECT_EQ(c.where("passes.disabled[0]").str(), "cpu.yaml:5:14");
  EXPECT_EQ(c.where("target_options.llvm").str(), "cpu.yaml:7:3");
  EXPECT_EQ(c.where("target_options.llvm.cache_dir").str(), "cpu.yaml:7:10");
  // Not written: just the file.
  EXPECT_EQ(c.where("threads").str(), "cpu.yaml");
}

TEST(RunConfigParse, AnchorsAndAliasesAreResolved) {
  RunConfig c = parse_run_config("targets: &order [a, b]\npasses: {disabled: *order}\n", "cfg.yaml");
  EXPECT_EQ(c.disabled_passes, c.targets);
}

TEST(RunConfigParse, FallbackPoliciesHaveTheirConfigNames) {
  EXPECT_EQ(fallback_policy_name(FallbackPolicy::kWarn), "warn");
  EXPECT_EQ(fallback_policy_name(FallbackPolicy::kError), "error");
  EXPECT_EQ(missing_target_policy_name(MissingTargetPolicy::kError), "error");
  EXPECT_EQ(missing_target_policy_name(MissingTargetPolicy::kSkip), "skip");
}

}  // namespace
}  // namespace weft
