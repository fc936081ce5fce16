// SimplifyExprPostAlterOp: the clean-up relay.build runs after AlterOpLayout,
// TVM v0.19's SimplifyExprPostAlterOp in simplify_expr.cc. It keeps six of
// SimplifyExpr's rewrites (EliminateIdentityRewrite, SimplifyReshape,
// SimplifySameCast, SimplifyConsecutiveCast, SimplifyClipAndConsecutiveCast,
// SimplifyClip) and none of the others; each case here is one of those
// rewrites firing, or one of the others not.
#include <gmock/gmock.h>

#include <string>

#include "support/pass_test.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

void check(const std::string& params, const std::string& in_body, const std::string& want_body) {
  testing::check_main(SimplifyExprPostAlterOp(), params, in_body, want_body);
}
void check_unchanged(const std::string& params, const std::string& body) { check(params, body, body); }

// For dtypes the reference kernels lack (uint8), which the interpreter cannot run.
void check_structure(const std::string& params, const std::string& in_body, const std::string& want_body) {
  IRModule out = testing::run_checked(SimplifyExprPostAlterOp(),
                                      testing::typed_program("def @main(" + params + ") {\n  " + in_body + "\n}\n"));
  testing::expect_program(out, "def @main(" + params + ") {\n  " + want_body + "\n}\n");
}

const std::string kX = "%x: Tensor[(2, 3, 4), float32]";

TEST(SimplifyExprPostAlterOp, IdentityArithmeticGoes) {
  check(kX, "add(%x, 0f)", "%x");
  check(kX, "add(zeros_like(%x), %x)", "%x");
  check(kX, "subtract(%x, zeros(shape=[3, 4], dtype=\"float32\"))", "%x");
  check(kX, "multiply(ones_like(%x), %x)", "%x");
  check(kX, "divide(%x, 1f)", "%x");
  check_unchanged(kX, "subtract(0f, %x)");
}

TEST(SimplifyExprPostAlterOp, ReshapeChainsCastsAndClipsSimplifyAsInSimplifyExpr) {
  check(kX, "reshape(reshape(%x, newshape=[6, 4]), newshape=[4, 6])", "reshape(%x, newshape=[4, 6])");
  check(kX, "cast(%x, dtype=\"float32\")", "%x");
  check(kX, "cast(cast(%x, dtype=\"float64\"), dtype=\"float32\")", "%x");
  const std::string clipped = "clip(%x, a_min=0f, a_max=255f)";
  check_structure("%x: Tensor[(8), int32]", "cast(cast(" + clipped + ", dtype=\"uint8\"), dtype=\"int32\")", clipped);
  check_structure("%x: Tensor[(8), uint8]", "clip(%x, a_min=0f, a_max=255f)", "%x");
}

TEST(SimplifyExprPostAlterOp, TheRewritesTheReferenceLeavesOutStay) {
  // SimplifyTranspose and SimplifyNoOpTranspose: transposes and layout_transforms.
  check_unchanged("%x: Tensor[(1, 3, 4, 4), float32]", "transpose(transpose(%x, axes=[0, 2, 3, 1]), axes=[0, 3, 1, 2])");
  check_unchanged("%x: Tensor[(1, 4, 2, 2), float32]",
                  "layout_transform(layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW2c\"), "
                  "src_layout=\"NCHW2c\", dst_layout=\"NCHW\")");
  // FullElementwise, SimplifyAdd, SimplifyRSqrt, ConcretizeLikeRewrite, SimplifyAdjacentMultiplyOrAdd.
  check_unchanged(kX, "add(%x, full(3f, shape=[2, 3, 4], dtype=\"float32\"))");
  check_unchanged(kX, "add(%x, %x)");
  check_unchanged(kX, "divide(1f, sqrt(%x))");
  check_unchanged(kX, "zeros_like(%x)");
  check_unchanged(kX, "multiply(multiply(%x, 2f), 3f)");
  // squeeze/expand_dims pairs (weft's own SimplifyExpr rewrite).
  check_unchanged("%x: Tensor[(1, 3), float32]", "squeeze(expand_dims(%x, axis=0), axis=[0])");
}

TEST(SimplifyExprPostAlterOp, RegisteredAtTheReferencesOptLevelAfterInferType) {
  Pass p = PassRegistry::global().create("SimplifyExprPostAlterOp");
  EXPECT_EQ(p.info().opt_level, 0);
  EXPECT_EQ(p.info().required, std::vector<std::string>{"InferType"});
}

TEST(SimplifyExprPostAlterOp, AnUntypedProgramIsAnErrorNamingThePass) {
  auto [simplified, ill_typed_error] = testing::check_needs_types(
      SimplifyExprPostAlterOp(), "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, 0f)\n}\n",
      "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, zeros(shape=[4], dtype=\"float32\"))\n}\n");
  EXPECT_TRUE(simplified.main()->body.same_as(simplified.main()->params[0]));
  EXPECT_THAT(ill_typed_error, HasSubstr("op add"));
}

}  // namespace
}  // namespace weft
