// Structural equality (alpha-equivalence) and a hash consistent with it.
#include <gtest/gtest.h>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/structural.h"

namespace weft {
namespace {

class StructuralTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

Function add_relu(const char* a, const char* b) {
  Var x = var(a, tensor_type({2})), y = var(b, tensor_type({2}));
  return function({x, y}, call("test.add", {call("test.relu", {x}), y}));
}

void expect_equal_and_same_hash(const Expr& a, const Expr& b, bool map_free_vars = false) {
  EXPECT_TRUE(structural_equal(a, b, map_free_vars));
  EXPECT_TRUE(structural_equal(b, a, map_free_vars));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
}

TEST_F(StructuralTest, FunctionsDifferingOnlyInParamNamesAreEqual) {
  expect_equal_and_same_hash(add_relu("x", "y"), add_relu("a", "b"));
}

TEST_F(StructuralTest, SwappingParamUsesIsNotEqual) {
  Var x = var("x", tensor_type({2})), y = var("y", tensor_type({2}));
  Function f = function({x, y}, call("test.add", {x, y}));
  Function g = function({x, y}, call("test.add", {y, x}));
  EXPECT_FALSE(structural_equal(f, g));
  EXPECT_NE(structural_hash(f), structural_hash(g));
}

TEST_F(StructuralTest, ParamAnnotationsAndReturnTypesMatter) {
  Var x = var("x", tensor_type({2})), x3 = var("x", tensor_type({3}));
  EXPECT_FALSE(structural_equal(function({x}, x), function({x3}, x3)));
  EXPECT_FALSE(structural_equal(function({x}, x, tensor_type({2})), function({x}, x)));
}

TEST_F(StructuralTest, FreeVarsMustBeIdenticalUnlessMapped) {
  Var x = var("x"), y = var("y");
  Expr a = call("test.relu", {x});
  Expr b = call("test.relu", {y});
  EXPECT_TRUE(structural_equal(a, call("test.relu", {x})));
  EXPECT_FALSE(structural_equal(a, b));
  expect_equal_and_same_hash(a, b, /*map_free_vars=*/true);
}

TEST_F(StructuralTest, MappedFreeVarsMustMapConsistently) {
  Var x = var("x"), y = var("y"), z = var("z");
  Expr a = call("test.add", {x, y});
  EXPECT_FALSE(structural_equal(a, call("test.add", {z, z}), true));
  EXPECT_FALSE(structural_equal(call("test.add", {z, z}), a, true));
  EXPECT_TRUE(structural_equal(a, call("test.add", {y, x}), true));  // x<->y, a bijection
}

TEST_F(StructuralTest, AttrsMustMatch) {
  Var x = var("x"), w = var("w");
  Expr a = call("test.conv", {x, w}, {{"padding", 1}});
  expect_equal_and_same_hash(a, call("test.conv", {x, w}, {{"padding", AttrValue({1, 1, 1, 1})}}));
  Expr b = call("test.conv", {x, w}, {{"padding", 2}});
  EXPECT_FALSE(structural_equal(a, b));
  EXPECT_NE(structural_hash(a), structural_hash(b));
  Function f = function({x}, x, nullptr, make_attrs({{"Primitive", 1}}));
  EXPECT_FALSE(structural_equal(f, function({x}, x)));
}

TEST_F(StructuralTest, ConstantsCompareByDtypeShapeAndBytes) {
  Expr one = constant(Tensor::scalar(1, DataType::Float(32)));
  expect_equal_and_same_hash(one, constant(Tensor::scalar(1, DataType::Float(32))));
  EXPECT_FALSE(structural_equal(one, constant(Tensor::scalar(2, DataType::Float(32)))));
  EXPECT_FALSE(structural_equal(one, constant(Tensor::scalar(1, DataType::Float(64)))));
  EXPECT_FALSE(structural_equal(constant(Tensor::zeros({2}, DataType::Float(32))),
                                constant(Tensor::zeros({1, 2}, DataType::Float(32)))));
}

TEST_F(StructuralTest, DifferentOpsKindsOrIndicesDiffer) {
  Var x = var("x");
  EXPECT_FALSE(structural_equal(call("test.relu", {x}), tuple({x})));
  EXPECT_FALSE(structural_equal(get_item(x, 0), get_item(x, 1)));
  EXPECT_FALSE(structural_equal(call("test.add", {x, x}), call("test.relu", {x})));
  EXPECT_FALSE(structural_equal(tuple({x}), tuple({x, x})));
  EXPECT_TRUE(structural_equal(global_var("f"), global_var("f")));
  EXPECT_FALSE(structural_equal(global_var("f"), global_var("g")));
}

TEST_F(StructuralTest, LetsAreAlphaEquivalent) {
  Var x = var("x");
  Var a = var("a"), b = var("b");
  Expr l1 = let(a, call("test.relu", {x}), call("test.add", {a, a}));
  Expr l2 = let(b, call("test.relu", {x}), call("test.add", {b, b}));
  expect_equal_and_same_hash(l1, l2);
  Expr l3 = let(b, call("test.relu", {x}), call("test.add", {b, x}));
  EXPECT_FALSE(structural_equal(l1, l3));
}

TEST_F(StructuralTest, IfComparesAllThreeParts) {
  Var c = var("c"), x = var("x");
  Expr i = if_then_else(c, x, call("test.relu", {x}));
  expect_equal_and_same_hash(i, if_then_else(c, x, call("test.relu", {x})));
  EXPECT_FALSE(structural_equal(i, if_then_else(c, call("test.relu", {x}), x)));
}

TEST_F(StructuralTest, SharedAndUnsharedDagsComputingTheSameAreEqual) {
  Var x = var("x");
  Expr r = call("test.relu", {x});
  Expr shared = call("test.add", {r, r});
  Expr tree = call("test.add", {call("test.relu", {x}), call("test.relu", {x})});
  expect_equal_and_same_hash(shared, tree);
}

TEST_F(StructuralTest, ASharedFunctionEqualsTwoCopiesOfIt) {
  auto make = [] {
    Var p = var("p", tensor_type({2}));
    return function({p}, call("test.relu", {p}));
  };
  Var x = var("x", tensor_type({2}));
  Function f = make();
  Expr shared = tuple({call_function(f, {x}), call_function(f, {x})});
  Expr copies = tuple({call_function(make(), {x}), call_function(make(), {x})});
  expect_equal_and_same_hash(shared, copies);
}

TEST_F(StructuralTest, NestedBindersMapIndependently) {
  Var a = var("a"), b = var("b"), c = var("c"), d = var("d");
  Expr f = function({a}, function({b}, call("test.add", {a, b})));
  expect_equal_and_same_hash(f, function({c}, function({d}, call("test.add", {c, d}))));
  EXPECT_FALSE(structural_equal(f, function({c}, function({d}, call("test.add", {d, c})))));
}

TEST_F(StructuralTest, WideDiamondDagIsComparedWithoutBlowup) {
  // 60 stacked diamonds: 2^60 paths, 180 nodes. Only memoization finishes this.
  Var x = var("x");
  Expr a = x, b = x;
  for (int i = 0; i < 60; ++i) {
    Expr ra = call("test.relu", {a});
    a = call("test.add", {ra, ra});
    Expr rb = call("test.relu", {b});
    b = call("test.add", {rb, rb});
  }
  expect_equal_and_same_hash(a, b);
}

TEST_F(StructuralTest, Deep100000CallChainsCompareAndHashIteratively) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x"), y = var("y");
    Expr a = x, b = y;
    for (int i = 0; i < 100000; ++i) {
      a = call("test.relu", {a});
      b = call("test.relu", {b});
    }
    Function fa = function({x}, a), fb = function({y}, b);
    EXPECT_TRUE(structural_equal(fa, fb));
    EXPECT_EQ(structural_hash(fa), structural_hash(fb));
    Expr c = call("test.add", {b, b});
    EXPECT_FALSE(structural_equal(fa, function({y}, c)));
  });
}

