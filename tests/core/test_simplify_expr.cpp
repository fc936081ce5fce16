// SimplifyExpr through the tensor ops' own "simplify_expr" rewrites: the
// situations of the reference's tests/python/relay/test_pass_simplify_expr.py
// that weft's rewrites cover (reshape chains, transposes and layout_transforms,
// identity arithmetic, same-dtype casts), plus squeeze/expand_dims pairs.
// Each result also computes what the original did on the interpreter.
#include <gmock/gmock.h>

#include <string>

#include "small_stack.h"
#include "support/pass_test.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using testing::run_checked;

void check(const std::string& params, const std::string& in_body, const std::string& want_body) {
  testing::check_main(SimplifyExpr(), params, in_body, want_body);
}

// The program stays as it is.
void check_unchanged(const std::string& params, const std::string& body) { check(params, body, body); }

TEST(SimplifyExpr, ReshapeChainsBecomeOneReshapeToTheStaticShape) {
  // The reference's test_simplify_reshape (its last step, a reverse_reshape,
  // which weft lacks, is a reshape to the same shape here).
  check("%x: Tensor[(1, 16, 16, 16), float32], %w: Tensor[(32, 16, 3, 3), float32]",
        "reshape(reshape(reshape(nn.conv2d(%x, %w, padding=[1, 1]), newshape=[1, 16, -1]), "
        "newshape=[4, 8, -1, 16]), newshape=[32, 16, -1])",
        "reshape(nn.conv2d(%x, %w, padding=[1, 1]), newshape=[32, 16, 16])");
  check_unchanged("%x: Tensor[(2, 6), float32]", "reshape(%x, newshape=[3, 4])");
}

TEST(SimplifyExpr, TransposesComposeAndCancel) {
  const std::string x = "%x: Tensor[(1, 3, 224, 224), float32]";
  // before1: transpose, a permuting layout_transform, transpose.
  check(x,
        "transpose(layout_transform(transpose(%x, axes=[0, 2, 3, 1]), src_layout=\"NHWC\", dst_layout=\"HWCN\"), "
        "axes=[3, 0, 1, 2])",
        "transpose(%x, axes=[0, 2, 3, 1])");
  // before2: three transposes that cancel.
  check(x, "transpose(transpose(transpose(nn.relu(%x), axes=[0, 2, 3, 1]), axes=[1, 2, 3, 0]), axes=[3, 2, 0, 1])",
        "nn.relu(%x)");
  // before3: the default axes (reversal) and a negative axis.
  check(x, "transpose(transpose(transpose(transpose(transpose(nn.relu(%x))), axes=[0, 2, -1, 1])))",
        "transpose(nn.relu(%x), axes=[0, 2, 3, 1])");
  check(x, "transpose(%x, axes=[0, 1, 2, 3])", "%x");
}

TEST(SimplifyExpr, RankChangingLayoutTransformsFoldWithTheirPermutations) {
  const std::string x = "%x: Tensor[(1, 56, 56, 128), float32]";
  const std::string want =
      "layout_transform(nn.relu(layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW4c\")), "
      "src_layout=\"NCHW4c\", dst_layout=\"NHWC\")";
  // before4: NHWC -transpose-> NCHW -> NCHW4c -> relu -> NCHW -transpose-> NHWC.
  check(x,
        "transpose(layout_transform(nn.relu(layout_transform(transpose(%x, axes=[0, 3, 1, 2]), src_layout=\"NCHW\", "
        "dst_layout=\"NCHW4c\")), src_layout=\"NCHW4c\", dst_layout=\"NCHW\"), axes=[0, 2, 3, 1])",
        want);
  // before5: the same with layout_transforms for the transposes.
  check(x,
        "layout_transform(layout_transform(nn.relu(layout_transform(layout_transform(%x, src_layout=\"NHWC\", "
        "dst_layout=\"NCHW\"), src_layout=\"NCHW\", dst_layout=\"NCHW4c\")), src_layout=\"NCHW4c\", "
        "dst_layout=\"NCHW\"), src_layout=\"NCHW\", dst_layout=\"NHWC\")",
        want);
}

TEST(SimplifyExpr, BackToBackLayoutTransformsCancelOrCompose) {
  const std::string x = "%x: Tensor[(1, 8, 4, 4), float32]";
  check(x,
        "layout_transform(layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\"), src_layout=\"NCHW4c\", "
        "dst_layout=\"NCHW\")",
        "%x");
  check(x, "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW\")", "%x");
  // Both change the rank: one transform.
  check("%x: Tensor[(1, 2, 4, 4, 4), float32]",
        "layout_transform(layout_transform(%x, src_layout=\"NCHW4c\", dst_layout=\"NCHW\"), src_layout=\"NCHW\", "
        "dst_layout=\"NCHW2c\")",
        "layout_transform(%x, src_layout=\"NCHW4c\", dst_layout=\"NCHW2c\")");
  // Re-blocking after a blocking keeps both: the reference's rank-changing
  // fold would drop the second transform here (it compares layouts' lengths).
  check_unchanged(x,
                  "layout_transform(layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\"), "
                  "src_layout=\"NCHW4c\", dst_layout=\"NCHW2c\")");
  // 6 channels blocked by 4 round up to 8: back in NCHW the type differs, so nothing cancels.
  check_unchanged("%x: Tensor[(1, 6, 2, 2), float32]",
                  "layout_transform(layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\"), "
                  "src_layout=\"NCHW4c\", dst_layout=\"NCHW\")");
}

