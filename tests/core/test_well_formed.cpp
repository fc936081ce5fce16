// Well-formedness: scoping of variables, globals, tuple indices.
#include <gtest/gtest.h>

#include <string>

#include "test_ops.h"
#include "weft/error.h"
#include "weft/passes.h"

namespace weft {
namespace {

class WellFormedTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

TensorType t2() { return tensor_type({2}); }
Expr relu(Expr e) { return call("test.relu", {std::move(e)}); }

std::string violation(const IRModule& mod) { return well_formed_violation(mod).value_or("(well formed)"); }
std::string violation(const Expr& e) { return well_formed_violation(e).value_or("(well formed)"); }

TEST_F(WellFormedTest, OrdinaryProgramIsWellFormed) {
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", t2()), a = var("a"), f = var("f"), p = var("p");
  // A recursive closure refers to its own let variable from its value.
  Function closure = function({p}, if_then_else(c, p, call_function(f, {relu(p)})));
  Function fn = function({c, x}, let(f, closure, let(a, call_function(f, {x}), tuple({a, a}))));
  EXPECT_EQ(well_formed_violation(fn), std::nullopt);
  EXPECT_EQ(well_formed_violation(IRModule::from_function(fn)), std::nullopt);
}

TEST_F(WellFormedTest, VariableBoundTwiceIsReported) {
  Var x = var("x", t2()), a = var("a");
  Function fn = function({x}, let(a, relu(x), let(a, relu(a), a)));
  EXPECT_EQ(violation(fn), "variable %a is bound more than once");
  Function shared_param = function({x}, call_function(function({x}, x), {x}));
  EXPECT_EQ(violation(shared_param), "variable %x is bound more than once");
}

TEST_F(WellFormedTest, VariableUsedAfterItsLetEndsIsReported) {
  // (let %a = relu(%x); %a, %a): the second %a is outside the let.
  Var x = var("x", t2()), a = var("a");
  Function fn = function({x}, tuple({let(a, relu(x), a), a}));
  EXPECT_EQ(violation(fn), "variable %a is used outside the scope that binds it");
}

TEST_F(WellFormedTest, UseBeforeTheBindingIsOutOfScopeToo) {
  Var x = var("x", t2()), a = var("a");
  Function fn = function({x}, tuple({a, let(a, relu(x), a)}));
  EXPECT_EQ(violation(fn), "variable %a is used outside the scope that binds it");
}

TEST_F(WellFormedTest, ParameterUsedOutsideItsFunctionIsReported) {
  Var x = var("x", t2()), p = var("p", t2()), f = var("f");
  Function fn = function({x}, let(f, function({p}, p), call_function(f, {p})));
  EXPECT_EQ(violation(fn), "variable %p is used outside the scope that binds it");
}

TEST_F(WellFormedTest, FreeVariablesAreAllowedInExpressionsButNotInModuleFunctions) {
  Var x = var("x", t2()), stray = var("stray", t2());
  Function fn = function({x}, tuple({x, stray}));
  EXPECT_EQ(well_formed_violation(fn), std::nullopt);
  EXPECT_EQ(violation(IRModule::from_function(fn)), "in @main: free variable %stray (bound nowhere)");
}

TEST_F(WellFormedTest, UnknownGlobalIsReported) {
  Var x = var("x", t2());
  IRModule mod = IRModule::from_function(function({x}, call_function(global_var("ghost"), {x})));
  EXPECT_EQ(violation(mod), "in @main: @ghost is not defined in the module");
}

TEST_F(WellFormedTest, TupleIndexOutOfRangeIsReported) {
  Var x = var("x", t2());
  EXPECT_EQ(violation(function({x}, get_item(tuple({x, x}), 2))),
            "tuple index 2 is out of range for a tuple of 2 fields");
  // Known from the type that inference gave the tuple.
  Var t = var("t", tuple_type({t2()}));
  Function typed = function({t}, get_item(t, 1));
  t->set_checked_type(tuple_type({t2()}));
  EXPECT_EQ(violation(typed), "tuple index 1 is out of range for a tuple of 1 fields");
}

TEST_F(WellFormedTest, WellFormedCheckPassThrowsOnAViolation) {
  Var x = var("x", t2()), a = var("a");
  IRModule bad = IRModule::from_function(function({x}, tuple({let(a, relu(x), a), a})));
  try {
    WellFormedCheck()(bad);
    FAIL() << "ill-formed module passed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in @main: variable %a is used outside"), std::string::npos) << e.what();
  }
  Var y = var("y", t2());
  IRModule good = IRModule::from_function(function({y}, relu(y)));
  EXPECT_NO_THROW(WellFormedCheck()(good));
}

}  // namespace
}  // namespace weft
