// CanonicalizeOps: nn.bias_add becomes add with its bias made to broadcast
// along the axis (TVM v0.19 canonicalize_ops.cc), through nn.bias_add's own
// "canonicalize" rewrite. Expected programs are written from the reference's
// ExpandBiasToMatchAxis; results also compute what the originals did.
#include <gmock/gmock.h>

#include <string>

#include "small_stack.h"
#include "support/pass_test.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using testing::run_checked;

void check(const std::string& params, const std::string& in_body, const std::string& want_body) {
  testing::check_main(CanonicalizeOps(), params, in_body, want_body);
}

TEST(CanonicalizeOps, BiasAddOnTheChannelAxisOfNCHW) {
  check("%x: Tensor[(1, 4, 3, 2), float32], %b: Tensor[(4), float32]", "nn.bias_add(%x, %b)",
        "add(%x, expand_dims(%b, axis=1, num_newaxis=2))");
}

TEST(CanonicalizeOps, BiasAddOnTheLastAxisNeedsNoExpandDims) {
  check("%x: Tensor[(2, 3, 5), float32], %b: Tensor[(5), float32]", "nn.bias_add(%x, %b, axis=-1)", "add(%x, %b)");
  check("%x: Tensor[(2, 5), float32], %b: Tensor[(5), float32]", "nn.bias_add(%x, %b)", "add(%x, %b)");
}

TEST(CanonicalizeOps, BiasAddOnOtherAxes) {
  check("%x: Tensor[(3, 2, 4), float32], %b: Tensor[(3), float32]", "nn.bias_add(%x, %b, axis=0)",
        "add(%x, expand_dims(%b, axis=1, num_newaxis=2))");
  // A negative axis counts from the end: -3 of a 4-D tensor is 1.
  check("%x: Tensor[(2, 3, 4, 5), float32], %b: Tensor[(3), float32]", "nn.bias_add(%x, %b, axis=-3)",
        "add(%x, expand_dims(%b, axis=1, num_newaxis=2))");
}

TEST(CanonicalizeOps, ChainsAndOtherOpsInside) {
  check("%x: Tensor[(1, 4, 3, 3), float32], %w: Tensor[(4, 4, 1, 1), float32], %b: Tensor[(4), float32]",
        "nn.relu(nn.bias_add(nn.conv2d(%x, %w, kernel_size=[1, 1]), %b))",
        "nn.relu(add(nn.conv2d(%x, %w, kernel_size=[1, 1]), expand_dims(%b, axis=1, num_newaxis=2)))");
}

TEST(CanonicalizeOps, AnUntypedProgramIsAnErrorNamingThePass) {
  auto [canonical, ill_typed_error] = testing::check_needs_types(
      CanonicalizeOps(), "def @main(%x: Tensor[(2, 5), float32], %b: Tensor[(5), float32]) {\n  nn.bias_add(%x, %b)\n}\n",
      "def @main(%x: Tensor[(2, 5), float32], %b: Tensor[(4), float32]) {\n  nn.bias_add(%x, %b)\n}\n",
      /*opt_level=*/3);
  EXPECT_THAT(to_text(canonical), HasSubstr("add(%x, %b)"));
  EXPECT_THAT(ill_typed_error, HasSubstr("op nn.bias_add"));
}

TEST(CanonicalizeOps, A100000NodeChainOfBiasAdds) {
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kLength = 100000;
    Var x = var("x", tensor_type({2, 3})), b = var("b", tensor_type({3}));
    Expr e = x;
    for (int i = 0; i < kLength; ++i) e = call("nn.bias_add", {e, b});
    IRModule out = run_checked(CanonicalizeOps(), infer_type(IRModule::from_function(function({x, b}, e))));
    int adds = 0;
    for (Expr at = out.main()->body; auto* c = at.as<CallNode>(); at = c->args[0]) {
      adds += c->op.as<OpNode>()->name() == "add" && c->args[1].same_as(out.main()->params[1]);
    }
    EXPECT_EQ(adds, kLength);
  });
}

}  // namespace
}  // namespace weft
