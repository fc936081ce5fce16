// EliminateCommonSubexpr: equal calls (same op, attrs and merged arguments) and
// equal projections become one node, within one function scope. Structural
// equality cannot see sharing, so merges are also checked by node identity.
#include <gtest/gtest.h>

#include "test_ops.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {
namespace {

// Opaque ops for CSE tests only: a nullary one, whose calls have no argument
// and are never merged (as in Relay), and a unary one, merged like any other.
void register_opaque_ops() {
  if (OpRegistry::global().find_loaded("test.cse_fresh")) return;
  OpDef fresh;
  fresh.name = "test.cse_fresh";
  fresh.description = "A fresh tensor of 2 floats.";
  fresh.relation = [](std::span<const Type>, const Attrs&) -> Type { return tensor_type({2}); };
  fresh.pattern = OpPattern::kOpaque;
  OpRegistry::global().add(std::move(fresh));
  OpDef sort;
  sort.name = "test.cse_sort";
  sort.description = "Sorts a tensor.";
  sort.inputs = {{"data", "Tensor", "input"}};
  sort.relation = [](std::span<const Type> args, const Attrs&) -> Type { return args[0]; };
  sort.pattern = OpPattern::kOpaque;
  OpRegistry::global().add(std::move(sort));
}

class CommonSubexprTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::register_test_ops();
    register_opaque_ops();
  }
};

TensorType t2() { return tensor_type({2}); }
Expr relu(Expr e) { return call("test.relu", {std::move(e)}); }
Expr add(Expr a, Expr b) { return call("test.add", {std::move(a), std::move(b)}); }

Function run_cse(const Function& fn) { return EliminateCommonSubexpr()(IRModule::from_function(fn)).main(); }

void expect_equal(const Expr& got, const Expr& want) {
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
}

const CallNode* body_call(const Function& fn) { return fn->body.as<CallNode>(); }

TEST_F(CommonSubexprTest, EqualCallsBecomeOneNode) {
  Var x = var("x", t2());
  Function out = run_cse(function({x}, add(relu(x), relu(x))));
  Var x2 = var("x", t2());
  Expr r = relu(x2);
  expect_equal(out, function({x2}, add(r, r)));
  EXPECT_TRUE(body_call(out)->args[0].same_as(body_call(out)->args[1]));
}

TEST_F(CommonSubexprTest, MergingCascadesThroughMergedArguments) {
  // add(relu(relu(x)), relu(relu(x))): the inner relus merge, then the outer ones.
  Var x = var("x", t2());
  Function out = run_cse(function({x}, add(relu(relu(x)), relu(relu(x)))));
  EXPECT_TRUE(body_call(out)->args[0].same_as(body_call(out)->args[1]));
}

TEST_F(CommonSubexprTest, DifferentAttrsAreNotMerged) {
  Var x = var("x", tensor_type({1, 3, 4, 4})), w = var("w", tensor_type({3, 3, 1, 1}));
  Function in = function({x, w}, tuple({call("test.conv", {x, w}, {{"padding", 1}}), call("test.conv", {x, w})}));
  Function out = run_cse(in);
  auto* t = out->body.as<TupleNode>();
  EXPECT_FALSE(t->fields[0].same_as(t->fields[1]));
  // Equal after normalization (padding 1 and [1, 1]) counts as equal.
  Function same = run_cse(function(
      {x, w}, tuple({call("test.conv", {x, w}, {{"padding", 1}}), call("test.conv", {x, w}, {{"padding", AttrValue({1, 1})}})})));
  auto* s = same->body.as<TupleNode>();
  EXPECT_TRUE(s->fields[0].same_as(s->fields[1]));
}

TEST_F(CommonSubexprTest, EqualScalarConstantsCountAsTheSameArgument) {
  Var x = var("x", tensor_type({}));
  Expr one_a = constant(Tensor::scalar(1.0, DataType::Float(32)));
  Expr one_b = constant(Tensor::scalar(1.0, DataType::Float(32)));
  Expr two = constant(Tensor::scalar(2.0, DataType::Float(32)));
  Function out = run_cse(function({x}, tuple({add(x, one_a), add(x, one_b), add(x, two)})));
  auto* t = out->body.as<TupleNode>();
  EXPECT_TRUE(t->fields[0].same_as(t->fields[1]));
  EXPECT_FALSE(t->fields[0].same_as(t->fields[2]));
}

TEST_F(CommonSubexprTest, EqualNonScalarConstantsAreNotLookedInto) {
  Var x = var("x", t2());
  Expr c1 = constant(Tensor::zeros({2}, DataType::Float(32)));
  Expr c2 = constant(Tensor::zeros({2}, DataType::Float(32)));
  Function out = run_cse(function({x}, tuple({add(x, c1), add(x, c2)})));
  auto* t = out->body.as<TupleNode>();
  EXPECT_FALSE(t->fields[0].same_as(t->fields[1]));
}

