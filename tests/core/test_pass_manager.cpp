// The pass manager: gating in Sequential, required passes, function passes,
// PassContext scopes, typed config keys and the pass registry.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test_ops.h"
#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/structural.h"

namespace weft {
namespace {

class PassManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }

  /// A module pass that records its name in log_ and changes nothing.
  Pass recorder(const std::string& name, int opt_level, std::vector<std::string> required = {}) {
    return create_module_pass({name, opt_level, std::move(required)}, [this, name](IRModule mod, const PassContext&) {
      log_->push_back(name);
      return mod;
    });
  }

  IRModule module() const {
    Var x = var("x", tensor_type({2}));
    return IRModule::from_function(function({x}, call("test.relu", {x})));
  }

  std::shared_ptr<std::vector<std::string>> log_ = std::make_shared<std::vector<std::string>>();
};

template <typename F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no weft::Error thrown";
  return "";
}

TEST_F(PassManagerTest, SequentialRunsPassesUpToTheContextsOptLevel) {
  PassContext ctx;
  ctx.opt_level = 2;
  sequential({recorder("A", 1), recorder("B", 2), recorder("C", 3), recorder("D", 0)})(module(), ctx);
  EXPECT_EQ(*log_, (std::vector<std::string>{"A", "B", "D"}));
}

TEST_F(PassManagerTest, RequiredPassRunsAboveTheOptLevel) {
  PassContext ctx;
  ctx.opt_level = 0;
  ctx.required_passes = {"C"};
  sequential({recorder("B", 2), recorder("C", 3)})(module(), ctx);
  EXPECT_EQ(*log_, (std::vector<std::string>{"C"}));
}

TEST_F(PassManagerTest, DisabledPassNeverRunsEvenWhenRequired) {
  PassContext ctx;
  ctx.opt_level = 3;
  ctx.disabled_passes = {"B"};
  ctx.required_passes = {"B"};
  sequential({recorder("A", 1), recorder("B", 1)})(module(), ctx);
  EXPECT_EQ(*log_, (std::vector<std::string>{"A"}));
}

TEST_F(PassManagerTest, GatingAppliesInsideNestedSequentials) {
  PassContext ctx;
  ctx.opt_level = 1;
  Pass inner = sequential({recorder("in1", 1), recorder("in3", 3)}, "inner");
  sequential({recorder("A", 0), inner})(module(), ctx);
  EXPECT_EQ(*log_, (std::vector<std::string>{"A", "in1"}));
}

// Records the name of every pass as it starts.
struct StartOrder : PassInstrument {
  std::vector<std::string> started;
  std::string name() const override { return "StartOrder"; }
  void run_before_pass(const IRModule&, const PassInfo& info) override { started.push_back(info.name); }
};

TEST_F(PassManagerTest, PassesNamedInRequiredRunFirstUngated) {
  if (!PassRegistry::global().contains("test.Prepare")) {
    PassRegistry::global().add("test.Prepare", [] {
      return create_module_pass({"test.Prepare", 5, {}}, [](IRModule mod, const PassContext&) { return mod; });
    });
  }
  auto order = std::make_shared<StartOrder>();
  PassContext ctx;
  ctx.opt_level = 0;  // below test.Prepare's 5: it runs anyway, being required
  ctx.instruments = {order};
  sequential({recorder("D", 0, {"test.Prepare"}), recorder("E", 0, {"test.Prepare"})})(module(), ctx);
  EXPECT_EQ(order->started, (std::vector<std::string>{"sequential", "test.Prepare", "D", "test.Prepare", "E"}));
  EXPECT_EQ(*log_, (std::vector<std::string>{"D", "E"}));
}

TEST_F(PassManagerTest, CorePassesAreRequirableByName) {
  // D requires InferType, which types the module before D looks at it.
  bool typed = false;
  Pass d = create_module_pass({"D", 0, {"InferType"}}, [&](IRModule mod, const PassContext&) {
    typed = mod.main()->body->has_type();
    return mod;
  });
  sequential({d})(module(), PassContext());
  EXPECT_TRUE(typed);
}

