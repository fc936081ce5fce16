// Pass instruments: hook order around nested passes, should_run, timing, IR
// dumps and the well-formedness check.
#include <gtest/gtest.h>

#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test_ops.h"
#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"

namespace weft {
namespace {

/// Logs every hook as "<tag> <pass>" into a shared log.
struct Recorder : PassInstrument {
  Recorder(std::string tag, std::shared_ptr<std::vector<std::string>> log) : tag(std::move(tag)), log(std::move(log)) {}
  std::string name() const override { return "Recorder"; }
  void enter_context() override { log->push_back(tag + " enter"); }
  void exit_context() override { log->push_back(tag + " exit"); }
  bool should_run(const IRModule&, const PassInfo& info) override {
    log->push_back(tag + " should_run " + info.name);
    return info.name != skip;
  }
  void run_before_pass(const IRModule&, const PassInfo& info) override { log->push_back(tag + " before " + info.name); }
  void run_after_pass(const IRModule&, const PassInfo& info) override { log->push_back(tag + " after " + info.name); }
  void run_after_pass_failed(const IRModule& before, const PassInfo& info, const std::exception& e) override {
    log->push_back(tag + " failed " + info.name + ": " + e.what());
    failed_before = before;
  }

  std::string tag;
  std::shared_ptr<std::vector<std::string>> log;
  std::string skip;  // should_run answers false for this pass
  IRModule failed_before;  // what the last failed pass was given
};

class InstrumentTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }

  static IRModule module() {
    Var x = var("x", tensor_type({2}));
    return IRModule::from_function(function({x}, call("test.relu", {x})));
  }
  static Pass identity(const std::string& name) {
    return create_module_pass({name, 0, {}}, [](IRModule mod, const PassContext&) { return mod; });
  }
  // Throws "deliberate failure".
  static Pass failing_pass() {
    return create_module_pass({"Failing", 0, {}}, [](IRModule, const PassContext&) -> IRModule {
      throw Error("deliberate failure");
    });
  }
  // Wraps main's body in one more relu.
  static Pass add_relu(const std::string& name) {
    return create_function_pass({name, 0, {}}, [](Function fn, const IRModule&, const PassContext&) {
      return function(fn->params, call("test.relu", {fn->body}), fn->ret_type, fn->attrs);
    });
  }

  std::shared_ptr<std::vector<std::string>> log_ = std::make_shared<std::vector<std::string>>();
};

TEST_F(InstrumentTest, HooksNestAroundPassesInsideSequentials) {
  auto rec = std::make_shared<Recorder>("r", log_);
  PassContext ctx;
  ctx.instruments = {rec};
  Pass pipeline = sequential({identity("A"), sequential({identity("B")}, "inner")}, "outer");
  {
    PassContext::Scope scope(ctx);
    pipeline(module());
  }
  std::vector<std::string> want = {"r enter",           "r should_run outer", "r before outer",     "r should_run A",
                                   "r before A",        "r after A",          "r should_run inner", "r before inner",
                                   "r should_run B",    "r before B",         "r after B",          "r after inner",
                                   "r after outer",     "r exit"};
  EXPECT_EQ(*log_, want);
}

TEST_F(InstrumentTest, InstrumentsRunInListOrderAndAllAreAsked) {
  auto first = std::make_shared<Recorder>("1", log_);
  auto second = std::make_shared<Recorder>("2", log_);
  first->skip = "A";  // the first says no; the second is still asked
  PassContext ctx;
  ctx.instruments = {first, second};
  identity("A")(module(), ctx);
  identity("B")(module(), ctx);
  std::vector<std::string> want = {"1 should_run A", "2 should_run A", "1 should_run B", "2 should_run B",
                                   "1 before B",     "2 before B",     "1 after B",      "2 after B"};
  EXPECT_EQ(*log_, want);
}