TEST(SimplifyExpr, IdentityArithmeticGoesWhenItBroadcastsNoLarger) {
  // The reference's test_eliminate_identity.
  const std::string x = "%x: Tensor[(2, 3, 4), float32]";
  for (auto [op, unit, like, fill] : {std::tuple{"add", "0f", "zeros_like", "zeros"},
                                      std::tuple{"multiply", "1f", "ones_like", "ones"}}) {
    SCOPED_TRACE(op);
    std::string o = op;
    for (const std::string& id : {std::string(like) + "(%x)", std::string(fill) + "(shape=[2, 3, 4], dtype=\"float32\")",
                                  std::string(unit), std::string(fill) + "(shape=[3, 4], dtype=\"float32\")"}) {
      check(x, o + "(" + id + ", %x)", "%x");
      check(x, o + "(%x, " + id + ")", "%x");
    }
    check_unchanged(x, o + "(%x, " + fill + "(shape=[2, 2, 3, 4], dtype=\"float32\"))");
    check_unchanged(x, o + "(" + std::string(fill) + "(shape=[2, 2, 3, 4], dtype=\"float32\"), %x)");
  }
  for (auto [op, unit, like, fill] : {std::tuple{"subtract", "0f", "zeros_like", "zeros"},
                                      std::tuple{"divide", "1f", "ones_like", "ones"}}) {
    SCOPED_TRACE(op);
    std::string o = op;
    for (const std::string& id : {std::string(like) + "(%x)", std::string(unit),
                                  std::string(fill) + "(shape=[2, 3, 4], dtype=\"float32\")",
                                  std::string(fill) + "(shape=[3, 4], dtype=\"float32\")"}) {
      check(x, o + "(%x, " + id + ")", "%x");
    }
    check_unchanged(x, o + "(%x, " + fill + "(shape=[2, 2, 3, 4], dtype=\"float32\"))");
    // Not commutative: the unit on the left stays.
    check_unchanged(x, o + "(" + unit + ", %x)");
  }
  // Only a unit value counts.
  check_unchanged(x, "add(%x, 2f)");
  check_unchanged(x, "multiply(%x, 0f)");
}

TEST(SimplifyExpr, CastToTheSameDtypeIsItsData) {
  check("%data: Tensor[(3, 4, 5), int32]", "cast(%data, dtype=\"int32\")", "%data");
  check_unchanged("%data: Tensor[(3, 4, 5), int32]", "cast(%data, dtype=\"int64\")");
}

TEST(SimplifyExpr, SqueezeAndExpandDimsThatUndoEachOtherCancel) {
  const std::string x = "%x: Tensor[(2, 3), float32]";
  check(x, "squeeze(expand_dims(%x, axis=1, num_newaxis=2), axis=[1, 2])", "%x");
  check("%x: Tensor[(2, 1, 3), float32]", "expand_dims(squeeze(%x, axis=[1]), axis=1)", "%x");
  // Squeezing other axes than the ones inserted is no undo.
  check_unchanged("%x: Tensor[(1, 3), float32]", "squeeze(expand_dims(%x, axis=2), axis=[0])");
}

TEST(SimplifyExpr, AnUntypedProgramIsAnErrorNamingThePass) {
  auto [simplified, ill_typed_error] = testing::check_needs_types(
      SimplifyExpr(), "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, 0f)\n}\n",
      "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, zeros(shape=[4], dtype=\"float32\"))\n}\n");
  EXPECT_TRUE(simplified.main()->body.same_as(simplified.main()->params[0]));
  EXPECT_THAT(ill_typed_error, HasSubstr("op add"));
}

TEST(SimplifyExpr, A100000NodeChainOfTransposesCancels) {
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kLength = 100000;
    Var x = var("x", tensor_type({2, 3}));
    Expr e = x;
    for (int i = 0; i < kLength; ++i) e = call("transpose", {e});
    IRModule out = run_checked(SimplifyExpr(), infer_type(IRModule::from_function(function({x}, e))));
    EXPECT_TRUE(out.main()->body.same_as(out.main()->params[0]));  // an even number of reversals
  });
}

}  // namespace
}  // namespace weft
