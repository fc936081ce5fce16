// ToANormalForm and ToGraphNormalForm: the situations of the reference's
// tests/python/relay/test_pass_to_a_normal_form.py and
// test_pass_to_graph_normal_form.py, compared structurally with programs
// written out by hand, and run on the interpreter before and after.
#include <gtest/gtest.h>

#include <string>

#include "support/op_test.h"
#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

using testing::elements;

Expr c(double v) { return constant(Tensor::scalar(v, DataType::Float(32))); }
Expr add(Expr a, Expr b) { return call("add", {std::move(a), std::move(b)}); }
Expr mul(Expr a, Expr b) { return call("multiply", {std::move(a), std::move(b)}); }

// Runs `pass` on main under the well-formedness check.
Function run(const Pass& pass, const Function& fn) {
  PassContext ctx;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  return pass(IRModule::from_function(fn), ctx).main();
}

void expect_equal(const Function& got, const Function& want) {
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
}

Function parse_main(const std::string& text) { return parse_module(text).main(); }

int count_lets(const Expr& e) {
  int lets = 0;
  post_order_visit(e, [&](const Expr& n) { lets += n->kind == ExprKind::kLet; });
  return lets;
}

double run_scalar(const Function& fn) {
  return elements(Interpreter(IRModule::from_function(fn)).run_main({}).tensor()).at(0);
}

