// rewrite_calls, the driver of the passes that apply ops' named rewrites:
// bottom-up, repeated on each replacement, projections of rewritten tuples
// resolved, every node typed afterwards, and clear errors for untyped input
// and misbehaving rewrites.
#include <gmock/gmock.h>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/call_rewrites.h"
#include "weft/functor.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

constexpr const char* kRewrite = "test_rewrite";

Type same_type(std::span<const Type> args, const Attrs&) { return args[0]; }

// test.rw_scale(x, k: int) = k * x, with rewrite "test_rewrite":
// scale(scale(x, a), b) -> scale(x, a * b) and scale(x, 1) -> x.
// test.rw_pair(x) = (x, x), rewritten to (test.relu(x), its call[1]).
void register_rewrite_ops() {
  auto& reg = OpRegistry::global();
  if (reg.find_loaded("test.rw_scale")) return;
  OpDef scale;
  scale.name = "test.rw_scale";
  scale.inputs = {{"data", "Tensor", "input"}};
  scale.attrs.add({.name = "k", .type = AttrType::kInt, .default_value = AttrValue(1)});
  scale.relation = same_type;
  scale.rewrites[kRewrite] = [](const Call& c) -> Expr {
    int64_t k = c->attrs->at("k").as_int();
    if (k == 1) return c->args[0];
    auto* inner = c->args[0].as<CallNode>();
    if (!inner || !inner->op.same_as(c->op)) return nullptr;
    return call("test.rw_scale", {inner->args[0]}, {{"k", k * inner->attrs->at("k").as_int()}});
  };
  reg.add(std::move(scale));
  OpDef pair;
  pair.name = "test.rw_pair";
  pair.inputs = {{"data", "Tensor", "input"}};
  pair.relation = [](std::span<const Type> args, const Attrs&) -> Type { return tuple_type({args[0], args[0]}); };
  pair.rewrites[kRewrite] = [](const Call& c) -> Expr {
    return tuple({call("test.relu", {c->args[0]}), get_item(c, 1)});
  };
  reg.add(std::move(pair));
  // Rewrites that break the driver's rules, each under its own name.
  OpDef bad;
  bad.name = "test.rw_misbehaving";
  bad.inputs = {{"data", "Tensor", "input"}};
  bad.relation = same_type;
  bad.rewrites["shape_changing"] = [](const Call&) -> Expr { return constant(Tensor::zeros({3}, DataType::Float(32))); };
  bad.rewrites["endless"] = [](const Call& c) -> Expr { return call("test.rw_misbehaving", {c->args[0]}); };
  bad.rewrites["ill_typed"] = [](const Call& c) -> Expr {
    return call("test.add", {c->args[0], constant(Tensor::zeros({3, 2}, DataType::Float(32)))});
  };
  reg.add(std::move(bad));
}

class CallRewritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::register_test_ops();
    register_rewrite_ops();
  }
};

TensorType t23() { return tensor_type({2, 3}); }
Expr scale(Expr e, int64_t k) { return call("test.rw_scale", {std::move(e)}, {{"k", k}}); }
Expr relu(Expr e) { return call("test.relu", {std::move(e)}); }

// The rewrite pass over `fn`, typed first, with the well-formedness check after it.
Function run_rewrites(const Function& fn) {
  PassContext ctx;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  PassContext::Scope scope(ctx);
  IRModule typed = InferType()(IRModule::from_function(fn));
  return create_call_rewrite_pass({"TestRewrite", 0, {}}, kRewrite)(typed).main();
}

