// Visitors and mutators: memoized over DAGs, iterative on deep chains.
#include <gtest/gtest.h>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/functor.h"
#include "weft/structural.h"
#include "weft/tensor.h"

namespace weft {
namespace {

class FunctorTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

Expr relu_chain(Expr x, int n) {
  for (int i = 0; i < n; ++i) x = call("test.relu", {x});
  return x;
}

struct CallCounter : ExprVisitor {
  std::vector<const ExprNode*> calls;
  int vars = 0, ops = 0;
  void visit_call(const Call& c) override { calls.push_back(c.get()); }
  void visit_var(const Var&) override { ++vars; }
  void visit_op(const Op&) override { ++ops; }
};

TEST_F(FunctorTest, VisitorHandlesEachSharedNodeOnceChildrenFirst) {
  Var x = var("x");
  Expr r = call("test.relu", {x});
  Expr a = call("test.add", {r, r});  // r shared
  CallCounter v;
  v.visit(a);
  EXPECT_EQ(v.calls, (std::vector<const ExprNode*>{r.get(), a.get()}));
  EXPECT_EQ(v.vars, 1);
  EXPECT_EQ(v.ops, 2);
  v.visit(a);  // memoized: nothing new
  EXPECT_EQ(v.calls.size(), 2u);
}

TEST_F(FunctorTest, PostOrderVisitFollowsEvaluationOrder) {
  Var x = var("x"), y = var("y");
  Expr body = call("test.add", {y, x});
  Function f = function({x, y}, body);
  std::vector<const ExprNode*> order;
  post_order_visit(f, [&](const Expr& e) { order.push_back(e.get()); });
  std::vector<const ExprNode*> want{x.get(), y.get(), op("test.add").get(), body.get(), f.get()};
  EXPECT_EQ(order, want);
}

TEST_F(FunctorTest, LetVisitsVarThenValueThenBody) {
  Var x = var("x"), v = var("v");
  Expr value = call("test.relu", {x});
  Expr body = call("test.add", {v, v});
  Expr l = let(v, value, body);
  std::vector<ExprKind> kinds;
  post_order_visit(l, [&](const Expr& e) { kinds.push_back(e->kind); });
  std::vector<ExprKind> want{ExprKind::kVar,  ExprKind::kOp, ExprKind::kVar, ExprKind::kCall,
                             ExprKind::kOp,   ExprKind::kCall, ExprKind::kLet};
  EXPECT_EQ(kinds, want);  // v, relu, x, relu(x), add, add(v, v), let
}

TEST_F(FunctorTest, VisitorWalksA100000CallChainWithoutDeepRecursion) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x");
    Expr chain = relu_chain(x, 100000);
    CallCounter v;
    v.visit(chain);
    EXPECT_EQ(v.calls.size(), 100000u);
    EXPECT_EQ(v.ops, 1);  // the one shared test.relu Op node
  });
}

// Renames test.relu to test.add(x, x).
struct ReluToAdd : ExprMutator {
  Expr visit_call(const Call& c) override {
    Expr rebuilt = ExprMutator::visit_call(c);
    auto call_node = downcast<CallNode>(rebuilt);
    if (downcast<OpNode>(call_node->op) && downcast<OpNode>(call_node->op)->name() == "test.relu")
      return call("test.add", {call_node->args[0], call_node->args[0]});
    return rebuilt;
  }
};

TEST_F(FunctorTest, IdentityMutatorReturnsTheSameGraph) {
  Var x = var("x");
  Expr r = call("test.relu", {x});
  Expr e = function({x}, tuple({get_item(tuple({r, r}), 0), let(var("y"), r, x)}));
  ExprMutator m;
  EXPECT_TRUE(m.mutate(e).same_as(e));
}

TEST_F(FunctorTest, MutatorRebuildsOnlyChangedPathsAndKeepsSharing) {
  Var x = var("x");
  Expr untouched = call("test.add", {x, x});
  Expr r = call("test.relu", {x});
  Expr e = tuple({untouched, call("test.add", {r, r})});
  ReluToAdd m;
  auto out = downcast<TupleNode>(m.mutate(e));
  ASSERT_TRUE(out.defined());
  EXPECT_FALSE(Expr(out).same_as(e));
  EXPECT_TRUE(out->fields[0].same_as(untouched));  // unchanged subgraph kept
  auto add = downcast<CallNode>(out->fields[1]);
  EXPECT_TRUE(add->args[0].same_as(add->args[1]));  // the shared node was rewritten once
  Expr expected = tuple({call("test.add", {x, x}), call("test.add", {call("test.add", {x, x}), call("test.add", {x, x})})});
  EXPECT_TRUE(structural_equal(out, expected));
}

