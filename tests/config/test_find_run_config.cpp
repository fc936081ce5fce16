// Finding configs: a path as given, an installed config by name (here the
// build tree's copy of configs/), and the error listing the installed names.
#include <gtest/gtest.h>

#include <algorithm>

#include "config_test.h"
#include "weft/target.h"

namespace weft {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::ScratchDir;

/// The configs in the source tree's configs/ folder, by name: what the build
/// tree must hold.
std::vector<std::string> source_config_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(WEFT_TEST_CONFIG_SOURCE_DIR)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Runs the test in `dir` as the working folder, restoring the old one after.
class InFolder {
 public:
  explicit InFolder(const fs::path& dir) : old_(fs::current_path()) { fs::current_path(dir); }
  ~InFolder() { fs::current_path(old_); }

 private:
  fs::path old_;
};

TEST(FindRunConfig, TheBuildTreeServesItsCopyOfConfigs) {
  EXPECT_EQ(fs::weakly_canonical(installed_run_config_dir()), fs::weakly_canonical(WEFT_TEST_CONFIG_BUILD_DIR));
  EXPECT_EQ(installed_run_config_names(), source_config_names());
  EXPECT_EQ(find_run_config("default"), installed_run_config_dir() / "default.yaml");
  EXPECT_EQ(find_run_config("null"), installed_run_config_dir() / "null.yaml");
}

TEST(FindRunConfig, AnExistingPathIsTakenAsGivenEvenWithAnInstalledName) {
  ScratchDir dir;
  std::ofstream(dir / "mine.yaml") << "opt_level: 1\n";
  EXPECT_EQ(find_run_config((dir / "mine.yaml").string()), dir / "mine.yaml");
  std::ofstream(dir / "default") << "opt_level: 2\n";
  InFolder in(dir.path());
  EXPECT_EQ(find_run_config("default"), fs::path("default"));
  EXPECT_EQ(load_run_config(find_run_config("default")).opt_level, 2);
}

TEST(FindRunConfig, AnUnknownNameListsTheInstalledConfigs) {
  std::string installed;
  for (const std::string& name : source_config_names()) installed += (installed.empty() ? "" : ", ") + name;
  const std::string tail = "; expected a config file, or the name of an installed one: " + installed +
                           "\n  note: installed in " + installed_run_config_dir().string();
  EXPECT_EQ(error_of([] { find_run_config("onednnn"); }), "no run config named 'onednnn'" + tail);
  EXPECT_EQ(error_of([] { find_run_config("configs/cpu.yaml"); }),
            "run config file 'configs/cpu.yaml' does not exist" + tail);
  EXPECT_EQ(error_of([] { find_run_config("cpu.yaml"); }), "run config file 'cpu.yaml' does not exist" + tail);
  try {
    find_run_config("onednnn");
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), StatusCode::kNotFound);
  }
}

TEST(FindRunConfig, TheDefaultConfigRunsOnednnThenLlvmWhereTheyAreThereThenRefWithWarningsAtO3) {
  RunConfig c = default_run_config();
  EXPECT_EQ(fs::path(c.source), installed_run_config_dir() / "default.yaml");
  EXPECT_EQ(c.target_order(), (std::vector<std::string>{"onednn", "llvm", "ref"}));
  EXPECT_EQ(c.missing_targets, MissingTargetPolicy::kSkip);
  EXPECT_EQ(c.fallback, FallbackPolicy::kWarn);
  EXPECT_EQ(c.opt_level, 3);
}

TEST(FindRunConfig, TheDefaultConfigChecksAgainstTheGlobalRegistriesWithOrWithoutOnednnAndLlvm) {
  // ref is built into the core and declares no options; onednn and llvm are
  // built only where libdnnl and LLVM 19 are installed, and the default
  // config leaves them out elsewhere.
  auto options = check_run_config(default_run_config());
  const bool onednn_built = TargetRegistry::global().find("onednn") != nullptr;
  const bool llvm_built = TargetRegistry::global().find("llvm") != nullptr;
  ASSERT_EQ(options.size(), 1u + onednn_built + llvm_built);
  EXPECT_TRUE(options.at("ref")->empty());
  EXPECT_EQ(options.count("onednn"), onednn_built ? 1u : 0u);
  EXPECT_EQ(options.count("llvm"), llvm_built ? 1u : 0u);
  RunConfig typo = parse_run_config("targets: [rf]\n", "c.yaml");
  std::string message = error_of([&] { check_run_config(typo); });
  EXPECT_EQ(message.rfind("c.yaml:1:11: unknown target 'rf'; expected a registered target: ", 0), 0u) << message;
  EXPECT_TRUE(message.find(" ref\n") != std::string::npos || message.find(" ref,") != std::string::npos) << message;
}

TEST(FindRunConfig, EveryInstalledConfigReads) {
  for (const std::string& name : installed_run_config_names()) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(load_run_config(find_run_config(name)));
  }
}

TEST(FindRunConfig, TheNullConfigListsTheSkeletonTarget) {
  // Reading only: whether `null` is registered is the null target's business.
  RunConfig c = load_run_config(find_run_config("null"));
  EXPECT_EQ(c.targets, (std::vector<std::string>{"null"}));
  EXPECT_EQ(c.target_order(), (std::vector<std::string>{"null", "ref"}));
}

}  // namespace
}  // namespace weft
