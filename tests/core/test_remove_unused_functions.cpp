// RemoveUnusedFunctions: the entry functions and what they reach through global
// references stay; the rest go. Situations of the reference's
// tests/python/relay/test_pass_remove_unused_functions.py (its prelude
// functions are plain globals here).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "support/op_test.h"
#include "test_ops.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

class RemoveUnusedFunctionsTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }

  static std::set<std::string> names(const IRModule& mod) {
    std::set<std::string> out;
    for (const auto& [gv, fn] : mod.functions()) out.insert(gv->name);
    return out;
  }
  // Runs the pass under the well-formedness check.
  static IRModule run(const std::string& text, const std::vector<std::string>& entries = {"main"}) {
    PassContext ctx;
    ctx.instruments = {std::make_shared<WellFormedInstrument>()};
    return RemoveUnusedFunctions(entries)(parse_module(text), ctx);
  }
};

// Two unrelated helpers, as the prelude's functions are to a main that uses none.
const char* const kHelpers = R"(
def @hd(%l: Tensor[(2), float32]) { test.relu(%l) }
def @tl(%l: Tensor[(2), float32]) { @hd(%l) }
)";

TEST_F(RemoveUnusedFunctionsTest, AMainThatUsesNoFunctionKeepsOnlyItself) {
  IRModule out = run(std::string(kHelpers) + "def @main(%x: Tensor[(1, 16), float32]) { %x }");
  EXPECT_EQ(names(out), (std::set<std::string>{"main"}));
}

TEST_F(RemoveUnusedFunctionsTest, CalledFunctionsStayTransitively) {
  IRModule out = run(std::string(kHelpers) + R"(
def @id_func(%x: Tensor[(2), float32]) { %x }
def @main(%x: Tensor[(2), float32]) { @tl(@id_func(%x)) }
)");
  EXPECT_EQ(names(out), (std::set<std::string>{"hd", "tl", "id_func", "main"}));
  // What stays is unchanged.
  EXPECT_TRUE(structural_equal(out.lookup("tl"), parse_module(std::string(kHelpers) + "def @main() { 1f }").lookup("tl")));
}

TEST_F(RemoveUnusedFunctionsTest, EveryEntryFunctionKeepsWhatItReaches) {
  const std::string text = std::string(kHelpers) + R"(
def @id_func(%x: Tensor[(2), float32]) { %x }
def @unused(%x: Tensor[(2), float32]) { %x }
def @main1(%x: Tensor[(2), float32]) { @hd(@tl(%x)) }
def @main2(%x: Tensor[(2), float32]) { @id_func(%x) }
def @main(%x: Tensor[(2), float32]) { %x }
)";
  EXPECT_EQ(names(run(text, {"main1", "main2"})), (std::set<std::string>{"hd", "tl", "main1", "main2", "id_func"}));
}

TEST_F(RemoveUnusedFunctionsTest, AGlobalPassedAsAnArgumentStays) {
  IRModule out = run(R"(
def @twice(%x: Tensor[(2), float32]) { test.add(%x, %x) }
def @apply(%f: fn (Tensor[(2), float32]) -> Tensor[(2), float32], %x: Tensor[(2), float32]) { %f(%x) }
def @unused(%x: Tensor[(2), float32]) { %x }
def @main(%x: Tensor[(2), float32]) { @apply(@twice, %x) }
)");
  EXPECT_EQ(names(out), (std::set<std::string>{"twice", "apply", "main"}));
}

TEST_F(RemoveUnusedFunctionsTest, GlobalsChosenByAnIfAndCalledWithoutArgumentsStay) {
  const std::string text = R"(
def @g1() { 1f }
def @g2() { 2f }
def @main(%p: bool) { if (%p) { @g1 } else { @g2 }() }
)";
  IRModule in = parse_module(text);
  IRModule out = RemoveUnusedFunctions()(in);
  EXPECT_TRUE(structural_equal(out, parse_module(text))) << to_text(out);
  EXPECT_TRUE(out.main().same_as(in.main()));  // nothing removed, nothing rebuilt
}

TEST_F(RemoveUnusedFunctionsTest, AMissingEntryIsAnErrorNamingIt) {
  std::string msg = testing::error_of([] { run("def @main() { 1f }", {"main", "start"}); });
  EXPECT_NE(msg.find("entry function @start is not in the module"), std::string::npos) << msg;
}

TEST_F(RemoveUnusedFunctionsTest, IsRegisteredAtTheReferencesOptLevel) {
  Pass pass = PassRegistry::global().create("RemoveUnusedFunctions");
  EXPECT_EQ(pass.info().opt_level, 1);
  EXPECT_EQ(names(pass(parse_module(std::string(kHelpers) + "def @main() { 1f }"))), (std::set<std::string>{"main"}));
}

}  // namespace
}  // namespace weft
