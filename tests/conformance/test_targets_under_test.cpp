// Which targets the suite runs on, and which it skips: a target that cannot
// run on this machine is found by its create() and skipped with its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "targets_under_test.h"
#include "weft/error.h"

namespace weft::testing {
namespace {

/// Registers target `absent`, whose create() fails as a GPU target's does on
/// a machine without the GPU, for the test's lifetime.
class ScopedAbsentTarget {
 public:
  ScopedAbsentTarget() {
    TargetDef def;
    def.name = "absent";
    def.description = "a target whose device this machine lacks";
    def.create = [](const Attrs&) -> std::shared_ptr<Target> {
      throw Error("no Vulkan device on this machine").status(StatusCode::kUnsupported);
    };
    TargetRegistry::global().add(std::move(def));
  }
  ~ScopedAbsentTarget() { TargetRegistry::global().remove("absent"); }
  ScopedAbsentTarget(const ScopedAbsentTarget&) = delete;
  ScopedAbsentTarget& operator=(const ScopedAbsentTarget&) = delete;
};

TEST(TargetsUnderTest, StartWithRefAndListEachTargetOnce) {
  std::vector<std::string> names = targets_under_test();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "ref");
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST(TargetsUnderTest, IncludeTargetsRegisteredInProcess) {
  ScopedAbsentTarget absent;
  EXPECT_THAT(targets_under_test(), ::testing::Contains("absent"));
}

TEST(TargetUnavailable, IsWhatCreateSaysForATargetWithoutItsDeviceAndNothingForRef) {
  ScopedAbsentTarget absent;
  EXPECT_THAT(target_unavailable("absent"), ::testing::Optional(::testing::HasSubstr("no Vulkan device on this machine")));
  EXPECT_EQ(target_unavailable("ref"), std::nullopt);
}

TEST(TargetUnavailable, FailsForAnUnknownTargetRatherThanSkippingIt) {
  EXPECT_THROW(target_unavailable("no_such_target"), Error);
}

}  // namespace
}  // namespace weft::testing