TEST_F(FunctorTest, RebuiltNodesKeepTheirSpanButNotTheirTypeCache) {
  Var x = var("x");
  Tuple wrapper = tuple({call("test.relu", {x})});
  const_cast<TupleNode&>(*wrapper).span = std::make_shared<SourceLoc>(SourceLoc{"m.relay", 7, 1});
  wrapper->set_checked_type(tuple_type({tensor_type({1})}));
  Expr rebuilt = ReluToAdd().mutate(wrapper);  // the default visit_tuple rebuilds the wrapper
  ASSERT_FALSE(rebuilt.same_as(wrapper));
  ASSERT_TRUE(rebuilt->span);
  EXPECT_EQ(rebuilt->span->line, 7);
  EXPECT_FALSE(rebuilt->has_type());
}

TEST_F(FunctorTest, RebuiltNodesAreOwnedOnlyByTheirHolders) {
  Var x = var("x");
  Expr out;
  {
    ReluToAdd m;
    out = m.mutate(tuple({call("test.relu", {x})}));
  }
  // Once the mutator (and its memo) is gone, the result has exactly one owner:
  // a leaked reference here would keep whole rewritten graphs alive.
  EXPECT_EQ(out->use_count(), 1);
  EXPECT_EQ(downcast<TupleNode>(out)->fields[0]->use_count(), 1);
}

TEST_F(FunctorTest, MutatorCanRenameBindingVars) {
  Var x = var("x"), y = var("y"), x2 = var("x2");
  struct Rename : ExprMutator {
    Var from, to;
    Expr visit_var(const Var& v) override { return v.same_as(from) ? Expr(to) : Expr(v); }
  } m;
  m.from = x;
  m.to = x2;
  Expr l = let(x, y, call("test.relu", {x}));
  auto out = downcast<LetNode>(m.mutate(l));
  EXPECT_TRUE(out->var.same_as(x2));
  EXPECT_TRUE(downcast<CallNode>(out->body)->args[0].same_as(x2));
}

TEST_F(FunctorTest, SubstituteVarsReplacesUsesAndKeepsTheRestShared) {
  // Relay's Bind: x becomes a constant, y another var; z and the subgraph over it stay.
  Var x = var("x"), y = var("y"), z = var("z"), y2 = var("y2");
  Expr untouched = call("test.relu", {z});
  Expr e = tuple({call("test.add", {x, y}), untouched, x});
  Tensor one = Tensor::empty({1}, DataType::Float(32));
  one.data_as<float>()[0] = 1;
  Constant c = constant(one);
  auto out = downcast<TupleNode>(substitute_vars(e, {{x.get(), c}, {y.get(), y2}}));
  auto add = downcast<CallNode>(out->fields[0]);
  EXPECT_TRUE(add->args[0].same_as(c));
  EXPECT_TRUE(add->args[1].same_as(y2));
  EXPECT_TRUE(out->fields[1].same_as(untouched));
  EXPECT_TRUE(out->fields[2].same_as(c));  // every use, once
  EXPECT_TRUE(substitute_vars(e, {}).same_as(e));
}

TEST_F(FunctorTest, MappingABindingVarToANonVarIsABug) {
  Var x = var("x");
  struct Bad : ExprMutator {
    Expr visit_var(const Var&) override { return global_var("g"); }
  } m;
  EXPECT_THROW(m.mutate(function({x}, x)), InternalError);
}

TEST_F(FunctorTest, MutatorRewritesA100000CallChainWithoutDeepRecursion) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x");
    Expr chain = relu_chain(x, 100000);
    ReluToAdd m;
    Expr out = m.mutate(chain);
    auto top = downcast<CallNode>(out);
    ASSERT_TRUE(top.defined());
    EXPECT_EQ(downcast<OpNode>(top->op)->name(), "test.add");
    EXPECT_TRUE(top->args[0].same_as(top->args[1]));
  });
}

struct DepthCounter : ExprFunctor<int> {
  int visit_var(const Var&) override { return 0; }
  int visit_global_var(const GlobalVar&) override { return 0; }
  int visit_constant(const Constant&) override { return 0; }
  int visit_op(const Op&) override { return 0; }
  int visit_call(const Call& c) override {
    int d = 0;
    for (auto& a : c->args) d = std::max(d, visit(a));
    return d + 1;
  }
  int visit_function(const Function& f) override { return visit(f->body); }
  int visit_tuple(const Tuple&) override { return 0; }
  int visit_tuple_get_item(const TupleGetItem&) override { return 0; }
  int visit_let(const Let&) override { return 0; }
  int visit_if(const If&) override { return 0; }
};

TEST_F(FunctorTest, FunctorResultsAreMemoizedAndShallow) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x");
    DepthCounter d;
    EXPECT_EQ(d.visit(relu_chain(x, 100000)), 100000);
  });
}

}  // namespace
}  // namespace weft
