// The core passes on 100,000-node graphs, run on a small stack so that any
// per-node recursion crashes instead of passing by luck.
#include <gtest/gtest.h>

#include <vector>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/functor.h"
#include "weft/passes.h"
#include "weft/structural.h"

namespace weft {
namespace {

constexpr int kLength = 100000;

class DeepGraphTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

TensorType t23() { return tensor_type({2, 3}); }
Expr relu(Expr e) { return call("test.relu", {std::move(e)}); }

// fn (%x) { relu(relu(...relu(%x))) } with n relus.
Function call_chain(int n) {
  Var x = var("x", t23());
  Expr e = x;
  for (int i = 0; i < n; ++i) e = relu(e);
  return function({x}, e);
}

// fn (%x) { let %v0 = relu(%x); let %v1 = relu(%v0); ... %v(n-1) }, unannotated;
// when `dead_every_other`, each binding is followed by an unused one.
Function let_chain(int n, bool dead_every_other = false) {
  Var x = var("x", t23());
  std::vector<Var> vars;
  std::vector<Expr> values;
  Expr prev = x;
  for (int i = 0; i < n; ++i) {
    vars.push_back(var("v" + std::to_string(i)));
    values.push_back(relu(prev));
    prev = vars.back();
    if (dead_every_other) {
      vars.push_back(var("dead" + std::to_string(i)));
      values.push_back(relu(x));
    }
  }
  Expr body = prev;
  for (size_t i = vars.size(); i-- > 0;) body = let(vars[i], values[i], body);
  return function({x}, body);
}

TEST_F(DeepGraphTest, InferTypeTypesA100000CallChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    IRModule typed = InferType()(IRModule::from_function(call_chain(kLength)));
    Function main = typed.main();
    EXPECT_TRUE(type_equal(main->ret_type, t23()));
    int typed_calls = 0;
    post_order_visit(main, [&](const Expr& e) {
      if (e->kind == ExprKind::kCall && e->has_type() && type_equal(e->checked_type(), t23())) ++typed_calls;
    });
    EXPECT_EQ(typed_calls, kLength);
  });
}

TEST_F(DeepGraphTest, InferTypeAnnotatesA100000LetChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Function typed = downcast<FunctionNode>(infer_type(Expr(let_chain(kLength))));
    int annotated = 0;
    Expr e = typed->body;
    while (auto* l = e.as<LetNode>()) {
      if (l->var->type_annotation && type_equal(l->var->type_annotation, t23())) ++annotated;
      e = l->body;
    }
    EXPECT_EQ(annotated, kLength);
  });
}

TEST_F(DeepGraphTest, InferTypeReportsAMismatchAtTheEndOfA100000Chain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Function chain = call_chain(kLength);
    Var y = var("y", tensor_type({3, 2}));
    Function bad = function({chain->params[0], y}, call("test.add", {chain->body, y}));
    try {
      infer_type(Expr(bad));
      FAIL() << "shapes differ";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("test.add(test.relu(...), %y)"), std::string::npos) << e.what();
    }
  });
}

TEST_F(DeepGraphTest, WellFormedCheckWalksA100000LetChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Function fn = let_chain(kLength);
    EXPECT_EQ(well_formed_violation(IRModule::from_function(fn)), std::nullopt);
    // The first variable used once more, outside every let.
    Var first = fn->body.as<LetNode>()->var;
    Function bad = function(fn->params, tuple({fn->body, first}));
    EXPECT_EQ(well_formed_violation(bad), "variable %v0 is used outside the scope that binds it");
  });
}

TEST_F(DeepGraphTest, DeadCodeEliminationClearsA100000LetChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    // 100,000 bindings, every other one dead.
    IRModule out = DeadCodeElimination()(IRModule::from_function(let_chain(kLength / 2, /*dead_every_other=*/true)));
    EXPECT_TRUE(structural_equal(out.main(), let_chain(kLength / 2)));
    // With the result unused, the whole chain goes.
    Function chain = let_chain(kLength);
    Function unused = function(chain->params, let(var("all"), chain->body, chain->params[0]));
    IRModule cleared = DeadCodeElimination()(IRModule::from_function(unused));
    EXPECT_TRUE(cleared.main()->body.same_as(chain->params[0]));
  });
}

