// Type inference: what it infers, what it writes back, and how it reports a
// program that does not type.
#include <gtest/gtest.h>

#include <string>

#include "test_ops.h"
#include "weft/error.h"
#include "weft/expr.h"
#include "weft/module.h"
#include "weft/passes.h"
#include "weft/structural.h"

namespace weft {
namespace {

class InferTypeTest : public ::testing::Test {
 protected:
  void SetUp() override { weft::testing::register_test_ops(); }
};

TensorType f32(std::vector<Dim> shape) { return tensor_type(std::move(shape), DataType::Float(32)); }

// The message of the weft::Error that fn throws (fails the test if none).
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

bool types_equal(const Type& a, const Type& b) { return type_equal(a, b); }

TEST_F(InferTypeTest, OpCallsTakeTheirRelationsType) {
  Var x = var("x", f32({1, 3, 8, 8}));
  Var w = var("w", f32({4, 3, 3, 3}));
  Call conv = call("test.conv", {x, w}, {{"padding", 1}});
  Call relu = call("test.relu", {conv});
  infer_type(Expr(function({x, w}, relu)));
  EXPECT_TRUE(types_equal(conv->checked_type(), f32({1, 4, 8, 8}))) << type_to_text(conv->checked_type());
  EXPECT_TRUE(types_equal(relu->checked_type(), f32({1, 4, 8, 8})));
  EXPECT_TRUE(types_equal(x->checked_type(), f32({1, 3, 8, 8})));
}

TEST_F(InferTypeTest, StridedConvShapeFollowsTheRelation) {
  // (7 + 0 + 0 - 3) / 2 + 1 = 3
  Var x = var("x", f32({2, 3, 7, 7}));
  Var w = var("w", f32({5, 3, 3, 3}));
  Call conv = call("test.conv", {x, w}, {{"strides", 2}});
  infer_type(Expr(function({x, w}, conv)));
  EXPECT_TRUE(types_equal(conv->checked_type(), f32({2, 5, 3, 3}))) << type_to_text(conv->checked_type());
}

TEST_F(InferTypeTest, TuplesAndTheirFields) {
  Var x = var("x", f32({4, 6}));
  Var y = var("y", tensor_type({2}, DataType::Int(32)));
  Call parts = call("test.split", {x}, {{"sections", 2}});
  TupleGetItem second = get_item(parts, 1);
  Tuple pair = tuple({second, y});
  TupleGetItem back = get_item(pair, 1);
  Function fn = function({x, y}, tuple({pair, back}));
  infer_type(Expr(fn));
  EXPECT_TRUE(types_equal(parts->checked_type(), tuple_type({f32({2, 6}), f32({2, 6})})));
  EXPECT_TRUE(types_equal(second->checked_type(), f32({2, 6})));
  EXPECT_TRUE(types_equal(pair->checked_type(), tuple_type({f32({2, 6}), tensor_type({2}, DataType::Int(32))})));
  EXPECT_TRUE(types_equal(back->checked_type(), tensor_type({2}, DataType::Int(32))));
}

TEST_F(InferTypeTest, TupleGetItemWaitsForAClosureResult) {
  // %f's result type is only known once the call of %f unifies it, after the
  // projection was visited.
  Var p = var("p", f32({4, 2}));
  Function split_fn = function({p}, call("test.split", {p}, {{"sections", 2}}));
  Var f = var("f");
  Var x = var("x", f32({4, 2}));
  Var g = var("g");
  Var q = var("q");
  // let %g = fn (%q) { %q.0 }; let %f = fn(...) {...}; %g(%f(%x))
  Function first = function({q}, get_item(q, 0));
  Call result = call_function(g, {call_function(f, {x})});
  Expr body = let(g, first, let(f, split_fn, result));
  infer_type(Expr(function({x}, body)));
  EXPECT_TRUE(types_equal(result->checked_type(), f32({2, 2}))) << type_to_text(result->checked_type());
}

TEST_F(InferTypeTest, LetVarsTakeTheirValuesTypeAndGetAnnotated) {
  Var x = var("x", f32({2, 3}));
  Var a = var("a");
  Var b = var("b", f32({2, 3}));
  Call sum = call("test.add", {a, b});
  Function fn = function({x}, let(a, call("test.relu", {x}), let(b, x, sum)));
  Expr typed = infer_type(Expr(fn));
  EXPECT_TRUE(types_equal(a->checked_type(), f32({2, 3})));
  EXPECT_TRUE(types_equal(sum->checked_type(), f32({2, 3})));
  // As Relay's resolver: the unannotated let var comes back annotated, and the
  // function gets its return type.
  auto* out = typed.as<FunctionNode>();
  ASSERT_NE(out, nullptr);
  ASSERT_TRUE(out->ret_type);
  EXPECT_TRUE(types_equal(out->ret_type, f32({2, 3})));
  auto* first_let = out->body.as<LetNode>();
  ASSERT_NE(first_let, nullptr);
  ASSERT_TRUE(first_let->var->type_annotation);
  EXPECT_TRUE(types_equal(first_let->var->type_annotation, f32({2, 3})));
  EXPECT_TRUE(types_equal(typed->checked_type(), func_type({f32({2, 3})}, f32({2, 3}))));
  Var a2 = var("a", f32({2, 3}));
  Var b2 = var("b", f32({2, 3}));
  Var x2 = var("x", f32({2, 3}));
  Function expected = function(
      {x2}, let(a2, call("test.relu", {x2}), let(b2, x2, call("test.add", {a2, b2}))), f32({2, 3}));
  EXPECT_TRUE(structural_equal(typed, expected));
}

TEST_F(InferTypeTest, IfTakesItsBranchesType) {
  Var c = var("c", scalar_type(DataType::Bool()));
  Var x = var("x", f32({5}));
  If branch = if_then_else(c, call("test.relu", {x}), x);
  infer_type(Expr(function({c, x}, branch)));
  EXPECT_TRUE(types_equal(branch->checked_type(), f32({5})));
}

TEST_F(InferTypeTest, UnannotatedParamsTakeTheirTypeFromTheCall) {
  Var p = var("p");
  Var f = var("f");
  Var x = var("x", f32({2, 3}));
  Call use = call_function(f, {x});
  Function fn = function({x}, let(f, function({p}, call("test.relu", {p})), use));
  Expr typed = infer_type(Expr(fn));
  EXPECT_TRUE(types_equal(p->checked_type(), f32({2, 3})));
  EXPECT_TRUE(types_equal(use->checked_type(), f32({2, 3})));
  EXPECT_TRUE(types_equal(f->checked_type(), func_type({f32({2, 3})}, f32({2, 3}))));
  // The closure's parameter is written into the rebuilt program.
  auto* closure = typed.as<FunctionNode>()->body.as<LetNode>()->value.as<FunctionNode>();
  ASSERT_NE(closure, nullptr);
  EXPECT_TRUE(types_equal(closure->params[0]->type_annotation, f32({2, 3})));
}

TEST_F(InferTypeTest, UnannotatedParamTakesItsTypeFromAnAnnotatedLet) {
  Var p = var("p");
  Var q = var("q", f32({7}));
  Function fn = function({p}, let(q, p, call("test.relu", {q})));
  infer_type(Expr(fn));
  EXPECT_TRUE(types_equal(p->checked_type(), f32({7})));
}

TEST_F(InferTypeTest, GlobalsCallEachOtherInAnyOrder) {
  // @main calls @helper, defined after it, whose parameter is unannotated.
  IRModule mod;
  GlobalVar helper = global_var("helper");
  Var x = var("x", f32({2, 3}));
  Call use = call_function(helper, {x});
  mod.add(global_var("main"), function({x}, call("test.relu", {use})));
  Var y = var("y");
  mod.add(helper, function({y}, call("test.add", {y, y})));
  IRModule typed = infer_type(mod);
  EXPECT_TRUE(types_equal(use->checked_type(), f32({2, 3})));
  EXPECT_TRUE(types_equal(typed.global_var("helper")->checked_type(), func_type({f32({2, 3})}, f32({2, 3}))));
  Function typed_helper = typed.lookup("helper");
  ASSERT_TRUE(typed_helper->params[0]->type_annotation);
  EXPECT_TRUE(types_equal(typed_helper->params[0]->type_annotation, f32({2, 3})));
  EXPECT_TRUE(types_equal(typed_helper->ret_type, f32({2, 3})));
  EXPECT_EQ(typed.functions()[0].first->name, "main");  // order kept
}

TEST_F(InferTypeTest, RecursiveGlobalTypedByItsAnnotations) {
  // def @loop(%c: bool, %x: Tensor[(3), float32]) -> Tensor[(3), float32] {
  //   if (%c) { %x } else { @loop(%c, test.relu(%x)) }
  // }
  IRModule mod;
  GlobalVar loop = global_var("loop");
  Var c = var("c", scalar_type(DataType::Bool()));
  Var x = var("x", f32({3}));
  Call again = call_function(loop, {c, call("test.relu", {x})});
  mod.add(loop, function({c, x}, if_then_else(c, x, again), f32({3})));
  Var c2 = var("c", scalar_type(DataType::Bool()));
  Var x2 = var("x", f32({3}));
  mod.add(global_var("main"), function({c2, x2}, call_function(loop, {c2, x2})));
  IRModule typed = infer_type(mod);
  EXPECT_TRUE(types_equal(again->checked_type(), f32({3})));
  EXPECT_TRUE(types_equal(typed.main()->checked_type(),
                          func_type({scalar_type(DataType::Bool()), f32({3})}, f32({3}))));
}

TEST_F(InferTypeTest, FunctionLiteralCalledOnTheSpot) {
  Var p = var("p"), x = var("x", f32({6}));
  Call applied = call_function(function({p}, call("test.relu", {p})), {x});
  infer_type(Expr(function({x}, applied)));
  EXPECT_TRUE(types_equal(p->checked_type(), f32({6})));
  EXPECT_TRUE(types_equal(applied->checked_type(), f32({6})));
}

TEST_F(InferTypeTest, MutuallyRecursiveGlobalsWithoutReturnAnnotations) {
  // @ping(%c: bool, %x) { if (%c) { %x } else { @pong(%c, %x) } }
  // @pong(%c: bool, %y) { @ping(%c, test.relu(%y)) }, typed from @main's call.
  IRModule mod;
  GlobalVar ping = global_var("ping"), pong = global_var("pong");
  TensorType b = scalar_type(DataType::Bool());
  Var c1 = var("c", b), x = var("x");
  mod.add(ping, function({c1, x}, if_then_else(c1, x, call_function(pong, {c1, x}))));
  Var c2 = var("c", b), y = var("y");
  mod.add(pong, function({c2, y}, call_function(ping, {c2, call("test.relu", {y})})));
  Var c3 = var("c", b), z = var("z", f32({3}));
  mod.add("main", function({c3, z}, call_function(ping, {c3, z})));
  IRModule typed = infer_type(mod);
  EXPECT_TRUE(types_equal(typed.global_var("pong")->checked_type(), func_type({b, f32({3})}, f32({3}))));
  EXPECT_TRUE(types_equal(typed.lookup("pong")->params[1]->type_annotation, f32({3})));
}

TEST_F(InferTypeTest, DynamicDimsUnifyWithStaticOnes) {
  Var x = var("x", f32({kAnyDim, 3}));
  Call relu = call("test.relu", {x});
  Function fn = function({x}, relu, f32({kAnyDim, 3}));
  infer_type(Expr(fn));
  EXPECT_TRUE(types_equal(relu->checked_type(), f32({kAnyDim, 3})));
  // A static argument to a parameter with a `?` dim is accepted.
  IRModule mod;
  GlobalVar g = mod.add("g", function({var("p", f32({kAnyDim, 3}))}, constant(Tensor::zeros({1}, DataType::Float(32)))));
  Var y = var("y", f32({5, 3}));
  mod.add("main", function({y}, call_function(g, {y})));
  EXPECT_NO_THROW(infer_type(mod));
}

TEST_F(InferTypeTest, ConstantsHaveTheirTensorsType) {
  Constant c = constant(Tensor::zeros({2, 2}, DataType::Int(8)));
  infer_type(Expr(c));
  EXPECT_TRUE(types_equal(c->checked_type(), tensor_type({2, 2}, DataType::Int(8))));
}

TEST_F(InferTypeTest, InferTypePassTypesTheModuleAndItsGlobalVars) {
  Var x = var("x", f32({4}));
  IRModule mod = IRModule::from_function(function({x}, call("test.relu", {x})));
  IRModule typed = InferType()(mod);
  EXPECT_TRUE(types_equal(typed.global_var("main")->checked_type(), func_type({f32({4})}, f32({4}))));
  EXPECT_TRUE(types_equal(typed.main()->body->checked_type(), f32({4})));
}

// ---- Failures ------------------------------------------------------------------

TEST_F(InferTypeTest, RelationErrorNamesTheOpTheCallAndBothTypes) {
  Var x = var("x", f32({2, 3}));
  Var y = var("y", f32({3}));
  Function fn = function({x, y}, call("test.relu", {call("test.add", {x, y})}));
  std::string msg = error_of([&] { infer_type(Expr(fn)); });
  EXPECT_NE(msg.find("op test.add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.add(%x, %y)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(2, 3), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(3), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("operands differ"), std::string::npos) << msg;  // the relation's own words
}

TEST_F(InferTypeTest, RelationErrorKeepsTheAttrNamedByTheRelation) {
  Var x = var("x", f32({5, 2}));
  Function fn = function({x}, call("test.split", {x}, {{"sections", 2}}));
  try {
    infer_type(Expr(fn));
    FAIL() << "5 rows do not split in 2";
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.split");
    EXPECT_EQ(e.attr_name(), "sections");
    EXPECT_NE(std::string(e.what()).find("test.split(%x, sections=2"), std::string::npos) << e.what();
  }
}

TEST_F(InferTypeTest, MismatchInsideALongChainPrintsACompactCall) {
  Var x = var("x", f32({2}));
  Expr chain = x;
  for (int i = 0; i < 100; ++i) chain = call("test.relu", {chain});
  Var y = var("y", f32({3}));
  Function fn = function({x, y}, call("test.add", {chain, y}));
  std::string msg = error_of([&] { infer_type(Expr(fn)); });
  EXPECT_NE(msg.find("test.add(test.relu(...), %y)"), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 1000u) << msg;
}

TEST_F(InferTypeTest, LetAnnotationMismatchNamesTheVariableAndBothTypes) {
  Var x = var("x", f32({2, 3}));
  Var a = var("a", f32({3, 2}));
  Function fn = function({x}, let(a, call("test.relu", {x}), a));
  std::string msg = error_of([&] { infer_type(Expr(fn)); });
  EXPECT_NE(msg.find("%a"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(3, 2), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(2, 3), float32]"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, IfConditionMustBeABoolScalar) {
  Var c = var("c", tensor_type({1}, DataType::Bool()));
  Var x = var("x", f32({2}));
  std::string msg = error_of([&] { infer_type(Expr(function({c, x}, if_then_else(c, x, x)))); });
  EXPECT_NE(msg.find("condition"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(1), bool]"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, IfBranchesMustAgree) {
  Var c = var("c", scalar_type(DataType::Bool()));
  Var x = var("x", f32({2}));
  Var y = var("y", f32({4}));
  std::string msg = error_of([&] { infer_type(Expr(function({c, x, y}, if_then_else(c, x, call("test.relu", {y}))))); });
  EXPECT_NE(msg.find("branches"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(2), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(4), float32]"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, TupleIndexOutOfRangeIsAnError) {
  Var x = var("x", f32({4}));
  Function fn = function({x}, get_item(call("test.split", {x}, {{"sections", 2}}), 2));
  std::string msg = error_of([&] { infer_type(Expr(fn)); });
  EXPECT_NE(msg.find("tuple index 2 is out of range"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 fields"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, ProjectionOfANonTupleIsAnError) {
  Var x = var("x", f32({4}));
  std::string msg = error_of([&] { infer_type(Expr(function({x}, get_item(x, 0)))); });
  EXPECT_NE(msg.find("Tensor[(4), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected a tuple"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, ArgumentMismatchBetweenGlobalsShowsBothTypes) {
  IRModule mod;
  GlobalVar g = mod.add("g", function({var("p", f32({3}))}, constant(Tensor::zeros({1}, DataType::Float(32)))));
  Var x = var("x", f32({4}));
  mod.add("main", function({x}, call_function(g, {x})));
  std::string msg = error_of([&] { infer_type(mod); });
  EXPECT_NE(msg.find("argument 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(4), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(3), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("@g(%x)"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, MismatchInsideATupleSaysWhichPartDiffers) {
  Var p = var("p", tuple_type({f32({2}), f32({3})}));
  Var x = var("x", f32({2})), y = var("y", f32({4})), f = var("f");
  Function fn = function({x, y}, let(f, function({p}, get_item(p, 0)), call_function(f, {tuple({x, y})})));
  std::string msg = error_of([&] { infer_type(Expr(fn)); });
  EXPECT_NE(msg.find("(Tensor[(2), float32], Tensor[(4), float32])"), std::string::npos) << msg;
  EXPECT_NE(msg.find("note: dimension 0 is 3 vs 4 in Tensor[(3), float32] and Tensor[(4), float32]"),
            std::string::npos)
      << msg;
}

TEST_F(InferTypeTest, RelationResultConflictingWithAnEarlierUseNamesTheOp) {
  // In the closure, relu waits for %p while the annotated let already fixes its
  // result; the call %f(%x) then gives %p a type that makes relu disagree.
  Var p = var("p"), r = var("r", f32({3})), f = var("f"), x = var("x", f32({2}));
  Function closure = function({p}, let(r, call("test.relu", {p}), r));
  std::string msg = error_of([&] { infer_type(Expr(function({x}, let(f, closure, call_function(f, {x}))))); });
  EXPECT_NE(msg.find("op test.relu"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(2), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(3), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.relu(%p)"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, ReturnAnnotationMismatchShowsBothTypes) {
  Var x = var("x", f32({4}));
  std::string msg = error_of([&] { infer_type(Expr(function({x}, call("test.relu", {x}), f32({5})))); });
  EXPECT_NE(msg.find("return type"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(4), float32]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor[(5), float32]"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, UnresolvableParameterIsNamed) {
  Var p = var("p");
  std::string msg = error_of([&] { infer_type(Expr(function({p}, call("test.relu", {p})))); });
  EXPECT_NE(msg.find("cannot infer the type of variable %p"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, UnresolvableFreeVariableIsNamed) {
  Var y = var("y");
  std::string msg = error_of([&] { infer_type(Expr(tuple({y}))); });
  EXPECT_NE(msg.find("cannot infer the type of free variable %y"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, FailedInferenceWritesNoTypes) {
  Var x = var("x", f32({2})), y = var("y");
  Call relu = call("test.relu", {x});
  EXPECT_THROW(infer_type(Expr(tuple({relu, y}))), Error);
  EXPECT_FALSE(relu->has_type());
}

TEST_F(InferTypeTest, FreeVariableTakesItsTypeFromItsUse) {
  Var y = var("y");
  Var f = var("f", func_type({f32({3})}, f32({3})));
  Expr e = call_function(f, {y});
  infer_type(e);
  EXPECT_TRUE(types_equal(y->checked_type(), f32({3})));
}

TEST_F(InferTypeTest, UnresolvableParameterOfAGlobalNamesTheGlobal) {
  IRModule mod;
  Var p = var("p");
  mod.add("main", function({p}, p));
  std::string msg = error_of([&] { infer_type(mod); });
  EXPECT_NE(msg.find("%p in @main"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, UnknownGlobalIsAnError) {
  IRModule mod;
  Var x = var("x", f32({1}));
  mod.add("main", function({x}, call_function(global_var("nope"), {x})));
  std::string msg = error_of([&] { infer_type(mod); });
  EXPECT_NE(msg.find("unknown global function @nope"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, WrongArityOfAnOpCallIsAnError) {
  Var x = var("x", f32({1}));
  // Built directly: the call() builder would refuse it already.
  Expr bad = make_ref<CallNode>(op("test.add"), std::vector<Expr>{x}, empty_attrs());
  std::string msg = error_of([&] { infer_type(Expr(function({x}, bad))); });
  EXPECT_NE(msg.find("op test.add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("takes 2 arguments"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, CallBuiltWithoutAttrsGetsTheDefaults) {
  Var x = var("x", f32({1, 2, 5, 5})), w = var("w", f32({3, 2, 3, 3}));
  Expr conv = make_ref<CallNode>(op("test.conv"), std::vector<Expr>{x, w}, nullptr);
  infer_type(Expr(function({x, w}, conv)));
  EXPECT_TRUE(types_equal(conv->checked_type(), f32({1, 3, 3, 3}))) << type_to_text(conv->checked_type());
  // A required attr cannot be defaulted: an error naming op, attr and call.
  Var y = var("y", f32({4}));
  Expr split = make_ref<CallNode>(op("test.split"), std::vector<Expr>{y}, nullptr);
  try {
    infer_type(Expr(function({y}, split)));
    FAIL() << "sections is required";
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.split");
    EXPECT_EQ(e.attr_name(), "sections");
    EXPECT_NE(std::string(e.what()).find("test.split(%y)"), std::string::npos) << e.what();
  }
}

TEST_F(InferTypeTest, OpUsedAsAValueIsAnError) {
  std::string msg = error_of([&] { infer_type(Expr(tuple({op("test.relu")}))); });
  EXPECT_NE(msg.find("op test.relu is used as a value"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, ClosureCalledWithTheWrongArityIsAnError) {
  Var x = var("x", f32({1})), p = var("p", f32({1})), f = var("f");
  Function fn = function({x}, let(f, function({p}, p), call_function(f, {x, x})));
  std::string msg = error_of([&] { infer_type(Expr(fn)); });
  EXPECT_NE(msg.find("takes 1 arguments, the call passes 2"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, SelfApplicationIsAnErrorNotACrash) {
  // fn (%f) { %f(%f) }: %f's type would have to contain itself.
  Var f = var("f");
  std::string msg = error_of([&] { infer_type(Expr(function({f}, call_function(f, {f})))); });
  EXPECT_NE(msg.find("would have to contain itself"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, CallingATensorIsAnError) {
  Var x = var("x", f32({1}));
  std::string msg = error_of([&] { infer_type(Expr(function({x}, call_function(x, {x})))); });
  EXPECT_NE(msg.find("cannot call an expression of type Tensor[(1), float32]"), std::string::npos) << msg;
}

TEST_F(InferTypeTest, ParsedPositionIsReported) {
  Var x = var("x", f32({2}));
  Var y = var("y", f32({3}));
  auto bad = make_ref<CallNode>(op("test.add"), std::vector<Expr>{x, y}, empty_attrs());
  bad->span = std::make_shared<SourceLoc>(SourceLoc{"model.relay", 4, 9});
  std::string msg = error_of([&] { infer_type(Expr(function({x, y}, Expr(bad)))); });
  EXPECT_EQ(msg.rfind("model.relay:4:9: ", 0), 0u) << msg;
}

}  // namespace
}  // namespace weft