TEST_F(StructuralTest, HashIsDeterministicAndSensitiveToStructure) {
  EXPECT_EQ(structural_hash(add_relu("x", "y")), structural_hash(add_relu("x", "y")));
  Var x = var("x");
  EXPECT_NE(structural_hash(call("test.relu", {x})), structural_hash(tuple({x})));
  EXPECT_NE(structural_hash(get_item(x, 0)), structural_hash(get_item(x, 1)));
}

TEST_F(StructuralTest, ModulesMatchFunctionsByName) {
  IRModule a, b;
  a.add("f", add_relu("x", "y"));
  a.add("main", add_relu("p", "q"));
  b.add("main", add_relu("m", "n"));
  b.add("f", add_relu("u", "v"));
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  b.add("g", add_relu("u", "v"));
  EXPECT_FALSE(structural_equal(a, b));
  IRModule c;
  c.add("f", add_relu("x", "y"));
  c.add("other", add_relu("x", "y"));
  EXPECT_FALSE(structural_equal(a, c));
}

TEST_F(StructuralTest, CallsToGlobalsCompareByName) {
  Var x = var("x");
  Expr a = call_function(global_var("f"), {x});
  expect_equal_and_same_hash(a, call_function(global_var("f"), {x}));
  EXPECT_FALSE(structural_equal(a, call_function(global_var("g"), {x})));
}

}  // namespace
}  // namespace weft
