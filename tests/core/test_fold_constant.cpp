// FoldConstant: op calls on constants become their values (hand-worked here),
// projections of literal tuples and let-bound constants fold away, and what
// Relay's folder leaves alone stays. The situations are those of the
// reference's test_pass_fold_constant.py; every run checks well-formedness.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "support/op_test.h"
#include "test_ops.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {
namespace {

using testing::elements;
using testing::f32;
using testing::tensor_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FoldConstantTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

IRModule fold(const IRModule& mod, const PassContext& ctx = PassContext()) {
  PassContext checked = ctx;
  checked.instruments.push_back(std::make_shared<WellFormedInstrument>());
  return FoldConstant()(mod, checked);
}

Function fold(const Function& fn) { return fold(IRModule::from_function(fn)).main(); }

Function parse_main(const std::string& text) { return parse_module(text).main(); }

void expect_equal(const Expr& got, const Expr& want) {
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
}

// Folds `in` (Relay text) and compares with `want` (Relay text).
void expect_folds_to(const std::string& in, const std::string& want) {
  expect_equal(fold(parse_main(in)), parse_main(want));
}

const Tensor& constant_data(const Expr& e) {
  auto* c = e.as<ConstantNode>();
  if (!c) throw std::runtime_error("not a constant: " + to_text(e));
  return c->data;
}

TEST_F(FoldConstantTest, AnArithmeticChainOnConstantsBecomesItsValue) {
  // (1 + 2) * 3 = 9, then x + 9 stays a call.
  expect_folds_to(R"(def @main(%x: Tensor[(2), float32]) {
    %0 = add(1f, 2f);
    %1 = multiply(%0, 3f);
    add(%x, %1)
  })",
                  R"(def @main(%x: Tensor[(2), float32]) { add(%x, 9f) })");
}

TEST_F(FoldConstantTest, TheFoldedCallsAreCountedInTheStatistics) {
  // add(1, 2) and multiply(3, 3) fold; add(%x, 9) does not; over two functions.
  IRModule mod = parse_module(R"(def @main(%x: Tensor[(2), float32]) {
    %0 = add(1f, 2f);
    add(%x, multiply(%0, %0))
  }
  def @other() { negative(1f) })");
  PassContext ctx;
  fold(mod, ctx);
  EXPECT_EQ(ctx.statistics()["FoldConstant"]["folded calls"], 3);
}

TEST_F(FoldConstantTest, OnlyTheConstantPartOfAPartlyConstantGraphFolds) {
  // The reference's test_fold_const: c = [1, 2, 3]; add(x, c + 1) * (c + 1) with
  // c + 1 = [2, 3, 4] folded once and shared.
  Var x = var("x", tensor_type({3}));
  Expr c1 = call("add", {constant(tensor_of({1, 2, 3}, {3})), constant(Tensor::scalar(1, f32))});
  Function out = fold(function({x}, call("multiply", {call("add", {x, c1}), c1})));
  auto* mul = out->body.as<CallNode>();
  ASSERT_TRUE(mul);
  EXPECT_THAT(elements(constant_data(mul->args[1])), ElementsAre(2, 3, 4));
  auto* add = mul->args[0].as<CallNode>();
  ASSERT_TRUE(add);
  EXPECT_TRUE(add->args[0].same_as(out->params[0]));
  EXPECT_TRUE(add->args[1].same_as(mul->args[1]));  // folded once, still one node
}

TEST_F(FoldConstantTest, ShapeOpsOnAConstantFoldToTheMovedValues) {
  // transpose([[1, 2, 3], [4, 5, 6]]) = [[1, 4], [2, 5], [3, 6]], reshaped to
  // (6) and expanded to (1, 6); cast to int32 truncates 2.5 to 2.
  Expr m = constant(tensor_of({1, 2, 3, 4, 5, 6}, {2, 3}));
  Expr moved = call("expand_dims", {call("reshape", {call("transpose", {m}), }, {{"newshape", testing::ints({6})}})},
                    {{"axis", 0}});
  Function out = fold(function({}, moved));
  const Tensor& t = constant_data(out->body);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{1, 6}));
  EXPECT_THAT(elements(t), ElementsAre(1, 4, 2, 5, 3, 6));
  Function cast = fold(function({}, call("cast", {constant(tensor_of({2.5, -1}, {2}))}, {{"dtype", DataType::Int(32)}})));
  EXPECT_EQ(constant_data(cast->body).dtype(), DataType::Int(32));
  EXPECT_THAT(elements(constant_data(cast->body)), ElementsAre(2, -1));
}

