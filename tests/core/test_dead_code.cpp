// DeadCodeElimination: unused pure let bindings go, transitively; bindings
// whose value may have an effect stay. Expected programs are built by hand.
#include <gtest/gtest.h>

#include "test_ops.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {
namespace {

class DeadCodeTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

TensorType t2() { return tensor_type({2}); }
Expr relu(Expr e) { return call("test.relu", {std::move(e)}); }

Function run_dce(const Function& fn) { return DeadCodeElimination()(IRModule::from_function(fn)).main(); }

void expect_equal(const Function& got, const Function& want) {
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
}

TEST_F(DeadCodeTest, UnusedBindingIsDropped) {
  // fn (%x) { let %a = relu(%x); let %b = relu(%x); %b }  ->  fn (%x) { let %b = relu(%x); %b }
  Var x = var("x", t2()), a = var("a"), b = var("b");
  Function in = function({x}, let(a, relu(x), let(b, relu(x), b)));
  Var x2 = var("x", t2()), b2 = var("b");
  expect_equal(run_dce(in), function({x2}, let(b2, relu(x2), b2)));
}

TEST_F(DeadCodeTest, BindingsUsedOnlyByDeadBindingsAreDeadToo) {
  // let %a = relu(%x); let %b = relu(%a); let %c = relu(%b); let %d = relu(%x); %d
  Var x = var("x", t2()), a = var("a"), b = var("b"), c = var("c"), d = var("d");
  Function in = function({x}, let(a, relu(x), let(b, relu(a), let(c, relu(b), let(d, relu(x), d)))));
  Var x2 = var("x", t2()), d2 = var("d");
  expect_equal(run_dce(in), function({x2}, let(d2, relu(x2), d2)));
}

TEST_F(DeadCodeTest, UsedBindingsStayInPlace) {
  Var x = var("x", t2()), a = var("a"), b = var("b");
  Function in = function({x}, let(a, relu(x), let(b, relu(a), call("test.add", {a, b}))));
  Function out = run_dce(in);
  expect_equal(out, in);
  EXPECT_TRUE(out.same_as(in));  // nothing changed, nothing rebuilt
}

TEST_F(DeadCodeTest, BindingUsedInsideAClosureIsLive) {
  // let %a = relu(%x); let %f = fn (%p) { add(%p, %a) }; %f(%x)
  Var x = var("x", t2()), a = var("a"), f = var("f"), p = var("p", t2());
  Function in = function({x}, let(a, relu(x), let(f, function({p}, call("test.add", {p, a})), call_function(f, {x}))));
  expect_equal(run_dce(in), in);
}

TEST_F(DeadCodeTest, CallThroughAnUnknownFunctionIsKept) {
  // %g is a parameter: calling it may do anything, so the unused %r stays.
  Var g = var("g", func_type({t2()}, t2())), x = var("x", t2()), r = var("r"), dead = var("dead");
  Function in = function({g, x}, let(r, call_function(g, {x}), let(dead, relu(x), x)));
  Var g2 = var("g", func_type({t2()}, t2())), x2 = var("x", t2()), r2 = var("r");
  expect_equal(run_dce(in), function({g2, x2}, let(r2, call_function(g2, {x2}), x2)));
}

TEST_F(DeadCodeTest, CallOfATupleFieldIsKept) {
  // The callee comes out of a tuple: unknown, so the unused %r stays.
  TensorType t = t2();
  Var fs = var("fs", tuple_type({func_type({t}, t)})), x = var("x", t), r = var("r");
  Function in = function({fs, x}, let(r, call_function(get_item(fs, 0), {x}), x));
  expect_equal(run_dce(in), in);
}

TEST_F(DeadCodeTest, CallOfAKnownPureClosureIsDroppedAndThenTheClosure) {
  // let %f = fn (%p) { relu(%p) }; let %u = %f(%x); %x  ->  %x
  Var x = var("x", t2()), f = var("f"), p = var("p", t2()), u = var("u");
  Function in = function({x}, let(f, function({p}, relu(p)), let(u, call_function(f, {x}), x)));
  Var x2 = var("x", t2());
  expect_equal(run_dce(in), function({x2}, x2));
}

TEST_F(DeadCodeTest, CallOfAGlobalIsPureWhenItsBodyIs) {
  // @pure(%p) { relu(%p) } and @apply(%h, %p) { %h(%p) }: an unused call of
  // @pure goes, an unused call of @apply stays.
  IRModule mod;
  Var p = var("p", t2());
  GlobalVar pure = mod.add("pure", function({p}, relu(p)));
  Var h = var("h", func_type({t2()}, t2())), q = var("q", t2());
  GlobalVar apply = mod.add("apply", function({h, q}, call_function(h, {q})));
  Var x = var("x", t2()), k = var("k", func_type({t2()}, t2())), u = var("u"), w = var("w");
  mod.add("main", function({x, k}, let(u, call_function(pure, {x}), let(w, call_function(apply, {k, x}), x))));
  IRModule out = DeadCodeElimination()(mod);
  Var x2 = var("x", t2()), k2 = var("k", func_type({t2()}, t2())), w2 = var("w");
  expect_equal(out.main(), function({x2, k2}, let(w2, call_function(apply, {k2, x2}), x2)));
  EXPECT_TRUE(out.lookup("pure").same_as(mod.lookup("pure")));
}

TEST_F(DeadCodeTest, RecursiveGlobalIsAssumedPure) {
  // @loop(%c, %x) { if (%c) { %x } else { @loop(%c, relu(%x)) } }: an unused call goes.
  IRModule mod;
  GlobalVar loop = global_var("loop");
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", t2());
  mod.add(loop, function({c, x}, if_then_else(c, x, call_function(loop, {c, relu(x)})), t2()));
  Var c2 = var("c", scalar_type(DataType::Bool())), y = var("y", t2()), u = var("u");
  mod.add("main", function({c2, y}, let(u, call_function(loop, {c2, y}), y)));
  IRModule out = DeadCodeElimination()(mod);
  Var c3 = var("c", scalar_type(DataType::Bool())), y3 = var("y", t2());
  expect_equal(out.main(), function({c3, y3}, y3));
}

TEST_F(DeadCodeTest, DeadBindingsInsideBranchesAndClosuresGoToo) {
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", t2()), a = var("a"), b = var("b"), p = var("p", t2());
  Var f = var("f");
  Function in = function(
      {c, x}, let(f, function({p}, let(b, relu(p), p)), if_then_else(c, let(a, relu(x), call_function(f, {x})), x)));
  Var c2 = var("c", scalar_type(DataType::Bool())), x2 = var("x", t2()), p2 = var("p", t2()), f2 = var("f");
  Function want = function({c2, x2}, let(f2, function({p2}, p2), if_then_else(c2, call_function(f2, {x2}), x2)));
  expect_equal(run_dce(in), want);
}

TEST_F(DeadCodeTest, RegisteredAtOptLevelOne) {
  Pass dce = DeadCodeElimination();
  EXPECT_EQ(dce.info().name, "DeadCodeElimination");
  EXPECT_EQ(dce.info().opt_level, 1);
  Var x = var("x", t2()), a = var("a");
  IRModule mod = IRModule::from_function(function({x}, let(a, relu(x), x)));
  PassContext ctx;
  ctx.opt_level = 0;
  IRModule kept = sequential({DeadCodeElimination()})(mod, ctx);
  EXPECT_TRUE(kept.main().same_as(mod.main()));
  ctx.opt_level = 1;
  IRModule cleaned = sequential({DeadCodeElimination()})(mod, ctx);
  EXPECT_EQ(cleaned.main()->body->kind, ExprKind::kVar);
}

}  // namespace
}  // namespace weft
