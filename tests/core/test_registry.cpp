// The one registry template (weft/registry.h) and its semantics, the same for
// ops, passes, models, initializers, targets and frontends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/frontend.h"
#include "weft/initializer.h"
#include "weft/model.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/registry.h"
#include "weft/target.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

static_assert(std::is_base_of_v<NamedRegistry<OpDef>, OpRegistry>);
static_assert(std::is_base_of_v<NamedRegistry<PassDef>, PassRegistry>);
static_assert(std::is_base_of_v<NamedRegistry<ModelDef>, ModelRegistry>);
static_assert(std::is_base_of_v<NamedRegistry<InitializerDef>, InitializerRegistry>);
static_assert(std::is_base_of_v<NamedRegistry<TargetDef>, TargetRegistry>);
static_assert(std::is_base_of_v<NamedRegistry<FrontendDef>, FrontendRegistry>);

/// A definition whose lifetime a test can watch through `alive`.
struct Probe {
  std::string name;
  std::string plugin;
  std::shared_ptr<int> alive = std::make_shared<int>(0);
};

TEST(Registry, ARemovedDefinitionStaysAliveForTheHandlesToIt) {
  NamedRegistry<Probe> registry("probe");
  const Probe& added = registry.add(Probe{"p", "owner"});
  std::weak_ptr<int> watch = added.alive;
  registry.remove("p");
  EXPECT_EQ(registry.find_loaded("p"), nullptr);
  EXPECT_FALSE(watch.expired());  // `added` may still be held by a caller
  EXPECT_EQ(added.name, "p");
}

TEST(Registry, ADuplicateNameNamesTheOwnerAndTheNewcomer) {
  NamedRegistry<Probe> registry("probe");
  registry.add(Probe{"p", "first"});
  EXPECT_THAT([&] { registry.add(Probe{"p", "second"}); },
              ThrowsMessage<Error>(
                  HasSubstr("probe 'p' is already registered by plugin 'first'; plugin 'second' registers it again")));
  EXPECT_THAT([&] { registry.add(Probe{"", "x"}); }, ThrowsMessage<Error>(HasSubstr("a probe needs a name")));
}

TEST(Registry, AMissAsksTheResolverOnceAndAnUnknownNameIsAnError) {
  NamedRegistry<Probe> registry("probe");
  std::vector<std::string> asked;
  registry.set_resolver([&](std::string_view name) {
    asked.emplace_back(name);
    if (name != "lazy") return false;
    registry.add(Probe{"lazy", "lazy_plugin"});  // the resolver registers, outside the registry's lock
    return true;
  });
  EXPECT_EQ(registry.get("lazy").plugin, "lazy_plugin");
  EXPECT_EQ(registry.find("lazy"), registry.find_loaded("lazy"));
  EXPECT_THAT([&] { registry.get("nobody"); }, ThrowsMessage<Error>(HasSubstr("unknown probe 'nobody'")));
  EXPECT_EQ(asked, (std::vector<std::string>{"lazy", "nobody"}));
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"lazy"}));
}

TEST(Registry, TheResolverReadsBackAsSetSoATestCanRestoreIt) {
  NamedRegistry<Probe> registry("probe");
  EXPECT_FALSE(registry.resolver());
  registry.set_resolver([](std::string_view) { return false; });
  NamedRegistry<Probe>::Resolver saved = registry.resolver();
  ASSERT_TRUE(saved);
  registry.set_resolver(nullptr);
  EXPECT_EQ(registry.find("x"), nullptr);
  registry.set_resolver(saved);
  EXPECT_TRUE(registry.resolver());
}

TEST(Registry, PassesAreDefinitionsWithAFactoryAndRemovedOnesKeepWorking) {
  PassRegistry registry;
  registry.add("X", [] { return InferType(); });
  const PassDef& def = registry.get("X");
  EXPECT_EQ(def.plugin, "");
  registry.remove("X");
  EXPECT_FALSE(registry.contains("X"));
  EXPECT_EQ(def.create().info().name, "InferType");
  EXPECT_THAT([&] { registry.add(PassDef{"Y", nullptr, ""}); },
              ThrowsMessage<Error>(HasSubstr("without a factory")));
}

}  // namespace
}  // namespace weft
