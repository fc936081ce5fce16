// SimplifyExpr through the tensor ops' own "simplify_expr" rewrites: the
// situations of the reference's tests/python/relay/test_pass_simplify_expr.py
// that weft's rewrites cover (reshape chains, transposes and layout_transforms,
// identity arithmetic, casts and clips, *_like ops of static types), plus
// squeeze/expand_dims pairs.
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

// The program becomes `want_body`, checked by structure only: for dtypes the
// reference kernels lack (uint8, int16), which the interpreter cannot run.
void check_structure(const std::string& params, const std::string& in_body, const std::string& want_body) {
  IRModule out = run_checked(SimplifyExpr(), testing::typed_program("def @main(" + params + ") {\n  " + in_body + "\n}\n"));
  testing::expect_program(out, "def @main(" + params + ") {\n  " + want_body + "\n}\n");
}

// Integers from the float inputs (0.25..1.25): int32 beyond 2^24, so a float32
// between two casts would round them, and int64 beyond int32.
const std::string kInt32 = "cast(multiply(%x, 1e8f), dtype=\"int32\")";
const std::string kInt64 = "cast(multiply(cast(%x, dtype=\"float64\"), 1e10f64), dtype=\"int64\")";

TEST(SimplifyExpr, ACastOfACastThatKeptEveryValueCastsTheDataDirectly) {
  // The reference's test_simplify_consecutive_cast, with exact widenings only.
  const std::string x = "%x: Tensor[(8), float32]";
  check(x, "cast(cast(" + kInt32 + ", dtype=\"int64\"), dtype=\"int32\")", kInt32);
  check(x, "cast(cast(%x, dtype=\"float64\"), dtype=\"float32\")", "%x");
  // int32 fits float64's 53-bit significand, not float32's 24 bits.
  check(x, "cast(cast(" + kInt32 + ", dtype=\"float64\"), dtype=\"int64\")", "cast(" + kInt32 + ", dtype=\"int64\")");
  check_unchanged(x, "cast(cast(" + kInt32 + ", dtype=\"float32\"), dtype=\"int64\")");
  // bool is 0 or 1 in any dtype.
  check(x, "cast(cast(greater(%x, 0.5f), dtype=\"int32\"), dtype=\"float32\")",
        "cast(greater(%x, 0.5f), dtype=\"float32\")");
  // A narrowing and a float to an int change values: both casts stay.
  check_unchanged(x, "cast(cast(" + kInt64 + ", dtype=\"int32\"), dtype=\"int64\")");
  check_unchanged(x, "cast(cast(multiply(%x, 3f), dtype=\"int32\"), dtype=\"float32\")");
  // Unlike the reference, int to uint of one width is no widening (-1 is 255).
  check_structure("%x: Tensor[(8), int8]", "cast(cast(%x, dtype=\"uint8\"), dtype=\"int32\")",
                  "cast(cast(%x, dtype=\"uint8\"), dtype=\"int32\")");
  check_structure("%x: Tensor[(8), int8]", "cast(cast(%x, dtype=\"int16\"), dtype=\"uint8\")",
                  "cast(%x, dtype=\"uint8\")");
}

TEST(SimplifyExpr, CastsOfAClipWhoseRangeTheyHoldGo) {
  // The reference's test_simplify_clip_cast: int32 -> clip to [0, 255] -> uint8 -> int32.
  const std::string clipped = "clip(%x, a_min=0f, a_max=255f)";
  check_structure("%x: Tensor[(8), int32]", "cast(cast(" + clipped + ", dtype=\"uint8\"), dtype=\"int32\")", clipped);
  check_structure("%x: Tensor[(8), int32]", "cast(cast(" + clipped + ", dtype=\"uint8\"), dtype=\"int64\")",
                  "cast(" + clipped + ", dtype=\"int64\")");
  check_structure("%x: Tensor[(8), int32]", "cast(cast(" + clipped + ", dtype=\"int8\"), dtype=\"int32\")",
                  "cast(cast(" + clipped + ", dtype=\"int8\"), dtype=\"int32\")");
  // The same through int64 -> int32 -> int64, run on the interpreter.
  const std::string x = "%x: Tensor[(8), float32]";
  const std::string in_int32 = "clip(" + kInt64 + ", a_min=-2147483648f, a_max=2147483647f)";
  check(x, "cast(cast(" + in_int32 + ", dtype=\"int32\"), dtype=\"int64\")", in_int32);
  check_unchanged(x, "cast(cast(clip(" + kInt64 + ", a_min=0f, a_max=1e10f), dtype=\"int32\"), dtype=\"int64\")");
}