TEST_F(DeepGraphTest, CommonSubexprMergesAlongA100000NodeChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    // e(i+1) = add(relu(e(i)), relu(e(i))), 33,333 steps of 3 nodes.
    Var x = var("x", t23());
    Expr e = x;
    for (int i = 0; i < kLength / 3; ++i) e = call("test.add", {relu(e), relu(e)});
    IRModule out = EliminateCommonSubexpr()(IRModule::from_function(function({x}, e)));
    int merged = 0;
    post_order_visit(out.main(), [&](const Expr& n) {
      auto* c = n.as<CallNode>();
      if (c && c->args.size() == 2 && c->args[0].same_as(c->args[1])) ++merged;
    });
    EXPECT_EQ(merged, kLength / 3);
  });
}

TEST_F(DeepGraphTest, RemoveUnusedFunctionsFindsAGlobalAtTheBottomOfA100000Chain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x", t23());
    Expr e = call_function(global_var("leaf"), {x});
    for (int i = 0; i < kLength; ++i) e = relu(e);
    IRModule mod = IRModule::from_function(function({x}, e));
    Var y = var("y", t23());
    mod.add("leaf", function({y}, y));
    mod.add("unused", function({y}, y));
    IRModule out = RemoveUnusedFunctions()(mod);
    EXPECT_TRUE(out.contains("leaf"));
    EXPECT_FALSE(out.contains("unused"));
  });
}

TEST_F(DeepGraphTest, BindParamsSubstitutesAtTheBottomOfA100000Chain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Function chain = call_chain(kLength);
    Var w = var("w", t23());
    Function fn = function({chain->params[0], w}, call("test.add", {chain->body, w}));
    Tensor value = Tensor::zeros({2, 3}, DataType::Float(32));
    Function bound = bind_params(fn, {{"x", value}});
    ASSERT_EQ(bound->params.size(), 1u);
    int constants = 0;
    post_order_visit(bound, [&](const Expr& e) { constants += e->kind == ExprKind::kConstant; });
    EXPECT_EQ(constants, 1);
    EXPECT_EQ(well_formed_violation(bound), std::nullopt);
  });
}

// The functions `fn` calls directly, in call order.
std::vector<Function> called_functions(const Function& fn) {
  std::vector<Function> out;
  post_order_visit(fn->body, [&](const Expr& e) {
    auto* c = e.as<CallNode>();
    if (c && c->op->kind == ExprKind::kFunction) out.push_back(downcast<FunctionNode>(c->op));
  });
  return out;
}

TEST_F(DeepGraphTest, FuseOpsCutsA100000ReluChainIntoFunctionsOfTheMaxDepth) {
  testing::run_with_stack(testing::kSmallStack, [] {
    IRModule typed = InferType()(IRModule::from_function(call_chain(kLength)));
    PassContext ctx;
    ctx.opt_level = 2;
    PassContext::Scope scope(ctx);
    std::vector<Function> fused = called_functions(FuseOps()(typed).main());
    // Relay's default relay.FuseOps.max_depth, 256: 390 full functions, then the rest.
    ASSERT_EQ(fused.size(), 391u);
    for (size_t i = 0; i < fused.size(); ++i) {
      int relus = 0;
      post_order_visit(fused[i]->body, [&](const Expr& e) { relus += e->kind == ExprKind::kCall; });
      EXPECT_EQ(relus, i + 1 < fused.size() ? 256 : kLength - 390 * 256) << i;
    }
  });
}

TEST_F(DeepGraphTest, FuseOpsKeepsEachOfA100000LetBindingsAlone) {
  testing::run_with_stack(testing::kSmallStack, [] {
    IRModule typed = InferType()(IRModule::from_function(let_chain(kLength)));
    Function out = FuseOps(2)(typed).main();
    int bound_calls = 0;
    Expr e = out->body;
    while (auto* l = e.as<LetNode>()) {
      auto* c = l->value.as<CallNode>();
      bound_calls += c && c->op->kind == ExprKind::kFunction;
      e = l->body;
    }
    EXPECT_EQ(bound_calls, kLength);
  });
}