TEST_F(InstrumentTest, ShouldRunFalseSkipsThePassUnlessTheContextRequiresIt) {
  auto rec = std::make_shared<Recorder>("r", log_);
  rec->skip = "grow";
  PassContext ctx;
  ctx.instruments = {rec};
  IRModule skipped = add_relu("grow")(module(), ctx);
  EXPECT_EQ(skipped.main()->body.as<CallNode>()->args[0]->kind, ExprKind::kVar);  // unchanged
  ctx.required_passes = {"grow"};
  log_->clear();
  IRModule grown = add_relu("grow")(module(), ctx);
  EXPECT_EQ(grown.main()->body.as<CallNode>()->args[0]->kind, ExprKind::kCall);
  EXPECT_EQ(*log_, (std::vector<std::string>{"r before grow", "r after grow"}));  // not even asked
}

TEST_F(InstrumentTest, FailedHookReplacesTheAfterHookWhenThePassThrows) {
  auto rec = std::make_shared<Recorder>("r", log_);
  PassContext ctx;
  ctx.instruments = {rec};
  Pass failing = failing_pass();
  IRModule given = module();
  EXPECT_THROW(failing(given, ctx), Error);
  EXPECT_EQ(*log_, (std::vector<std::string>{"r should_run Failing", "r before Failing",
                                             "r failed Failing: deliberate failure"}));
  EXPECT_EQ(rec->failed_before.main().get(), given.main().get());  // the module the pass was given
}

TEST_F(InstrumentTest, FailureReachesEveryEnclosingPassOnItsWayOut) {
  auto rec = std::make_shared<Recorder>("r", log_);
  PassContext ctx;
  ctx.instruments = {rec};
  Pass failing = failing_pass();
  EXPECT_THROW(sequential({identity("A"), failing, identity("Never")}, "outer")(module(), ctx), Error);
  EXPECT_EQ(*log_, (std::vector<std::string>{"r should_run outer", "r before outer", "r should_run A", "r before A",
                                             "r after A", "r should_run Failing", "r before Failing",
                                             "r failed Failing: deliberate failure",
                                             "r failed outer: deliberate failure"}));
}

TEST_F(InstrumentTest, AnInstrumentThatThrowsFailsThePassForTheInstrumentsAfterIt) {
  // The first instrument rejects every result (as WellFormedInstrument does a
  // bad one): the second never gets run_after_pass, so it hears of the failure.
  struct Rejects : PassInstrument {
    std::string name() const override { return "Rejects"; }
    void run_after_pass(const IRModule&, const PassInfo& info) override { throw Error("rejected " + info.name); }
  };
  auto rec = std::make_shared<Recorder>("r", log_);
  PassContext ctx;
  ctx.instruments = {std::make_shared<Rejects>(), rec};
  EXPECT_THROW(identity("A")(module(), ctx), Error);
  EXPECT_EQ(*log_, (std::vector<std::string>{"r should_run A", "r before A", "r failed A: rejected A"}));
  // One that throws before the pass: the pass does not run, and those already told it began hear it failed.
  struct RefusesToStart : PassInstrument {
    std::string name() const override { return "RefusesToStart"; }
    void run_before_pass(const IRModule&, const PassInfo& info) override { throw Error("no " + info.name); }
  };
  log_->clear();
  ctx.instruments = {rec, std::make_shared<RefusesToStart>()};
  bool ran = false;
  Pass probe = create_module_pass({"B", 0, {}}, [&](IRModule mod, const PassContext&) {
    ran = true;
    return mod;
  });
  EXPECT_THROW(probe(module(), ctx), Error);
  EXPECT_FALSE(ran);
  EXPECT_EQ(*log_, (std::vector<std::string>{"r should_run B", "r before B", "r failed B: no B"}));
}

TEST_F(InstrumentTest, AFailedHookThatThrowsDoesNotHideThePassError) {
  struct ThrowsOnFailure : PassInstrument {
    std::string name() const override { return "ThrowsOnFailure"; }
    void run_after_pass_failed(const IRModule&, const PassInfo&, const std::exception&) override {
      throw Error("instrument trouble");
    }
  };
  auto rec = std::make_shared<Recorder>("r", log_);
  PassContext ctx;
  ctx.instruments = {std::make_shared<ThrowsOnFailure>(), rec};
  Pass failing = failing_pass();
  try {
    failing(module(), ctx);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("deliberate failure"), std::string::npos) << e.what();
  }
  EXPECT_EQ(log_->back(), "r failed Failing: deliberate failure");  // the later instrument still heard
}