TEST_F(FoldConstantTest, ATupleOutputBecomesATupleOfConstants) {
  // split([1, 2, 3, 4], 2) = ([1, 2], [3, 4]).
  Function out = fold(function({}, call("split", {constant(tensor_of({1, 2, 3, 4}, {4}))}, {{"indices_or_sections", 2}})));
  auto* t = out->body.as<TupleNode>();
  ASSERT_TRUE(t) << to_text(out);
  ASSERT_EQ(t->fields.size(), 2u);
  EXPECT_THAT(elements(constant_data(t->fields[0])), ElementsAre(1, 2));
  EXPECT_THAT(elements(constant_data(t->fields[1])), ElementsAre(3, 4));
}

TEST_F(FoldConstantTest, AProjectionOfAConstantTupleFoldsAndFeedsTheNextFold) {
  // split(...).1 is [3, 4]; [3, 4] * 2 = [6, 8]; a tuple of constants passed
  // to concatenate folds as an argument: concat([6, 8], [1, 2]) = [6, 8, 1, 2].
  Expr parts = call("split", {constant(tensor_of({1, 2, 3, 4}, {4}))}, {{"indices_or_sections", 2}});
  Expr doubled = call("multiply", {get_item(parts, 1), constant(Tensor::scalar(2, f32))});
  Function out = fold(function({}, call("concatenate", {tuple({doubled, get_item(parts, 0)})})));
  EXPECT_THAT(elements(constant_data(out->body)), ElementsAre(6, 8, 1, 2));
}

TEST_F(FoldConstantTest, AProjectionOfALiteralTupleIsThatField) {
  // As Relay: (x, 1f).0 is x whether or not the tuple is constant.
  expect_folds_to(R"(def @main(%x: Tensor[(2), float32]) { %0 = (%x, add(1f, 1f)); add(%0.0, %0.1) })",
                  R"(def @main(%x: Tensor[(2), float32]) { add(%x, 2f) })");
}

TEST_F(FoldConstantTest, LetBoundConstantsAreInlinedAndTheirBindingsDropped) {
  // %a = 1 + 2 = 3, %b aliases %a; %c is not constant and stays bound.
  expect_folds_to(R"(def @main(%x: Tensor[(2), float32]) {
    let %a = add(1f, 2f);
    let %b = %a;
    let %c = add(%x, %b);
    multiply(%c, %a)
  })",
                  R"(def @main(%x: Tensor[(2), float32]) {
    let %c = add(%x, 3f);
    multiply(%c, 3f)
  })");
}

TEST_F(FoldConstantTest, AnIfOnAConstantConditionIsTheBranchTaken) {
  expect_folds_to(R"(def @main(%x: Tensor[(2), float32]) {
    if (greater(2f, 1f)) { add(%x, 1f) } else { %x }
  })",
                  R"(def @main(%x: Tensor[(2), float32]) { add(%x, 1f) })");
}

TEST_F(FoldConstantTest, FoldsInsideClosuresButNotTheirCalls) {
  // The closure's body folds; calling it with constants is not evaluated.
  expect_folds_to(R"(def @main() {
    %0 = fn (%p: float32) { multiply(%p, add(1f, 1f)) };
    %0(3f)
  })",
                  R"(def @main() {
    %0 = fn (%p: float32) { multiply(%p, 2f) };
    %0(3f)
  })");
}

TEST_F(FoldConstantTest, CallsWithoutArgumentsStay) {
  // Relay's heuristic: folding zeros(shape=[2]) would only grow the program.
  const std::string text = R"(def @main() { zeros(shape=[2], dtype="float32") })";
  expect_folds_to(text, text);
}

TEST_F(FoldConstantTest, AnOpWithoutAReferenceKernelStays) {
  // test.conv has a relation but no kernel: its call stays, its folded input changes.
  Expr data = constant(Tensor::zeros({1, 1, 2, 2}, f32));
  Expr weight = call("test.add", {constant(Tensor::zeros({1, 1, 1, 1}, f32)), constant(Tensor::zeros({1, 1, 1, 1}, f32))});
  Function out = fold(function({}, call("test.conv", {data, weight})));
  auto* conv = out->body.as<CallNode>();
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->op.as<OpNode>()->name(), "test.conv");
  EXPECT_EQ(conv->args[1]->kind, ExprKind::kConstant);
}