// Compared with the expected function as InferType leaves it (annotations filled in).
void expect_equal(const Function& got, const Function& want) {
  Function typed_want = InferType()(IRModule::from_function(want)).main();
  EXPECT_TRUE(structural_equal(got, typed_want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(typed_want);
}

// Every node but ops has a checked type, and calls' types agree with a fresh InferType.
void expect_typed_as_infer_type_would(const Function& fn) {
  int untyped = 0;
  post_order_visit(fn, [&](const Expr& e) { untyped += e->kind != ExprKind::kOp && !e->has_type(); });
  EXPECT_EQ(untyped, 0);
  Function retyped = InferType()(IRModule::from_function(fn)).main();
  EXPECT_TRUE(type_equal(fn->body->checked_type(), retyped->body->checked_type()));
}

TEST_F(CallRewritesTest, RewritesArgumentsFirstAndRepeatsOnTheReplacement) {
  // scale(scale(relu(scale(scale(x, 2), 3)), -1), -1): the inner pair folds to
  // scale(x, 6); the outer pair folds to scale(relu(...), 1), which the
  // rewrite is offered again and turns into its argument.
  Var x = var("x", t23());
  Function out = run_rewrites(function({x}, scale(scale(relu(scale(scale(x, 2), 3)), -1), -1)));
  Var x2 = var("x", t23());
  expect_equal(out, function({x2}, relu(scale(x2, 6))));
  expect_typed_as_infer_type_would(out);
}

TEST_F(CallRewritesTest, SharedCallsAreRewrittenOnce) {
  Var x = var("x", t23());
  Expr shared = scale(scale(x, 2), 3);
  Function out = run_rewrites(function({x}, call("test.add", {shared, shared})));
  auto* add = out->body.as<CallNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->args[0].same_as(add->args[1]));
  Var x2 = var("x", t23());
  Expr folded = scale(x2, 6);
  expect_equal(out, function({x2}, call("test.add", {folded, folded})));
}

TEST_F(CallRewritesTest, ProjectionsOfARewrittenTupleBecomeItsFields) {
  // pair(x)[0] is relu(x), built by the rewrite; pair(x)[1] stays a
  // projection of the original call, as the rewrite asked.
  Var x = var("x", t23());
  Expr p = call("test.rw_pair", {x});
  Function out = run_rewrites(function({x}, call("test.add", {get_item(p, 0), get_item(p, 1)})));
  Var x2 = var("x", t23());
  expect_equal(out, function({x2}, call("test.add", {relu(x2), get_item(call("test.rw_pair", {x2}), 1)})));
  expect_typed_as_infer_type_would(out);
  // The node the rewrite built got its type from test.relu's relation.
  EXPECT_TRUE(type_equal(out->body.as<CallNode>()->args[0]->checked_type(), t23()));
}

TEST_F(CallRewritesTest, OpsWithoutTheRewriteAreLeftAsTheyAre) {
  Var x = var("x", t23());
  Function fn = function({x}, relu(relu(x)));
  IRModule typed = InferType()(IRModule::from_function(fn));
  EXPECT_TRUE(rewrite_calls(typed.main(), kRewrite, "TestRewrite").same_as(typed.main()));
  // Another rewrite name: scale's is not asked for.
  Function scaled = InferType()(IRModule::from_function(function({x}, scale(x, 1)))).main();
  EXPECT_TRUE(rewrite_calls(scaled, "other", "TestRewrite").same_as(scaled));
}

TEST_F(CallRewritesTest, UntypedProgramIsAnErrorNamingThePass) {
  Var x = var("x", t23());
  Function fn = function({x}, scale(x, 1));
  try {
    rewrite_calls(fn, kRewrite, "TestRewrite");
    FAIL() << "the program is untyped";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("TestRewrite needs a typed program (run InferType first)"));
    EXPECT_THAT(e.what(), HasSubstr("test.rw_scale(%x"));
  }
}

TEST_F(CallRewritesTest, MisbehavingRewritesAreErrorsNamingOpAndRewrite) {
  Var x = var("x", t23());
  Function fn = InferType()(IRModule::from_function(function({x}, call("test.rw_misbehaving", {x})))).main();
  auto message = [&](const char* rewrite) -> std::string {
    try {
      rewrite_calls(fn, rewrite, "TestRewrite");
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_THAT(message("shape_changing"),
              HasSubstr("op test.rw_misbehaving: rewrite 'shape_changing' changed the call's type from "
                        "Tensor[(2, 3), float32] to Tensor[(3), float32]"));
  EXPECT_THAT(message("endless"), HasSubstr("op test.rw_misbehaving: rewrite 'endless' rewrote a call 1000 times"));
  EXPECT_THAT(message("ill_typed"),
              HasSubstr("op test.rw_misbehaving: rewrite 'ill_typed' built an expression that does not type-check"));
}

TEST_F(CallRewritesTest, A100000CallChainFoldsWithoutRecursion) {
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kLength = 100000;
    Var x = var("x", t23());
    Expr e = x;
    for (int i = 0; i < kLength; ++i) e = scale(e, -1);
    Function out = run_rewrites(function({x}, relu(e)));  // (-1)^100000 = 1: the chain vanishes
    EXPECT_TRUE(out->body.as<CallNode>()->args[0].same_as(out->params[0]));
  });
}

}  // namespace
}  // namespace weft