TEST_F(InstrumentTest, TimingRecordsEveryPassWithItsDepth) {
  auto timing = std::make_shared<TimingInstrument>();
  PassContext ctx;
  ctx.instruments = {timing};
  Pass pipeline = sequential({identity("A"), sequential({InferType()}, "inner")}, "outer");
  {
    PassContext::Scope scope(ctx);
    pipeline(module());
  }
  const auto& entries = timing->entries();
  ASSERT_EQ(entries.size(), 4u);
  std::vector<std::pair<std::string, int>> got;
  for (const auto& e : entries) got.emplace_back(e.pass, e.depth);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, int>>{{"outer", 0}, {"A", 1}, {"inner", 1}, {"InferType", 2}}));
  // A parent's time includes its children's.
  EXPECT_GE(entries[0].time, entries[1].time + entries[2].time);
  EXPECT_GE(entries[2].time, entries[3].time);
  EXPECT_GT(entries[3].time.count(), 0);
  std::string report = timing->report();
  EXPECT_EQ(report.rfind("outer: ", 0), 0u) << report;
  EXPECT_NE(report.find("\n  A: "), std::string::npos) << report;
  EXPECT_NE(report.find("\n    InferType: "), std::string::npos) << report;
  EXPECT_NE(report.find("%)"), std::string::npos) << report;  // share of the parent
}

TEST_F(InstrumentTest, TimingClosesTheEntriesOfAFailedPassAndItsParents) {
  auto timing = std::make_shared<TimingInstrument>();
  PassContext ctx;
  ctx.instruments = {timing};
  Pass failing = failing_pass();
  {
    PassContext::Scope scope(ctx);
    EXPECT_THROW(sequential({identity("A"), failing}, "outer")(module()), Error);
    identity("B")(module());  // in the same scope: nothing left open above it
  }
  std::vector<std::tuple<std::string, int, bool>> got;
  for (const auto& e : timing->entries()) got.emplace_back(e.pass, e.depth, e.failed);
  EXPECT_EQ(got, (std::vector<std::tuple<std::string, int, bool>>{
                     {"outer", 0, true}, {"A", 1, false}, {"Failing", 1, true}, {"B", 0, false}}));
  EXPECT_GE(timing->entries()[0].time, timing->entries()[2].time);
  std::string report = timing->report();
  EXPECT_NE(report.find("  Failing: "), std::string::npos) << report;
  EXPECT_NE(report.find("%) (failed)\nB: "), std::string::npos) << report;
}

TEST_F(InstrumentTest, IRDumpPrintsTheModuleAfterEachPass) {
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments = {std::make_shared<IRDumpInstrument>(out)};
  sequential({add_relu("Grow")}, "pipeline")(module(), ctx);
  std::string text = out.str();
  size_t grow = text.find("// IR after Grow\n");
  size_t pipeline = text.find("// IR after pipeline\n");
  ASSERT_NE(grow, std::string::npos) << text;
  ASSERT_NE(pipeline, std::string::npos) << text;
  EXPECT_LT(grow, pipeline);
  std::string after_grow = text.substr(grow, pipeline - grow);
  EXPECT_NE(after_grow.find("def @main(%x: Tensor[(2), float32])"), std::string::npos) << after_grow;
  EXPECT_NE(after_grow.find("test.relu(%0)"), std::string::npos) << after_grow;  // the second relu
}