TEST_F(CommonSubexprTest, EqualProjectionsOfOneTupleMerge) {
  Var x = var("x", tensor_type({4}));
  Expr parts = call("test.split", {x}, {{"sections", 2}});
  Function out = run_cse(function({x}, add(get_item(parts, 0), get_item(parts, 0))));
  EXPECT_TRUE(body_call(out)->args[0].same_as(body_call(out)->args[1]));
  Function other = run_cse(function({x}, add(get_item(parts, 0), get_item(parts, 1))));
  EXPECT_FALSE(body_call(other)->args[0].same_as(body_call(other)->args[1]));
}

TEST_F(CommonSubexprTest, CallsWithoutArgumentsAreNeverMerged) {
  Var x = var("x", t2());
  Function out = run_cse(function({x}, add(call("test.cse_fresh", {}), call("test.cse_fresh", {}))));
  EXPECT_FALSE(body_call(out)->args[0].same_as(body_call(out)->args[1]));
}

TEST_F(CommonSubexprTest, OpaqueOpsAreMergedToo) {
  Var x = var("x", t2());
  Function out = run_cse(function({x}, add(call("test.cse_sort", {x}), call("test.cse_sort", {x}))));
  EXPECT_TRUE(body_call(out)->args[0].same_as(body_call(out)->args[1]));
}

TEST_F(CommonSubexprTest, CallsInAClosureAreNotMergedWithTheEnclosingFunctions) {
  // fn (%x) { let %f = fn () { relu(%x) }; add(relu(%x), %f()) }: the closure keeps its own relu.
  Var x = var("x", t2()), f = var("f");
  Expr inner = relu(x);
  Expr outer = relu(x);
  Function in = function({x}, let(f, function({}, inner), add(outer, call_function(f, {}))));
  Function out = run_cse(in);
  expect_equal(out, in);
  auto* l = out->body.as<LetNode>();
  const Expr& closure_relu = l->value.as<FunctionNode>()->body;
  const Expr& outer_relu = l->body.as<CallNode>()->args[0];
  EXPECT_FALSE(closure_relu.same_as(outer_relu));
}

TEST_F(CommonSubexprTest, EqualCallsInsideOneClosureMerge) {
  Var x = var("x", t2()), f = var("f");
  Function out = run_cse(function({x}, let(f, function({}, add(relu(x), relu(x))), call_function(f, {}))));
  auto* closure = out->body.as<LetNode>()->value.as<FunctionNode>();
  auto* sum = closure->body.as<CallNode>();
  EXPECT_TRUE(sum->args[0].same_as(sum->args[1]));
}

TEST_F(CommonSubexprTest, LetBoundValuesShareOneNode) {
  // let %a = relu(%x); let %b = relu(%x); add(%a, %b): %b's value becomes %a's.
  Var x = var("x", t2()), a = var("a"), b = var("b");
  Function out = run_cse(function({x}, let(a, relu(x), let(b, relu(x), add(a, b)))));
  auto* la = out->body.as<LetNode>();
  auto* lb = la->body.as<LetNode>();
  EXPECT_TRUE(la->value.same_as(lb->value));
  EXPECT_TRUE(lb->var.same_as(b));
}

TEST_F(CommonSubexprTest, PrimitiveFunctionsAreLeftAlone) {
  IRModule mod;
  Var p = var("p", t2());
  Function fused = function({p}, add(relu(p), relu(p)), nullptr, make_attrs({{"Primitive", 1}}));
  mod.add("fused", fused);
  Var x = var("x", t2());
  mod.add("main", function({x}, relu(x)));
  IRModule out = EliminateCommonSubexpr()(mod);
  EXPECT_TRUE(out.lookup("fused").same_as(fused));
}

TEST_F(CommonSubexprTest, RunsOnlyAtOptLevelThree) {
  Var x = var("x", t2());
  IRModule mod = IRModule::from_function(function({x}, add(relu(x), relu(x))));
  PassContext ctx;
  ctx.opt_level = 2;
  IRModule at2 = sequential({EliminateCommonSubexpr()})(mod, ctx);
  EXPECT_FALSE(body_call(at2.main())->args[0].same_as(body_call(at2.main())->args[1]));
  ctx.opt_level = 3;
  IRModule at3 = sequential({EliminateCommonSubexpr()})(mod, ctx);
  EXPECT_TRUE(body_call(at3.main())->args[0].same_as(body_call(at3.main())->args[1]));
}

TEST_F(CommonSubexprTest, CountsTheMergedExpressionsAsAStatistic) {
  // add(relu(x), relu(x)) and (t.0, t.0) of one tuple: two merges.
  Var x = var("x", t2()), t = var("t", tuple_type({t2(), t2()}));
  Function fn = function({x, t}, tuple({add(relu(x), relu(x)), get_item(t, 0), get_item(t, 0)}));
  PassContext ctx;
  EliminateCommonSubexpr()(IRModule::from_function(fn), ctx);
  EXPECT_EQ(ctx.statistics().at("EliminateCommonSubexpr").at("expressions merged"), 2);
}

}  // namespace
}  // namespace weft
