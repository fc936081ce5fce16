// IRModule and free variables.
#include <gtest/gtest.h>

#include "test_ops.h"
#include "weft/module.h"

namespace weft {
namespace {

class ModuleTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

TEST_F(ModuleTest, FreeVarsAreUsedUnboundVarsInFirstUseOrder) {
  Var x = var("x"), y = var("y"), z = var("z");
  Expr e = call("test.add", {call("test.relu", {y}), call("test.add", {x, y})});
  EXPECT_EQ(free_vars(e), (std::vector<Var>{y, x}));
  // Bound by a function or a let: not free.
  Function f = function({x}, call("test.add", {x, z}));
  EXPECT_EQ(free_vars(f), (std::vector<Var>{z}));
  Expr l = let(y, x, call("test.add", {y, z}));
  EXPECT_EQ(free_vars(l), (std::vector<Var>{x, z}));
  EXPECT_TRUE(free_vars(f->body).size() == 2);
}

TEST_F(ModuleTest, FromExprWrapsAnExpressionOverItsFreeVars) {
  Var x = var("x"), y = var("y");
  Expr body = call("test.add", {x, y});
  IRModule mod = IRModule::from_expr(body);
  Function main = mod.main();
  EXPECT_EQ(main->params, (std::vector<Var>{x, y}));
  EXPECT_TRUE(main->body.same_as(body));
  // A function is used as is.
  Function f = function({x, y}, body);
  EXPECT_TRUE(IRModule::from_expr(f).main().same_as(f));
}

TEST_F(ModuleTest, AddReplacesByNameKeepingOrderAndGlobalVar) {
  Var x = var("x");
  Function f1 = function({x}, x), f2 = function({x}, call("test.relu", {x}));
  IRModule mod;
  GlobalVar gf = mod.add("f", f1);
  mod.add("main", f1);
  GlobalVar again = mod.add("f", f2);
  EXPECT_TRUE(again.same_as(gf));
  ASSERT_EQ(mod.functions().size(), 2u);
  EXPECT_EQ(mod.functions()[0].first->name, "f");
  EXPECT_TRUE(mod.lookup("f").same_as(f2));
  EXPECT_TRUE(mod.contains("main"));
  EXPECT_FALSE(mod.contains("g"));
  EXPECT_TRUE(mod.global_var("f").same_as(gf));
}

TEST_F(ModuleTest, MissingFunctionIsAnErrorNamingIt) {
  IRModule mod;
  try {
    mod.main();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("@main"), std::string::npos);
  }
  EXPECT_THROW(mod.global_var("f"), Error);
}

TEST_F(ModuleTest, CopiesShareFunctionsButNotTheTable) {
  Var x = var("x");
  IRModule a = IRModule::from_function(function({x}, x));
  IRModule b = a;
  b.add("g", function({x}, x));
  EXPECT_FALSE(a.contains("g"));
  EXPECT_TRUE(a.main().same_as(b.main()));
}

}  // namespace
}  // namespace weft
