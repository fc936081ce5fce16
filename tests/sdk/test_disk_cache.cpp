// sdk/disk_cache.hpp: records survive between cache objects (as between
// builds), hold any bytes, and a record that is not whole, not of this
// kind or of another key is ignored with a warning naming the file, never
// returned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include <weft/sdk/disk_cache.hpp>

#include "support/temp_dir.h"

namespace {

using ::testing::HasSubstr;
using weft::sdk::DiskCache;
namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// What `cache.read(key)` gives, and what it warned on stderr.
std::pair<std::optional<std::string>, std::string> read_logged(const DiskCache& cache, const std::string& key) {
  ::testing::internal::CaptureStderr();
  std::optional<std::string> value = cache.read(key);
  return {value, ::testing::internal::GetCapturedStderr()};
}

TEST(DiskCache, ARecordWrittenIsReadBackByAnotherCacheOnTheSameFolder) {
  weft::testing::ScratchDir dir;
  const std::string folder = (dir / "nested" / "cache").string();
  const std::string binary("object\0code\n\xff with a newline\n", 30);
  DiskCache(folder, "test-kernel").write("layer 1\nsecond line of the key", binary);
  DiskCache cache(folder, "test-kernel");
  EXPECT_EQ(cache.read("layer 1\nsecond line of the key"), binary);
  EXPECT_EQ(cache.read("layer 2"), std::nullopt);
  EXPECT_TRUE(fs::exists(cache.path_of("layer 1\nsecond line of the key")));
  EXPECT_EQ(fs::path(cache.path_of("layer 2")).extension(), ".test-kernel");
  // Writing again replaces the record.
  cache.write("layer 2", "first");
  cache.write("layer 2", "second");
  EXPECT_EQ(cache.read("layer 2"), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 2) << "no temporary files left";
}

TEST(DiskCache, AnEmptyFolderKeepsNothing) {
  DiskCache cache("", "test-kernel");
  EXPECT_FALSE(cache.enabled());
  cache.write("key", "value");
  EXPECT_EQ(cache.read("key"), std::nullopt);
}

TEST(DiskCache, ABrokenOrForeignRecordIsIgnoredWithAWarningNamingTheFile) {
  weft::testing::ScratchDir dir;
  DiskCache cache(dir.path().string(), "test-kernel");
  cache.write("the key", "the value");
  const std::string path = cache.path_of("the key");
  const std::string good = read_file(path);
  DiskCache other_kind(dir.path().string(), "other-kind");
  const struct {
    std::string bytes, warning;
  } bad[] = {
      {"", "it is not a 'weft-test-kernel 1' record"},
      {"\x7f" "ELF", "it is not a 'weft-test-kernel 1' record"},
      {good.substr(0, good.size() - 1), "it is not a 'weft-test-kernel 1' record"},  // cut short
      {good + "x", "it is not a 'weft-test-kernel 1' record"},                         // trailing bytes
      {good.substr(0, good.size() - 5) + "VALUE", "it is not a 'weft-test-kernel 1' record"},  // bytes changed
      {"weft-test-kernel 1\nkey 99999999999\nthe key", "it is not a 'weft-test-kernel 1' record"},
      {"weft-test-kernel 1\nkey -1\n", "it is not a 'weft-test-kernel 1' record"},
      {"weft-test-kernel 1\nkey 7\nthe key\nvalue 9\nthe value", "it is not a 'weft-test-kernel 1' record"},
  };
  for (const auto& [bytes, warning] : bad) {
    write_file(path, bytes);
    auto [value, log] = read_logged(cache, "the key");
    EXPECT_EQ(value, std::nullopt) << bytes;
    EXPECT_THAT(log, HasSubstr("weft: warning: the test-kernel cache ignores " + path)) << bytes;
    EXPECT_THAT(log, HasSubstr(warning)) << bytes;
  }
  // Another kind's record, and another key's record in this key's file.
  other_kind.write("the key", "the value");
  write_file(path, read_file(other_kind.path_of("the key")));
  EXPECT_THAT(read_logged(cache, "the key").second, HasSubstr("it is not a 'weft-test-kernel 1' record"));
  cache.write("another key", "the value");
  write_file(path, read_file(cache.path_of("another key")));
  auto [value, log] = read_logged(cache, "the key");
  EXPECT_EQ(value, std::nullopt);
  EXPECT_THAT(log, HasSubstr("it records another key"));
  // A good record again reads without a word.
  write_file(path, good);
  EXPECT_EQ(read_logged(cache, "the key"), std::make_pair(std::optional<std::string>("the value"), std::string()));
}

TEST(DiskCache, AFolderThatCannotBeWrittenIsAWarningNotAnError) {
  weft::testing::ScratchDir dir;
  write_file((dir / "a file").string(), "not a folder");
  DiskCache cache((dir / "a file" / "cache").string(), "test-kernel");
  ::testing::internal::CaptureStderr();
  cache.write("key", "value");
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("warning: the test-kernel cache cannot write "));
  EXPECT_EQ(cache.read("key"), std::nullopt);
}

TEST(DiskCache, TheDefaultFolderFollowsXdgThenHome) {
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string xdg = saved_xdg ? saved_xdg : "";
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(DiskCache::default_dir("llvm"), "/xdg/weft/llvm");
  unsetenv("XDG_CACHE_HOME");
  if (const char* home = std::getenv("HOME"); home && *home) {
    EXPECT_EQ(DiskCache::default_dir("llvm"), (fs::path(home) / ".cache" / "weft" / "llvm").string());
  }
  if (saved_xdg) setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
}

}  // namespace
