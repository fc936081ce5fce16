// The ABI's compatibility rules in practice: a descriptor from an older
// plugin.h (smaller struct_size) registers, and the host reads nothing past
// the size the plugin declared.
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/passes.h"

namespace weft::testing {
namespace {

class AbiCompatTest : public PluginTest {};

TEST_F(AbiCompatTest, OlderDescriptorLayoutRegistersWithoutItsMissingFields) {
  add_plugin(root(), "old", "old_layout", "old.op");
  PluginLoader& l = loader();
  l.load("old");
  const OpDef* op = OpRegistry::global().find_loaded("old.op");
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(op->gradient);  // the garbage after struct_size was not read as a callback
  EXPECT_FALSE(op->te_compute);
  EXPECT_TRUE(op->rewrites.empty());  // nor as a 1.3 rewrites array
  EXPECT_FALSE(op->is_reshape);       // nor as a 1.4 flag
  EXPECT_FALSE(op->is_layout_layer);  // nor as a 1.6 one
  EXPECT_EQ(op->support_level, 10);  // zero means "absent": the default level
  Call c = call(op->expr(), {var("x", tensor_type({2}))});
  EXPECT_EQ(c->op.as<OpNode>()->name(), "old.op");
  // A 1.1 attr field has no text_default: text reads the ordinary default.
  const AttrField* scale = op->attrs.find("scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_FALSE(scale->text_default.has_value());
  EXPECT_EQ(call(op->expr(), {var("x")}, nullptr, AttrDefaults::kText)->attrs->at("scale"), AttrValue(3));
}

TEST_F(AbiCompatTest, APassPluginBuiltAgainstAbi15LoadsAndRunsWithoutTheContext) {
  // Built against 1.5: no run_in_context (garbage bytes there), so the host calls its run.
  add_plugin(root(), "oldpass", "old_pass", "", "  passes: [old.TagMain]\n");
  loader().load("oldpass");
  const PassDef* def = PassRegistry::global().find_loaded("old.TagMain");
  ASSERT_NE(def, nullptr);
  Var x = var("x", tensor_type({2}));
  PassContext ctx;
  ctx.opt_level = 3;
  IRModule out = sequential({def->create()})(IRModule::from_function(function({x}, x)), ctx);
  const auto* tuple = out.main()->body.as<TupleNode>();
  ASSERT_NE(tuple, nullptr);
  EXPECT_TRUE(tuple->fields[0] == Expr(x));
}

TEST_F(AbiCompatTest, ATargetBuiltAgainstAbi16LoadsAndItsKernelsReadEveryArgument) {
  // Built against 1.6: no packed_constants (garbage bytes there), so no
  // kernel of it packs anything, even one compiled with a constant.
  add_plugin(root(), "oldinterface", "old_interface_target", "", "  targets: [oldinterface]\n");
  loader().load("oldinterface");
  const TargetDef* def = TargetRegistry::global().find_loaded("oldinterface");
  ASSERT_NE(def, nullptr);
  std::shared_ptr<Target> target = def->create(empty_attrs());
  Var x = var("x", tensor_type({2})), w = var("w", tensor_type({2}));
  Function group = infer_type(IRModule::from_function(
                                  function({x, w}, x, nullptr, make_attrs({{"Primitive", 1}}))))
                       .main();
  std::unique_ptr<TargetKernel> kernel =
      target->compile(group, std::vector<Tensor>{Tensor(), Tensor::zeros({2}, DataType::Float(32))});
  EXPECT_TRUE(kernel->packed_constants().empty());
  EXPECT_EQ(kernel->packed_bytes(), 0u);
}

TEST_F(AbiCompatTest, SearchPathsComeFromConfigThenEnvironmentThenBuildTree) {
  const char* old = std::getenv("WEFT_PLUGIN_PATH");
  std::string saved = old ? old : "";
  setenv("WEFT_PLUGIN_PATH", "/env/one::/env/two", 1);
  auto paths = PluginLoader::default_search_paths({"/config/dir"});
  if (old) setenv("WEFT_PLUGIN_PATH", saved.c_str(), 1);
  else unsetenv("WEFT_PLUGIN_PATH");
  ASSERT_GE(paths.size(), 4u);
  EXPECT_EQ(paths[0], "/config/dir");
  EXPECT_EQ(paths[1], "/env/one");  // empty entries are skipped
  EXPECT_EQ(paths[2], "/env/two");
  EXPECT_EQ(paths[3], fs::path(WEFT_TEST_BUILD_PLUGIN_DIR));
}

TEST_F(AbiCompatTest, ConfigPathsComeFirstAndMustBeSetBeforeLoading) {
  add_plugin(root(), "cfg", "chain_a", "chain.a");
  // In a child process: this configures the process-wide loader for good.
  EXPECT_EXIT(
      {
        PluginLoader::configure_global({root()});
        bool first = PluginLoader::global().plugins().front().manifest_path == root() / "cfg" / "weft-plugin.yaml";
        PluginLoader::configure_global({root()});  // nothing loaded yet: allowed
        PluginLoader::global().load("cfg");
        try {
          PluginLoader::configure_global({});
        } catch (const Error& e) {
          std::exit(first && std::string(e.what()).find("must be set before any plugin is loaded") != std::string::npos
                        ? 0
                        : 2);
        }
        std::exit(3);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace weft::testing
