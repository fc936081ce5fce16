// What -O3 leaves of resnet-18 with its parameters bound (the structure
// goal): no inference-only ops or bias_add, the batch norms' scales inside the convolution
// weights, and main a sequence of calls to Primitive functions of at most one
// convolution or dense each.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_run_util.h"
#include "o3.h"
#include "weft/functor.h"
#include "weft/printer.h"
#include "weft/testing/count_ops.h"

namespace weft::testing {
namespace {

bool is_call_to(const Expr& e, const std::string& op) {
  auto* c = e.as<CallNode>();
  return c && c->op->kind == ExprKind::kOp && static_cast<const OpNode&>(*c->op).name() == op;
}

// Calls of `op` anywhere in main, inside the functions it holds too.
int count_calls(const Expr& body, const std::string& op) {
  int n = 0;
  post_order_visit(body, [&](const Expr& e) { n += is_call_to(e, op); });
  return n;
}

// Multiplies that take a convolution's output: a per-channel scale the folding left.
int multiplies_of_convolutions(const Expr& body) {
  int n = 0;
  post_order_visit(body, [&](const Expr& e) {
    if (!is_call_to(e, "multiply")) return;
    for (const Expr& arg : static_cast<const CallNode&>(*e).args) n += is_call_to(arg, "nn.conv2d");
  });
  return n;
}

class Resnet18AtO3 : public ::testing::Test {
 protected:
  static IRModule bound_resnet18() {
    Workload w = create_workload(build_model(parse_model_spec("resnet-18")), "xavier");
    return bind_params(w.mod, param_map(w.params));
  }
};

TEST_F(Resnet18AtO3, KeepsNoBatchNormDropoutOrBiasAdd) {
  IRModule bound = bound_resnet18();
  ASSERT_EQ(count_calls(bound.main()->body, "nn.batch_norm"), 19);
  ASSERT_EQ(count_calls(bound.main()->body, "nn.bias_add"), 1);
  IRModule after = optimize_o3(bound);
  EXPECT_EQ(count_calls(after.main()->body, "nn.batch_norm"), 0);
  EXPECT_EQ(count_calls(after.main()->body, "nn.dropout"), 0);
  EXPECT_EQ(count_calls(after.main()->body, "nn.bias_add"), 0);  // CanonicalizeOps: add with expand_dims
  EXPECT_EQ(count_calls(after.main()->body, "nn.conv2d"), count_calls(bound.main()->body, "nn.conv2d"));
}

TEST_F(Resnet18AtO3, FoldsTheBatchNormScalesIntoTheConvolutionWeights) {
  IRModule bound = bound_resnet18();
  // Without FoldScaleAxis the scales that SimplifyInference makes of the batch
  // norms after convolutions stay as multiplies of their outputs...
  IRModule unfolded = optimize_o3(bound, {}, {"FoldScaleAxis"});
  EXPECT_GT(multiplies_of_convolutions(unfolded.main()->body), 0);
  // ...with it, every one of them is inside the (constant) weights.
  IRModule after = optimize_o3(bound);
  EXPECT_EQ(multiplies_of_convolutions(after.main()->body), 0);
  EXPECT_LT(count_calls(after.main()->body, "multiply"), count_calls(unfolded.main()->body, "multiply"));
}

TEST_F(Resnet18AtO3, MainCallsOnlyPrimitiveFunctionsOfOneConvolutionOrDenseAtMost) {
  IRModule after = optimize_o3(bound_resnet18());
  std::vector<const CallNode*> calls = own_calls(after.main());
  ASSERT_FALSE(calls.empty());
  int anchors = 0;
  for (const CallNode* c : calls) {
    ASSERT_EQ(c->op->kind, ExprKind::kFunction) << "main calls " << to_text(c->op);
    Function fn = downcast<FunctionNode>(c->op);
    ASSERT_TRUE(has_attr(fn, "Primitive")) << to_text(fn);
    int in_fn = count_calls(fn->body, "nn.conv2d") + count_calls(fn->body, "nn.dense");
    EXPECT_LE(in_fn, 1) << to_text(fn);
    anchors += in_fn;
  }
  EXPECT_EQ(anchors, 21 + 1);  // every convolution and the classifier's dense
}

}  // namespace
}  // namespace weft::testing
