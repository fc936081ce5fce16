// FuseOps on resnet-18 at its full size, after SimplifyInference (as in the -O
// pipeline, so no batch_norm is left): the interpreter gives the same output
// before and after, and main only calls Primitive functions, none holding more
// than one convolution or dense (two anchors never share a group).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_run_util.h"
#include "weft/functor.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/testing/count_ops.h"

namespace weft::model_testing {
namespace {

struct Resnet18 {
  Workload workload = create_workload(build_model(parse_model_spec("resnet-18")));
  IRModule simplified = SimplifyInference()(workload.mod);
  std::vector<Value> args = model_args(workload);
};

IRModule fused(const IRModule& mod) {
  PassContext ctx;
  ctx.opt_level = 3;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  return FuseOps()(mod, ctx);
}

int count_calls(const Function& fn, const std::string& op) {
  int n = 0;
  post_order_visit(fn->body, [&](const Expr& e) {
    auto* c = e.as<CallNode>();
    n += c && c->op->kind == ExprKind::kOp && static_cast<const OpNode&>(*c->op).name() == op;
  });
  return n;
}

int anchors_in(const Function& fn) { return count_calls(fn, "nn.conv2d") + count_calls(fn, "nn.dense"); }

TEST(ResnetFusion, Resnet18GivesTheSameOutputBeforeAndAfterFuseOps) {
  Resnet18 r;
  IRModule after = fused(r.simplified);
  Tensor want = Interpreter(r.simplified).run_main(r.args).tensor("resnet-18 output");
  Tensor got = Interpreter(after).run_main(r.args).tensor("fused resnet-18 output");
  ASSERT_EQ(got.shape(), want.shape());
  // The same kernels run on the same values in the same order.
  for (int64_t i = 0; i < want.numel(); ++i) ASSERT_EQ(got.data_as<float>()[i], want.data_as<float>()[i]) << i;
}

TEST(ResnetFusion, Resnet18MainCallsOnlyPrimitiveFunctionsOfOneConvolutionOrDenseAtMost) {
  IRModule simplified = Resnet18().simplified;
  ASSERT_EQ(count_calls(simplified.main(), "nn.batch_norm"), 0);
  IRModule after = fused(simplified);
  std::vector<const CallNode*> calls = testing::own_calls(after.main());
  int anchors = 0;
  for (const CallNode* c : calls) {
    ASSERT_EQ(c->op->kind, ExprKind::kFunction) << "main calls " << to_text(c->op);
    Function fn = downcast<FunctionNode>(c->op);
    ASSERT_TRUE(has_attr(fn, "Primitive")) << to_text(fn);
    EXPECT_LE(anchors_in(fn), 1) << to_text(fn);
    anchors += anchors_in(fn);
  }
  EXPECT_EQ(anchors, 21 + 1);  // every convolution and the classifier's dense, each in one function
  // Fewer functions than ops: the elementwise ops joined their producers.
  int ops = 0;
  for (const CallNode* c : calls)
    ops += static_cast<int>(testing::own_calls(downcast<FunctionNode>(c->op)).size());
  EXPECT_LT(calls.size(), static_cast<size_t>(ops));
}

// resnet-50's 53 convolutions (the stem, 16 bottleneck units of 3, a shortcut
// per stage) and the dense, each in a function of its own; the whole pass
// takes milliseconds (the gtest timing shows it).
TEST(ResnetFusion, Resnet50KeepsEachConvolutionInItsOwnFunction) {
  IRModule typed = infer_type(IRModule::from_function(build_model(parse_model_spec("resnet-50"))));
  IRModule after = fused(SimplifyInference()(typed));
  int anchors = 0;
  for (const CallNode* c : testing::own_calls(after.main())) {
    Function fn = downcast<FunctionNode>(c->op);
    ASSERT_TRUE(fn && has_attr(fn, "Primitive"));
    EXPECT_LE(anchors_in(fn), 1);
    anchors += anchors_in(fn);
  }
  EXPECT_EQ(anchors, 53 + 1);
}

}  // namespace
}  // namespace weft::model_testing