TEST_F(InstrumentTest, IRDumpAfterChangePrintsOnlyPassesThatChangedTheModule) {
  // Rebuilds main node for node: new nodes, same program.
  Pass rebuild = create_function_pass({"Rebuild", 0, {}}, [](Function fn, const IRModule&, const PassContext&) {
    const auto* relu = fn->body.as<CallNode>();
    return function(fn->params, call("test.relu", {relu->args[0]}), fn->ret_type, fn->attrs);
  });
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments = {std::make_shared<IRDumpInstrument>(out, IRDumpInstrument::Mode::kAfterChange)};
  // Shares one relu where there were two equal ones: structurally equal, yet changed.
  Pass share = create_function_pass({"Share", 0, {}}, [](Function fn, const IRModule&, const PassContext&) {
    const auto* add = fn->body.as<CallNode>();
    return function(fn->params, call("test.add", {add->args[0], add->args[0]}), fn->ret_type, fn->attrs);
  });
  sequential({identity("Same"), rebuild, add_relu("Grow"), identity("Again")}, "pipeline")(module(), ctx);
  std::string text = out.str();
  EXPECT_EQ(text.find("// IR after Same\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("// IR after Rebuild\n"), std::string::npos) << text;  // equal, if not the same nodes
  EXPECT_EQ(text.find("// IR after Again\n"), std::string::npos) << text;
  size_t grow = text.find("// IR after Grow\n");
  size_t pipeline = text.find("// IR after pipeline\n");  // the whole pipeline changed it too
  ASSERT_NE(grow, std::string::npos) << text;
  ASSERT_NE(pipeline, std::string::npos) << text;
  EXPECT_LT(grow, pipeline);
  EXPECT_NE(text.find("test.relu(%0)", grow), std::string::npos) << text;
  Var x = var("x", tensor_type({2}));
  IRModule twice = IRModule::from_function(function({x}, call("test.add", {call("test.relu", {x}), call("test.relu", {x})})));
  out.str("");
  share(twice, ctx);
  EXPECT_NE(out.str().find("// IR after Share\n"), std::string::npos) << out.str();
  // A pass that fails prints nothing and leaves nothing behind for the next one.
  out.str("");
  Pass failing = failing_pass();
  EXPECT_THROW(sequential({add_relu("Grow"), failing}, "broken")(module(), ctx), Error);
  add_relu("Later")(module(), ctx);
  text = out.str();
  EXPECT_EQ(text.find("// IR after Failing"), std::string::npos) << text;
  EXPECT_EQ(text.find("// IR after broken"), std::string::npos) << text;
  EXPECT_NE(text.find("// IR after Later\n"), std::string::npos) << text;
}

TEST_F(InstrumentTest, WellFormedInstrumentCatchesABrokenPass) {
  // Replaces main's body with a variable bound nowhere.
  Pass broken = create_function_pass({"Broken", 0, {}}, [](Function fn, const IRModule&, const PassContext&) {
    return function(fn->params, var("stray", tensor_type({2})), fn->ret_type, fn->attrs);
  });
  PassContext ctx;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  EXPECT_NO_THROW(sequential({add_relu("Fine")})(module(), ctx));
  try {
    sequential({add_relu("Fine"), broken})(module(), ctx);
    FAIL() << "the broken pass went unnoticed";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("pass Broken produced an ill-formed module"), std::string::npos) << msg;
    EXPECT_NE(msg.find("%stray"), std::string::npos) << msg;
    EXPECT_NE(msg.find("@main"), std::string::npos) << msg;
  }
}

TEST_F(InstrumentTest, ScopeCallsEnterAndExitInOrder) {
  auto a = std::make_shared<Recorder>("a", log_);
  auto b = std::make_shared<Recorder>("b", log_);
  PassContext ctx;
  ctx.instruments = {a, b};
  { PassContext::Scope scope(ctx); }
  EXPECT_EQ(*log_, (std::vector<std::string>{"a enter", "b enter", "a exit", "b exit"}));
}

TEST_F(InstrumentTest, FailedEnterUndoesTheScope) {
  struct Refuses : PassInstrument {
    std::string name() const override { return "Refuses"; }
    void enter_context() override { throw Error("cannot enter"); }
  };
  auto a = std::make_shared<Recorder>("a", log_);
  PassContext ctx;
  ctx.opt_level = 0;
  ctx.instruments = {a, std::make_shared<Refuses>()};
  EXPECT_THROW(PassContext::Scope scope(ctx), Error);
  EXPECT_EQ(*log_, (std::vector<std::string>{"a enter", "a exit"}));
  EXPECT_EQ(PassContext::current().opt_level, 2);  // back to the default context
}

}  // namespace
}  // namespace weft