TEST_F(FoldConstantTest, NothingInsideAPrimitiveFunctionChanges) {
  Var p = var("p", tensor_type({2}));
  Expr inner = call("add", {p, call("add", {constant(Tensor::scalar(1, f32)), constant(Tensor::scalar(2, f32))})});
  Function primitive = function({p}, inner, nullptr, make_attrs({{"Primitive", AttrValue(int64_t{1})}}));
  Var x = var("x", tensor_type({2}));
  Function in = function({x}, call_function(primitive, {x}));
  Function out = fold(in);
  EXPECT_TRUE(out.same_as(in)) << to_text(out);
}

TEST_F(FoldConstantTest, AnUntypedProgramFoldsWithoutInferType) {
  // Nothing is annotated or inferred; constants carry their own types.
  Var x = var("x");
  Function in = function({x}, call("add", {x, call("negative", {constant(tensor_of({1, -2}, {2}))})}));
  Function out = fold(in);
  auto* add = out->body.as<CallNode>();
  ASSERT_TRUE(add);
  EXPECT_THAT(elements(constant_data(add->args[1])), ElementsAre(-1, 2));
}

TEST_F(FoldConstantTest, AnIllTypedConstantCallIsAnErrorNamingTheOpAndThePass) {
  Function in = function({}, call("add", {constant(Tensor::zeros({2}, f32)), constant(Tensor::zeros({3}, f32))}));
  std::string msg = testing::error_of([&] { fold(in); });
  EXPECT_THAT(msg, HasSubstr("add"));
  EXPECT_THAT(msg, HasSubstr("FoldConstant"));
}

TEST_F(FoldConstantTest, ANonConstantProgramComesBackUnchanged) {
  Var x = var("x", tensor_type({2}));
  Function in = function({x}, call("add", {x, x}));
  EXPECT_TRUE(fold(in).same_as(in));
}

TEST_F(FoldConstantTest, RegisteredByNameAtTheReferencesOptLevel) {
  Pass p = PassRegistry::global().create("FoldConstant");
  EXPECT_EQ(p.info().name, "FoldConstant");
  EXPECT_EQ(p.info().opt_level, 2);  // CreateFunctionPass(..., 2, "FoldConstant", {})
  EXPECT_TRUE(p.info().required.empty());
}


// PassContext::reuse_constant_storage: an elementwise fold is written over a
// constant argument only where nothing else can read that argument.
class FoldConstantStorageTest : public FoldConstantTest {
 protected:
  static PassContext reusing() {
    PassContext ctx;
    ctx.reuse_constant_storage = true;
    return ctx;
  }
  // The folded body of main, folded with or without the leave.
  static const Tensor& folded(const Function& fn, bool reuse) {
    static IRModule kept;  // keeps the result alive for the caller
    kept = fold(IRModule::from_function(fn), reuse ? reusing() : PassContext());
    return constant_data(kept.main()->body);
  }
};

TEST_F(FoldConstantStorageTest, AScaledWeightIsWrittenOverTheWeightItReplaces) {
  // [[1, 2], [3, 4]] * [[10], [100]] = [[10, 20], [300, 400]], computed into
  // the weight's own storage: no second copy of the weight exists.
  Expr weight = constant(tensor_of({1, 2, 3, 4}, {2, 2}));
  const void* weight_bytes = weight.as<ConstantNode>()->data.data();
  const Tensor& out = folded(function({}, call("multiply", {weight, constant(tensor_of({10, 100}, {2, 1}))})), true);
  EXPECT_EQ(out.data(), weight_bytes);
  EXPECT_THAT(elements(out), ElementsAre(10, 20, 300, 400));
}

TEST_F(FoldConstantStorageTest, WithoutTheLeaveTheWeightIsLeftAsItWas) {
  Expr weight = constant(tensor_of({1, 2, 3, 4}, {2, 2}));
  const Tensor& out = folded(function({}, call("multiply", {weight, constant(tensor_of({10, 100}, {2, 1}))})), false);
  EXPECT_NE(out.data(), weight.as<ConstantNode>()->data.data());
  EXPECT_THAT(elements(out), ElementsAre(10, 20, 300, 400));
  EXPECT_THAT(elements(weight.as<ConstantNode>()->data), ElementsAre(1, 2, 3, 4));
}

