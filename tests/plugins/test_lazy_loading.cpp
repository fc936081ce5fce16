// Manifests are read up front; a library loads only when something it provides
// is first asked for, after the plugins it requires, and nothing else loads.
#include <gmock/gmock.h>

#include "plugin_test_util.h"

namespace weft::testing {
namespace {

class LazyLoadingTest : public PluginTest {
 protected:
  void SetUp() override {
    add_plugin(root(), "a", "chain_a", "chain.a", "requires: [b]\n");
    add_plugin(root(), "b", "chain_b", "chain.b");
    add_plugin(root(), "c", "chain_c", "chain.c");
  }
};

TEST_F(LazyLoadingTest, DiscoveryLoadsNothing) {
  PluginLoader& l = loader();
  for (const PluginRecord& r : l.plugins()) EXPECT_EQ(r.state, PluginState::kDiscovered) << r.display_name();
  EXPECT_EQ(OpRegistry::global().find_loaded("chain.a"), nullptr);
}

TEST_F(LazyLoadingTest, AskingForAnOpLoadsItsPluginAndRequirementsOnly) {
  PluginLoader& l = loader();
  l.install_resolvers();
  ASSERT_NE(OpRegistry::global().find("chain.a"), nullptr);
  EXPECT_EQ(record(l, "a").state, PluginState::kLoaded);
  EXPECT_EQ(record(l, "b").state, PluginState::kLoaded);    // a requires b
  EXPECT_EQ(record(l, "c").state, PluginState::kDiscovered);  // untouched
  EXPECT_NE(OpRegistry::global().find_loaded("chain.b"), nullptr);
  EXPECT_EQ(OpRegistry::global().find_loaded("chain.c"), nullptr);
}

TEST_F(LazyLoadingTest, BuildingACallLoadsTheOp) {
  PluginLoader& l = loader();
  l.install_resolvers();
  Call c = call("chain.c", {var("x", tensor_type({1}))});
  EXPECT_EQ(c->op.as<OpNode>()->name(), "chain.c");
  EXPECT_EQ(record(l, "c").state, PluginState::kLoaded);
  EXPECT_EQ(record(l, "a").state, PluginState::kDiscovered);
}

TEST_F(LazyLoadingTest, UnknownNamesLoadNothing) {
  PluginLoader& l = loader();
  l.install_resolvers();
  EXPECT_EQ(OpRegistry::global().find("chain.zzz"), nullptr);
  for (const PluginRecord& r : l.plugins()) EXPECT_EQ(r.state, PluginState::kDiscovered);
}

TEST_F(LazyLoadingTest, LoadingTwiceIsANoOp) {
  PluginLoader& l = loader();
  l.load("a");
  l.load("a");
  EXPECT_TRUE(l.resolve(ProvidedKind::kOp, "chain.b"));
  EXPECT_EQ(record(l, "a").state, PluginState::kLoaded);
}

TEST_F(LazyLoadingTest, ModelsLoadOnDemandToo) {
  copy_test_library("c_model", root() / "models");
  write_file(root() / "models" / "weft-plugin.yaml",
             "name: models\nversion: 1.0.0\nabi: 1\nkind: model\nlibrary: libc_model.so\n"
             "provides: {models: [cmodel.identity]}\n");
  PluginLoader& l = loader();
  l.install_resolvers();
  EXPECT_EQ(record(l, "models").state, PluginState::kDiscovered);
  Function f = build_model("cmodel.identity", make_attrs({{"n", 5}}));
  EXPECT_EQ(record(l, "models").state, PluginState::kLoaded);
  EXPECT_EQ(type_to_text(f->params[0]->type_annotation), "Tensor[(5), float32]");
  EXPECT_TRUE(f->body.same_as(f->params[0]));
  EXPECT_EQ(type_to_text(build_model("cmodel.identity")->params[0]->type_annotation), "Tensor[(3), float32]");
  EXPECT_THAT([] { build_model("cmodel.identity", make_attrs({{"n", 0}})); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("model cmodel.identity: n must be positive")));
  EXPECT_EQ(record(l, "a").state, PluginState::kDiscovered);
}

}  // namespace
}  // namespace weft::testing
