// Helpers for the loader tests: a temporary plugin folder where a test copies
// the test plugin libraries it needs and writes manifests, good or broken.
#pragma once

#include <gtest/gtest.h>
#include <weft/plugin.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "weft/frontend.h"
#include "weft/initializer.h"
#include "weft/model.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/plugin_loader.h"
#include "weft/target.h"

namespace weft::testing {

namespace fs = std::filesystem;

/// A fresh folder under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "weft-plugin-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// Writes `text` to path, creating folders.
inline void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// Copies test plugin `lib<name>.so` into `folder`.
inline void copy_test_library(const std::string& name, const fs::path& folder) {
  fs::create_directories(folder);
  fs::copy_file(fs::path(WEFT_TEST_PLUGIN_DIR) / ("lib" + name + ".so"), folder / ("lib" + name + ".so"),
                fs::copy_options::overwrite_existing);
}

/// A manifest for a plugin `name` whose library is lib<library>.so.
inline std::string manifest(const std::string& name, const std::string& library, const std::string& ops,
                            const std::string& extra = "") {
  return "name: " + name + "\nversion: 1.0.0\nabi: 1\nkind: ops\nlibrary: lib" + library +
         ".so\nprovides:\n  ops: [" + ops + "]\n" + extra;
}

/// Writes plugin folder root/name with the library copied and its manifest.
inline void add_plugin(const fs::path& root, const std::string& name, const std::string& library,
                       const std::string& ops, const std::string& extra = "") {
  copy_test_library(library, root / name);
  write_file(root / name / "weft-plugin.yaml", manifest(name, library, ops, extra));
}

/// Base fixture: a temp plugin folder, loaders over it, and cleanup of
/// whatever those loaders registered (other tests load the same names again).
class PluginTest : public ::testing::Test {
 protected:
  void TearDown() override {
    auto kind = [](const PluginRecord& r, ProvidedKind k) { return r.registered[static_cast<int>(k)]; };
    for (const auto& l : loaders_) {
      for (const PluginRecord& r : l->plugins()) {
        for (const auto& n : kind(r, ProvidedKind::kOp)) OpRegistry::global().remove(n);
        for (const auto& n : kind(r, ProvidedKind::kModel)) ModelRegistry::global().remove(n);
        for (const auto& n : kind(r, ProvidedKind::kInitializer)) InitializerRegistry::global().remove(n);
        for (const auto& n : kind(r, ProvidedKind::kPass)) PassRegistry::global().remove(n);
        for (const auto& n : kind(r, ProvidedKind::kTarget)) TargetRegistry::global().remove(n);
        for (const auto& n : kind(r, ProvidedKind::kFrontend)) FrontendRegistry::global().remove(n);
      }
    }
    loaders_.clear();
  }

  /// A loader over the temp folder (or the given paths).
  PluginLoader& loader(PluginLoaderOptions options = {}) {
    if (options.search_paths.empty()) options.search_paths = {dir_.path()};
    loaders_.push_back(std::make_unique<PluginLoader>(std::move(options)));
    return *loaders_.back();
  }

  static PluginRecord record(const PluginLoader& l, const std::string& name) { return l.plugin(name).value(); }

  /// The error of the plugin named `name`, loading it first.
  static std::string load_error(PluginLoader& l, const std::string& name) {
    try {
      l.load(name);
    } catch (const Error& e) {
      EXPECT_EQ(record(l, name).error, e.what());
      return e.what();
    }
    ADD_FAILURE() << "plugin " << name << " loaded, but it should have failed";
    return "";
  }

  const fs::path& root() const { return dir_.path(); }

  TempDir dir_;
  std::vector<std::unique_ptr<PluginLoader>> loaders_;
};

}  // namespace weft::testing