TEST_F(PassManagerTest, UnknownRequiredPassNamesBothPasses) {
  std::string msg = error_of([&] { sequential({recorder("D", 0, {"NoSuchPass"})})(module(), PassContext()); });
  EXPECT_NE(msg.find("unknown pass 'NoSuchPass'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("required by pass D"), std::string::npos) << msg;
  EXPECT_NE(msg.find("InferType"), std::string::npos) << msg;  // the known names are listed
}

TEST_F(PassManagerTest, PassRunsUnderTheInnermostScope) {
  int seen = -1;
  Pass probe = create_module_pass({"probe", 0, {}}, [&](IRModule mod, const PassContext& ctx) {
    seen = ctx.opt_level;
    return mod;
  });
  EXPECT_EQ(PassContext::current().opt_level, 2);  // the default context
  PassContext outer;
  outer.opt_level = 1;
  {
    PassContext::Scope s1(outer);
    PassContext inner;
    inner.opt_level = 3;
    {
      PassContext::Scope s2(inner);
      probe(module());
      EXPECT_EQ(seen, 3);
    }
    probe(module());
    EXPECT_EQ(seen, 1);
  }
  probe(module());
  EXPECT_EQ(seen, 2);
}

TEST_F(PassManagerTest, StatisticsRecordedThroughAnyCopyReachTheContextsOwner) {
  // A pass counts through the const context it is given; under a Scope that is
  // the scope's copy, inside a Sequential the same one passed down.
  Pass counting = create_module_pass({"Counting", 0, {}}, [](IRModule mod, const PassContext& ctx) {
    ctx.add_statistic("Counting", "visited", 2);
    ctx.add_statistic("Counting", "folded", 1);
    return mod;
  });
  PassContext ctx;
  {
    PassContext::Scope scope(ctx);
    sequential({counting, counting})(module());
  }
  counting(module(), ctx);  // run directly with the context itself
  using Table = std::map<std::string, std::map<std::string, int64_t>>;
  EXPECT_EQ(ctx.statistics(), (Table{{"Counting", {{"folded", 3}, {"visited", 6}}}}));
  PassContext copy = ctx;
  copy.add_statistic("Other", "n", -4);  // negative deltas count down
  EXPECT_EQ(ctx.statistics().at("Other").at("n"), -4);
}

TEST_F(PassManagerTest, AnExplicitContextReachesFunctionPassesInsideSequentialsNotTheCurrentOne) {
  std::vector<int> levels;
  Pass probe = create_function_pass({"Probe", 0, {}}, [&](Function fn, const IRModule&, const PassContext& ctx) {
    levels.push_back(ctx.opt_level);
    ctx.add_statistic("Probe", "functions", 1);
    return fn;
  });
  PassContext scoped;
  scoped.opt_level = 1;
  PassContext::Scope scope(scoped);  // current() differs from the explicit context
  PassContext ctx;
  ctx.opt_level = 3;
  sequential({sequential({probe}, "inner")}, "outer")(module(), ctx);
  EXPECT_EQ(levels, (std::vector<int>{3}));
  EXPECT_EQ(ctx.statistics().at("Probe").at("functions"), 1);
  EXPECT_TRUE(PassContext::current().statistics().empty());
}

TEST_F(PassManagerTest, FreshContextsHaveTheirOwnStatistics) {
  PassContext a;
  PassContext b;
  a.add_statistic("P", "k", 5);
  EXPECT_TRUE(b.statistics().empty());
  EXPECT_TRUE(PassContext().statistics().empty());
  EXPECT_EQ(a.statistics().at("P").at("k"), 5);
}

TEST_F(PassManagerTest, PassItselfIsNotGatedOnlySequentialGates) {
  PassContext ctx;
  ctx.opt_level = 0;
  ctx.disabled_passes = {"C"};
  recorder("C", 3)(module(), ctx);  // run directly: no gating, as in Relay
  EXPECT_EQ(*log_, (std::vector<std::string>{"C"}));
}

TEST_F(PassManagerTest, FunctionPassSkipsPrimitiveFunctionsAndReplacesTheOthers) {
  IRModule mod = module();
  Var p = var("p", tensor_type({2}));
  Function primitive = function({p}, call("test.relu", {p}), nullptr, make_attrs({{"Primitive", 1}}));
  mod.add("fused", primitive);
  std::vector<std::string> visited;
  Pass wrap = create_function_pass({"wrap", 0, {}}, [&](Function fn, const IRModule& m, const PassContext&) {
    EXPECT_TRUE(m.contains("fused"));
    visited.push_back(fn->params[0]->name_hint);
    return function(fn->params, call("test.relu", {fn->body}), fn->ret_type, fn->attrs);
  });
  IRModule out = wrap(mod);
  EXPECT_EQ(visited, (std::vector<std::string>{"x"}));
  EXPECT_TRUE(out.lookup("fused").same_as(primitive));
  Var x = var("x", tensor_type({2}));
  EXPECT_TRUE(structural_equal(out.main(), function({x}, call("test.relu", {call("test.relu", {x})}))));
  EXPECT_TRUE(mod.main()->body.as<CallNode>()->args[0]->kind == ExprKind::kVar);  // input untouched
}

TEST_F(PassManagerTest, UndefinedPassesAreErrors) {
  std::string msg = error_of([&] { sequential({recorder("A", 0), Pass()}, "pipeline"); });
  EXPECT_NE(msg.find("pass 1 of sequential 'pipeline' is undefined"), std::string::npos) << msg;
  msg = error_of([&] { Pass()(module()); });
  EXPECT_NE(msg.find("undefined pass"), std::string::npos) << msg;
  msg = error_of([] { create_module_pass({"Empty", 0, {}}, nullptr); });
  EXPECT_NE(msg.find("'Empty' has no function"), std::string::npos) << msg;
}

// ---- Config keys --------------------------------------------------------------------

TEST_F(PassManagerTest, ConfigKeysHaveTypesAndDefaults) {
  PassContext::register_config("test.max_depth", AttrType::kInt, 4);
  PassContext::register_config("test.scale", AttrType::kFloat, 1.5);
  PassContext ctx;
  EXPECT_EQ(ctx.get_config("test.max_depth").as_int(), 4);
  ctx.set_config("test.max_depth", 7);
  EXPECT_EQ(ctx.get_config("test.max_depth").as_int(), 7);
  ctx.set_config("test.scale", 3);  // an int is a fine float
  EXPECT_EQ(ctx.get_config("test.scale").type(), AttrType::kFloat);
  EXPECT_DOUBLE_EQ(ctx.get_config("test.scale").as_float(), 3.0);
  EXPECT_EQ(PassContext::registered_configs().at("test.max_depth"), AttrType::kInt);
  // A pass sees the values of the context it runs under.
  int64_t seen = 0;
  Pass probe = create_module_pass({"probe", 0, {}}, [&](IRModule mod, const PassContext& c) {
    seen = c.get_config("test.max_depth").as_int();
    return mod;
  });
  probe(module(), ctx);
  EXPECT_EQ(seen, 7);
}

TEST_F(PassManagerTest, UnknownConfigKeyIsAnErrorListingTheKnownOnes) {
  PassContext::register_config("test.known", AttrType::kBool, false);
  PassContext ctx;
  std::string msg = error_of([&] { ctx.set_config("test.unknwon", true); });
  EXPECT_NE(msg.find("unknown pass config 'test.unknwon'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.known"), std::string::npos) << msg;
  msg = error_of([&] { ctx.get_config("test.unknwon"); });
  EXPECT_NE(msg.find("test.unknwon"), std::string::npos) << msg;
}

TEST_F(PassManagerTest, ConfigValueOfTheWrongTypeIsAnError) {
  PassContext::register_config("test.depth", AttrType::kInt, 1);
  PassContext ctx;
  std::string msg = error_of([&] { ctx.set_config("test.depth", "deep"); });
  EXPECT_NE(msg.find("test.depth"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"deep\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected int"), std::string::npos) << msg;
  msg = error_of([&] { ctx.set_config("test.depth", 2.5); });
  EXPECT_NE(msg.find("expected int"), std::string::npos) << msg;
  EXPECT_EQ(ctx.get_config("test.depth").as_int(), 1);  // unchanged
}

TEST_F(PassManagerTest, ConfigKeyCannotChangeItsType) {
  PassContext::register_config("test.mode", AttrType::kString, "fast");
  EXPECT_NO_THROW(PassContext::register_config("test.mode", AttrType::kString, "slow"));
  std::string msg = error_of([] { PassContext::register_config("test.mode", AttrType::kInt, 0); });
  EXPECT_NE(msg.find("already registered as string"), std::string::npos) << msg;
  msg = error_of([] { PassContext::register_config("test.bad_default", AttrType::kInt, "x"); });
  EXPECT_NE(msg.find("test.bad_default"), std::string::npos) << msg;
}

// ---- Registry ------------------------------------------------------------------------

TEST_F(PassManagerTest, RegistryHoldsTheCorePassesByName) {
  register_core_passes();  // idempotent
  for (const char* name : {"InferType", "DeadCodeElimination", "EliminateCommonSubexpr", "WellFormedCheck"}) {
    ASSERT_TRUE(PassRegistry::global().contains(name)) << name;
    EXPECT_EQ(PassRegistry::global().create(name).info().name, name);
  }
  EXPECT_EQ(PassRegistry::global().create("EliminateCommonSubexpr").info().opt_level, 3);
  EXPECT_EQ(PassRegistry::global().create("DeadCodeElimination").info().opt_level, 1);
}

TEST_F(PassManagerTest, RegistryRefusesDuplicatesAndReportsUnknownNames) {
  PassRegistry registry;
  registry.add("X", [] { return InferType(); });
  std::string msg = error_of([&] { registry.add("X", [] { return InferType(); }); });
  EXPECT_NE(msg.find("'X' is already registered"), std::string::npos) << msg;
  msg = error_of([&] { registry.create("Y"); });
  EXPECT_NE(msg.find("unknown pass 'Y'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("X"), std::string::npos) << msg;
}

TEST_F(PassManagerTest, RegistryAsksItsResolverOnAMiss) {
  PassRegistry registry;
  std::vector<std::string> asked;
  registry.set_resolver([&](std::string_view name) {
    asked.emplace_back(name);
    if (name != "Lazy") return false;
    registry.add("Lazy", [] { return WellFormedCheck(); });
    return true;
  });
  EXPECT_EQ(registry.create("Lazy").info().name, "WellFormedCheck");
  EXPECT_THROW(registry.create("Missing"), Error);
  EXPECT_EQ(asked, (std::vector<std::string>{"Lazy", "Missing"}));
}

}  // namespace
}  // namespace weft