TEST(SimplifyExpr, AClipThatHoldsEveryValueOfItsDataGoes) {
  // The reference's test_simplify_clip: a clip of uint8 to [0, 255].
  check_structure("%x: Tensor[(8), uint8]", "clip(%x, a_min=0f, a_max=255f)", "%x");
  check_structure("%x: Tensor[(8), uint8]", "clip(%x, a_min=0f, a_max=254f)", "clip(%x, a_min=0f, a_max=254f)");
  const std::string x = "%x: Tensor[(8), float32]";
  check(x, "clip(" + kInt32 + ", a_min=-2147483648f, a_max=2147483647f)", kInt32);
  check_unchanged(x, "clip(" + kInt32 + ", a_min=0f, a_max=1e8f)");
  // An inner clip narrows what the outer one sees.
  const std::string inner = "clip(" + kInt32 + ", a_min=5e7f, a_max=1e8f)";
  check(x, "clip(" + inner + ", a_min=0f, a_max=2e8f)", inner);
  // A float clip is never an identity: NaN clips to a_max.
  check_unchanged(x, "clip(%x, a_min=-3.4e38f, a_max=3.4e38f)");
}

TEST(SimplifyExpr, AFilledOperandOfTheResultsShapeBecomesItsScalar) {
  // The reference's test_simplify_full_elementwise.
  const std::string x = "%x: Tensor[(2, 3), float32]";
  const std::string full = "full(3f, shape=[2, 3], dtype=\"float32\")";
  for (const std::string op : {"add", "subtract", "multiply", "divide", "maximum", "power"}) {
    SCOPED_TRACE(op);
    check(x, op + "(%x, " + full + ")", op + "(%x, 3f)");
    check(x, op + "(" + full + ", %x)", op + "(3f, %x)");
  }
  check(x, "multiply(%x, zeros(shape=[2, 3], dtype=\"float32\"))", "multiply(%x, 0f)");
  check(x, "subtract(ones(shape=[2, 3], dtype=\"float32\"), %x)", "subtract(1f, %x)");
  check(x, "maximum(" + kInt32 + ", ones(shape=[2, 3], dtype=\"int32\"))", "maximum(" + kInt32 + ", 1)");
  // The filled tensor makes the result larger than %b, or fills another dtype than its value's.
  check_unchanged("%b: Tensor[(3), float32]", "add(%b, " + full + ")");
  check_unchanged("%x: Tensor[(2, 3), float64]", "add(%x, full(3f, shape=[2, 3], dtype=\"float64\"))");
}

TEST(SimplifyExpr, AValueAddedToItselfIsDoubled) {
  // The reference's test_simplify_add: one node on both sides.
  const std::string x = "%x: Tensor[(2, 3), float32]";
  check(x, "add(%x, %x)", "multiply(%x, 2f)");
  check(x, "%0 = sqrt(%x);\n  add(%0, %0)", "multiply(sqrt(%x), 2f)");
  check(x, "%0 = " + kInt32 + ";\n  add(%0, %0)", "multiply(" + kInt32 + ", 2)");
  // Two equal calls are two nodes until EliminateCommonSubexpr merges them.
  check_unchanged(x, "add(sqrt(%x), sqrt(%x))");
}

TEST(SimplifyExpr, ADivisionByASquareRootMultipliesByItsRsqrt) {
  // The reference's test_simplify_rsqrt.
  const std::string xy = "%x: Tensor[(2, 3), float32], %y: Tensor[(3), float32]";
  check(xy, "divide(%y, sqrt(%x))", "multiply(%y, rsqrt(%x))");
  // 1 / sqrt(x) is rsqrt(x): the multiply by 1 goes too.
  check(xy, "divide(1f, sqrt(%x))", "rsqrt(%x)");
  check_unchanged(xy, "divide(sqrt(%x), %y)");
}

TEST(SimplifyExpr, LikeOpsOfAStaticTypeTakeItsShapeAndDtype) {
  // The reference's test_concretize_* (weft has no cast_like).
  const std::string xy = "%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]";
  check(xy, "add(zeros_like(%x), %b)", "add(zeros(shape=[2, 3], dtype=\"float32\"), %b)");
  check(xy, "add(ones_like(%x), %b)", "add(ones(shape=[2, 3], dtype=\"float32\"), %b)");
  check(xy, "full_like(%x, 2f)", "full(2f, shape=[2, 3], dtype=\"float32\")");
  check("%x: Tensor[(2, 3), float32], %y: Tensor[(3, 2), float32]", "reshape_like(%x, %y)",
        "reshape(%x, newshape=[3, 2])");
  check(xy, "broadcast_to_like(%b, %x)", "broadcast_to(%b, shape=[2, 3])");
  check(xy, "collapse_sum_like(%x, %b)", "collapse_sum_to(%x, shape=[3])");
  // A dynamic dim leaves the like op as it is.
  const std::string dynamic = "def @main(%x: Tensor[(?, 3), float32]) {\n  zeros_like(%x)\n}\n";
  testing::expect_program(run_checked(SimplifyExpr(), testing::typed_program(dynamic)), dynamic);
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
