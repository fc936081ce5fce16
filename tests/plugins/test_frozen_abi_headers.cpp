// The ABI policy (docs/plugins.md) held against real old headers: plugins of
// every kind built against plugin.h exactly as it was at ABI 1.0 and at 1.1
// (tests/plugins/abi) load into the current weft and run. A plugin of another
// major is refused naming both versions, and the rest keep working
// (test_loader_errors.cpp).
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/workload.h"

namespace weft::testing {
namespace {

class FrozenAbiHeaders : public PluginTest, public ::testing::WithParamInterface<std::string> {
 protected:
  /// The four plugins built against the header of GetParam() ("abi10"), in
  /// their folders with their manifests, loaded.
  void SetUp() override {
    const std::string tag = GetParam();
    const std::pair<const char*, std::string> kinds[] = {
        {"ops", "ops: [" + tag + ".twice]"},
        {"model", "models: [" + tag + ".net]"},
        {"initializer", "initializers: [" + tag + ".ones]"},
        {"pass", "passes: [" + tag + ".Double]"}};
    for (const auto& [kind, provides] : kinds) {
      const std::string name = "frozen_" + tag + "_" + kind;
      copy_test_library(name, root() / name);
      write_file(root() / name / "weft-plugin.yaml",
                 "name: " + name + "\nversion: 1.0.0\nabi: 1\nkind: " + kind + "\nlibrary: lib" + name +
                     ".so\nrequires: [" + (std::string(kind) == "ops" ? "" : "frozen_" + tag + "_ops") +
                     "]\nprovides:\n  " + provides + "\n");
    }
    PluginLoader& l = loader();
    l.load_all();
    for (const PluginRecord& r : l.plugins()) ASSERT_EQ(r.state, PluginState::kLoaded) << r.display_name() << ": " << r.error;
  }

  static Tensor floats(std::vector<float> values) {
    Tensor t = Tensor::empty({static_cast<int64_t>(values.size())}, DataType::Float(32));
    std::copy(values.begin(), values.end(), t.data_as<float>());
    return t;
  }
  static std::vector<float> values(const Tensor& t) {
    return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
  }
};

TEST_P(FrozenAbiHeaders, AnOpsKernelRuns) {
  Value out = evaluate(call(GetParam() + ".twice", {constant(floats({1.0f, -2.5f, 3.0f}))}));
  EXPECT_EQ(values(out.tensor()), std::vector<float>({2.0f, -5.0f, 6.0f}));
}

TEST_P(FrozenAbiHeaders, AModelBuildsWithItsParamsAndRuns) {
  Function net = build_model(GetParam() + ".net", make_attrs({{"n", int64_t{2}}}));
  Value out = Interpreter(IRModule::from_function(net)).run_main({floats({0.5f, 4.0f})});
  EXPECT_EQ(values(out.tensor()), std::vector<float>({1.0f, 8.0f}));
}

TEST_P(FrozenAbiHeaders, AnInitializerFillsAWorkload) {
  Var data = var("data", tensor_type({3})), weight = var("weight", tensor_type({3}));
  Workload w = create_workload(function({data, weight}, call("multiply", {data, weight})), GetParam() + ".ones");
  ASSERT_EQ(w.params.size(), 1u);
  EXPECT_EQ(w.params[0].first, "weight");
  EXPECT_EQ(values(w.params[0].second), std::vector<float>({1.0f, 1.0f, 1.0f}));
}

TEST_P(FrozenAbiHeaders, APassRewritesMain) {
  Var x = var("x", tensor_type({2}));
  PassContext ctx;
  ctx.opt_level = 3;
  IRModule out = sequential({PassRegistry::global().create(GetParam() + ".Double")})(
      IRModule::from_function(function({x}, x)), ctx);
  Value doubled = Interpreter(out).run_main({floats({1.5f, -1.0f})});
  EXPECT_EQ(values(doubled.tensor()), std::vector<float>({3.0f, -2.0f}));
}

INSTANTIATE_TEST_SUITE_P(Abi, FrozenAbiHeaders, ::testing::Values("abi10", "abi11"));

}  // namespace
}  // namespace weft::testing