TEST_F(FoldConstantStorageTest, ATensorTheCallerStillHoldsIsNeverWritten) {
  Tensor held = tensor_of({1, 2}, {2});
  const Tensor& out = folded(function({}, call("multiply", {constant(held), constant(Tensor::scalar(3, f32))})), true);
  EXPECT_THAT(elements(out), ElementsAre(3, 6));
  EXPECT_THAT(elements(held), ElementsAre(1, 2));
}

TEST_F(FoldConstantStorageTest, MemoryLentThroughDLPackIsNeverWritten) {
  Tensor lent = tensor_of({1, 2}, {2});
  Expr wrapped = constant(Tensor::from_dlpack(lent.dlpack_view(), std::make_shared<Tensor>(lent)));
  const Tensor& out = folded(function({}, call("multiply", {wrapped, constant(Tensor::scalar(3, f32))})), true);
  EXPECT_NE(out.data(), lent.data());
  EXPECT_THAT(elements(out), ElementsAre(3, 6));
  EXPECT_THAT(elements(lent), ElementsAre(1, 2));
}

TEST_F(FoldConstantStorageTest, AConstantReadTwiceIsNotWritten) {
  // w * 10 + w = [11, 22]: the product may not overwrite the w the sum reads,
  // whether w is used twice directly or through a let that is inlined.
  Expr w = constant(tensor_of({1, 2}, {2}));
  Expr ten = constant(Tensor::scalar(10, f32));
  EXPECT_THAT(elements(folded(function({}, call("add", {call("multiply", {w, ten}), w})), true)), ElementsAre(11, 22));
  Var bound = var("w", tensor_type({2}));
  Expr let_body = call("add", {call("multiply", {bound, ten}), bound});
  Expr fresh = constant(tensor_of({1, 2}, {2}));
  EXPECT_THAT(elements(folded(function({}, let(bound, fresh, let_body)), true)), ElementsAre(11, 22));
}

TEST_F(FoldConstantStorageTest, AnOpThatMovesElementsReadsACopyAndWritesTheWeightsBytes) {
  // transpose([[1, 2], [3, 4]]): its kernel would read elements it has
  // already written if it ran in place, so it reads a copy.
  Expr weight = constant(tensor_of({1, 2, 3, 4}, {2, 2}));
  const void* weight_bytes = weight.as<ConstantNode>()->data.data();
  const Tensor& out = folded(function({}, call("transpose", {weight})), true);
  EXPECT_EQ(out.data(), weight_bytes);
  EXPECT_THAT(elements(out), ElementsAre(1, 3, 2, 4));
}

TEST_F(FoldConstantStorageTest, AWeightMovedIntoABlockedLayoutTakesItsOwnBytes) {
  // OI (2, 4) -> OI2i (2, 2, 2): [[0..3], [4..7]] blocks each row's inputs in
  // pairs, the same elements under another shape, in the weight's memory.
  Expr weight = constant(tensor_of({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}));
  const void* weight_bytes = weight.as<ConstantNode>()->data.data();
  const Tensor& out =
      folded(function({}, call("layout_transform", {weight}, {{"src_layout", "OI"}, {"dst_layout", "OI2i"}})), true);
  EXPECT_EQ(out.data(), weight_bytes);
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_THAT(elements(out), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  // IO (4, 2) from OI: a transposition, computed from a copy.
  Expr other = constant(tensor_of({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}));
  const Tensor& moved =
      folded(function({}, call("layout_transform", {other}, {{"src_layout", "OI"}, {"dst_layout", "IO"}})), true);
  EXPECT_EQ(moved.data(), other.as<ConstantNode>()->data.data());
  EXPECT_THAT(elements(moved), ElementsAre(0, 4, 1, 5, 2, 6, 3, 7));
}

TEST_F(FoldConstantStorageTest, AnOutputOfOtherSizeOrDtypeGetsItsOwnMemory) {
  Expr weight = constant(tensor_of({1, 2, 3, 4}, {2, 2}));
  const Tensor& summed = folded(function({}, call("sum", {weight}, {{"axis", std::vector<int64_t>{1}}})), true);
  EXPECT_NE(summed.data(), weight.as<ConstantNode>()->data.data());
  EXPECT_THAT(elements(summed), ElementsAre(3, 7));
  Expr single = constant(tensor_of({1, 2}, {2}));
  const Tensor& cast = folded(function({}, call("cast", {single}, {{"dtype", "float64"}})), true);
  EXPECT_NE(cast.data(), single.as<ConstantNode>()->data.data());
  EXPECT_EQ(cast.dtype(), DataType::Float(64));
}

}  // namespace
}  // namespace weft