// Each of 50,000 relus of x feeds both the next add of a 50,000-long chain and
// the result tuple: walking up the post-dominator tree one node at a time
// would take 50,000 steps for each relu. The relus cannot fuse into the tuple;
// the adds fuse along the chain.
TEST_F(DeepGraphTest, FuseOpsFindsPostDominatorsOfAWideCombInLogarithmicSteps) {
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kTeeth = kLength / 2;
    Var x = var("x", t23());
    std::vector<Expr> fields{Expr()};
    Expr chain = x;
    for (int i = 0; i < kTeeth; ++i) {
      Expr tooth = relu(x);
      chain = call("test.add", {chain, tooth});
      fields.push_back(tooth);
    }
    fields[0] = chain;
    IRModule typed = InferType()(IRModule::from_function(function({x}, tuple(fields))));
    Function out = FuseOps(2)(typed).main();
    std::vector<Function> fused = called_functions(out);
    // One function per relu, and the adds in functions of 256 (the first
    // add's left operand is x, a parameter).
    EXPECT_EQ(fused.size(), static_cast<size_t>(kTeeth + (kTeeth + 255) / 256));
    auto* result = out->body.as<TupleNode>();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->fields.size(), static_cast<size_t>(kTeeth + 1));
  });
}

TEST_F(DeepGraphTest, NormalFormsRoundTripA100000CallChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Function chain = call_chain(kLength);
    IRModule anf = ToANormalForm()(IRModule::from_function(chain));
    int lets = 0;
    for (Expr e = anf.main()->body; auto* l = e.as<LetNode>(); e = l->body) ++lets;
    EXPECT_EQ(lets, kLength);
    IRModule gnf = ToGraphNormalForm()(anf);
    EXPECT_TRUE(structural_equal(gnf.main(), chain));
    // A let chain, too, becomes the call chain.
    EXPECT_TRUE(structural_equal(ToGraphNormalForm()(IRModule::from_function(let_chain(kLength))).main(), chain));
  });
}

// A visitor and a mutator over a 100,000-binding let chain (the IR suite covers
// call chains).
struct LetCounter : ExprVisitor {
  int lets = 0;
  void visit_let(const Let&) override { ++lets; }
};

struct ReluToAdd : ExprMutator {
  Expr visit_call(const Call& c) override {
    Expr r = ExprMutator::visit_call(c);
    auto* call_node = r.as<CallNode>();
    if (call_node->op.same_as(op("test.relu"))) return call("test.add", {call_node->args[0], call_node->args[0]});
    return r;
  }
};

TEST_F(DeepGraphTest, VisitorAndMutatorHandleA100000LetChain) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Function fn = let_chain(kLength);
    LetCounter counter;
    counter.visit(fn);
    EXPECT_EQ(counter.lets, kLength);
    Expr rewritten = ReluToAdd().mutate(fn);
    int adds = 0;
    post_order_visit(rewritten, [&](const Expr& e) {
      if (auto* c = e.as<CallNode>(); c && c->op.same_as(op("test.add"))) ++adds;
    });
    EXPECT_EQ(adds, kLength);
    EXPECT_EQ(well_formed_violation(rewritten), std::nullopt);
  });
}

TEST_F(DeepGraphTest, FoldConstantFoldsA100000CallChainAndLetChainOfConstants) {
  testing::run_with_stack(testing::kSmallStack, [] {
    // add(...add(add(ones, ones), ones)..., ones): every element is kLength + 1.
    Tensor ones = Tensor::zeros({2, 3}, DataType::Float(32));
    for (int i = 0; i < 6; ++i) ones.data_as<float>()[i] = 1;
    Expr one = constant(ones);
    Expr e = one;
    for (int i = 0; i < kLength; ++i) e = call("test.add", {e, one});
    Function folded = FoldConstant()(IRModule::from_function(function({}, e))).main();
    auto* c = folded->body.as<ConstantNode>();
    ASSERT_TRUE(c);
    EXPECT_EQ(c->data.data_as<float>()[5], kLength + 1.0f);
    // let %v0 = add(ones, ones); let %v1 = add(%v0, ones); ... %v(n-1): all
    // bindings inlined, one constant left.
    std::vector<Var> vars;
    for (int i = 0; i < kLength; ++i) vars.push_back(var("v" + std::to_string(i)));
    Expr body = vars.back();
    for (int i = kLength; i-- > 0;) body = let(vars[i], call("test.add", {i == 0 ? one : Expr(vars[i - 1]), one}), body);
    Function lets = FoldConstant()(IRModule::from_function(function({}, body))).main();
    auto* lc = lets->body.as<ConstantNode>();
    ASSERT_TRUE(lc);
    EXPECT_EQ(lc->data.data_as<float>()[0], kLength + 1.0f);
  });
}

}  // namespace
}  // namespace weft