TEST(ToANormalForm, SharedNodesAreBoundOnce) {
  // x = 1; y = x + x; z = y + y; z + z, with sharing and no let.
  Expr x = c(1), y = add(x, x), z = add(y, y);
  Function f = function({}, add(z, z));
  Function anf = run(ToANormalForm(), f);
  expect_equal(anf, parse_main(R"(
def @main() {
  let %a = 1f; let %b = add(%a, %a); let %c = add(%b, %b); let %d = add(%c, %c); %d
})"));
  EXPECT_EQ(run_scalar(f), 8);
  EXPECT_EQ(run_scalar(anf), 8);
}

TEST(ToANormalForm, BindingsFollowEvaluationOrderNotConstructionOrder) {
  Expr z = c(3), y = c(2), x = c(1);
  Function anf = run(ToANormalForm(), function({}, add(x, mul(y, z))));
  expect_equal(anf, parse_main(R"(
def @main() {
  let %a = 1f; let %b = 2f; let %c = 3f; let %d = multiply(%b, %c); let %e = add(%a, %d); %e
})"));
  EXPECT_EQ(run_scalar(anf), 7);
}

TEST(ToANormalForm, IfBranchesGetTheirOwnScopes) {
  Function anf = run(ToANormalForm(), parse_main("def @main() { if (True) { 2f } else { 3f } }"));
  expect_equal(anf, parse_main(R"(
def @main() {
  let %c = True;
  let %d = if (%c) { let %a = 2f; %a } else { let %b = 3f; %b };
  %d
})"));
}

TEST(ToANormalForm, ALetUsedAsASubexpressionIsFlattened) {
  // l = (let %x = 1 + 1; %x); l * l: the let's bindings move out, its body is bound again.
  Var xv = var("x");
  Expr one = c(1);
  Expr l = let(xv, add(one, one), xv);
  Function anf = run(ToANormalForm(), function({}, mul(l, l)));
  expect_equal(anf, parse_main(R"(
def @main() {
  let %v0 = 1f; let %x = add(%v0, %v0); let %v1 = %x; let %v2 = multiply(%v1, %v1); %v2
})"));
  EXPECT_EQ(run_scalar(anf), 4);
}

TEST(ToANormalForm, ANodeSharedByBothBranchesIsBoundInTheirCommonScope) {
  // The example of Relay's to_a_normal_form.cc: %0 = add(a, b) used in both branches.
  Var a = var("a", tensor_type({})), b = var("b", tensor_type({})), y = var("y", tensor_type({}, DataType::Bool()));
  Expr shared = add(a, b);
  Function anf = run(ToANormalForm(), function({y, a, b}, if_then_else(y, shared, call("subtract", {shared, b}))));
  expect_equal(anf, parse_main(R"(
def @main(%y: bool, %a: float32, %b: float32) {
  let %x0 = add(%a, %b);
  let %x2 = if (%y) { %x0 } else { let %x1 = subtract(%x0, %b); %x1 };
  %x2
})"));
}

TEST(ToANormalForm, ClosuresAreBoundAndTheirBodiesNormalized) {
  Function anf = run(ToANormalForm(), parse_main(R"(
def @main(%x: float32) {
  let %f = fn (%y: float32) { add(%y, %y) };
  %f(%x)
})"));
  expect_equal(anf, parse_main(R"(
def @main(%x: float32) {
  let %f = fn (%y: float32) { let %x1 = add(%y, %y); %x1 };
  let %x2 = %f(%x);
  let %x3 = %x2;
  %x3
})"));
  Tensor four = Tensor::scalar(4, DataType::Float(32));
  EXPECT_EQ(elements(Interpreter(IRModule::from_function(anf)).run_main({four}).tensor()).at(0), 8);
}

TEST(ToANormalForm, PrimitiveFunctionsAndFunctionsForOtherCompilersStayAsTheyAre) {
  IRModule mod = parse_module(R"(
def @ext(%p: float32, Compiler="ccompiler") { add(%p, %p) }
def @main(%x: float32) {
  %0 = fn (%p: float32, Primitive=1) { add(%p, %p) };
  %0(%x)
})");
  IRModule out = ToANormalForm()(mod);
  EXPECT_TRUE(out.lookup("ext").same_as(mod.lookup("ext")));
  expect_equal(out.main(), parse_main(R"(
def @main(%x: float32) {
  let %f = fn (%p: float32, Primitive=1) { add(%p, %p) };
  let %r = %f(%x);
  %r
})"));
}

TEST(ToANormalForm, IsRegisteredAtTheReferencesOptLevel) {
  EXPECT_EQ(PassRegistry::global().create("ToANormalForm").info().opt_level, 1);
  EXPECT_EQ(PassRegistry::global().create("ToGraphNormalForm").info().opt_level, 1);
}

TEST(ToGraphNormalForm, LetsBecomeSharedNodes) {
  Function f = parse_main(R"(
def @main() {
  let %x = 1f; let %y = add(%x, %x); let %z = add(%y, %y); add(%z, %z)
})");
  Function gnf = run(ToGraphNormalForm(), f);
  Expr x = c(1), y = add(x, x), z = add(y, y);
  expect_equal(gnf, function({}, add(z, z)));
  EXPECT_EQ(count_lets(gnf), 0);
  const auto* top = gnf->body.as<CallNode>();
  EXPECT_TRUE(top->args[0].same_as(top->args[1]));  // shared, not copied
  EXPECT_EQ(run_scalar(gnf), 8);
  // And back: the round trip of the reference's test keeps the value.
  Function anf = run(ToANormalForm(), gnf);
  EXPECT_EQ(count_lets(anf), 4);
  EXPECT_EQ(run_scalar(anf), 8);
}

TEST(ToGraphNormalForm, AliasesAndClosureBodiesLoseTheirLetsToo) {
  Function gnf = run(ToGraphNormalForm(), parse_main(R"(
def @main(%a: float32) {
  let %b = %a;
  let %c = %b;
  let %f = fn (%y: float32) { let %t = add(%y, %c); %t };
  %f(%c)
})"));
  expect_equal(gnf, parse_main(R"(
def @main(%a: float32) {
  %0 = fn (%y: float32) { add(%y, %a) };
  %0(%a)
})"));
}

TEST(ToGraphNormalForm, ARecursiveClosureKeepsItsLet) {
  const char* text = R"(
def @main(%n: float32) {
  let %f = fn (%i: float32) -> float32 { if (less(%i, 1f)) { %i } else { %f(subtract(%i, 1f)) } };
  %f(%n)
})";
  Function gnf = run(ToGraphNormalForm(), parse_main(text));
  expect_equal(gnf, parse_main(R"(
def @main(%n: float32) {
  (let %f = fn (%i: float32) -> float32 { if (less(%i, 1f)) { %i } else { %f(subtract(%i, 1f)) } }; %f)(%n)
})"));
  Tensor three = Tensor::scalar(3, DataType::Float(32));
  EXPECT_EQ(elements(Interpreter(IRModule::from_function(gnf)).run_main({three}).tensor()).at(0), 0);
}

}  // namespace
}  // namespace weft
