// ConvertLayout on the tensor and nn plugins' ops: the cases of the
// reference's tests/python/relay/test_pass_convert_op_layout.py (TVM v0.19),
// in weft's words and at small shapes. Each case is program in, desired
// layouts, expected program out (compared structurally), and the converted
// program must compute what the original did on the interpreter. Where the
// reference only counts transforms or checks an attr, so does the case here.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "support/pass_test.h"
#include "weft/op.h"

namespace weft {
namespace {

const DesiredLayouts kToNchw = {{"nn.conv2d", {"NCHW", "default"}}};
const DesiredLayouts kToNhwc = {{"nn.conv2d", {"NHWC", "default"}}};

void check(const DesiredLayouts& desired, const std::string& params, const std::string& in_body,
           const std::string& want_body) {
  testing::check_main(ConvertLayout(desired), params, in_body, want_body);
}

/// main(params) { body } converted, typed, and checked to compute what it did.
IRModule converted(const DesiredLayouts& desired, const std::string& params, const std::string& body) {
  IRModule in = testing::typed_program("def @main(" + params + ") {\n  " + body + "\n}\n");
  IRModule out = testing::run_checked(ConvertLayout(desired), in);
  testing::expect_same_outputs(in, out);
  return out;
}

/// How many calls of `op_name` in `e` satisfy `pred`.
template <typename Pred>
int count_calls(const Expr& e, const std::string& op_name, Pred pred) {
  std::vector<const CallNode*> calls = testing::calls_of(e, op_name);
  return static_cast<int>(std::count_if(calls.begin(), calls.end(), [&](const CallNode* c) { return pred(*c); }));
}
int count_calls(const Expr& e, const std::string& op_name) {
  return static_cast<int>(testing::calls_of(e, op_name).size());
}

// An NHWC conv: x (1, 6, 6, 4), w (3, 3, 4, 4), 3x3 with padding 1.
const std::string kNhwcParams = "%x: Tensor[(1, 6, 6, 4), float32], %w: Tensor[(3, 3, 4, 4), float32]";
const std::string kNhwcConv =
    "nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWIO\")";
// Its conversion to NCHW: the data and weight moved in, the conv in the canonical layouts.
const std::string kNchwConvOfNhwc =
    "%0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
    "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
    "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n";

TEST(ConvertLayoutReference, NoConvertWhenAlreadyInTheDesiredLayout) {
  // test_no_convert_layout
  const std::string params = "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]";
  const std::string body = "nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]))";
  check(kToNchw, params, body, body);
}

TEST(ConvertLayoutReference, NhwcConvToNchw) {
  // test_conv_convert_layout
  check(kToNchw, kNhwcParams, "nn.relu(" + kNhwcConv + ")",
        kNchwConvOfNhwc + "  %3 = nn.relu(%2);\n  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, NchwConvToNhwc) {
  // test_conv_nhwc_convert_layout
  check(kToNhwc, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]",
        "nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]))",
        "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
        "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  %3 = nn.relu(%2);\n"
        "  layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\")");
}

TEST(ConvertLayoutReference, BiasReluPoolCastFollowTheConvUntilBatchFlatten) {
  // test_conv_bias_pool_convert_layout. weft's ConvertLayout does not run
  // CanonicalizeOps first (the reference requires it), so bias_add stays and
  // its axis follows; a one-field tuple is looked through; batch_flatten has
  // no layout hook, so its input goes back to NHWC.
  check(kToNchw, kNhwcParams + ", %b: Tensor[(4), float32]",
        "%0 = nn.bias_add(" + kNhwcConv + ", %b, axis=3);\n"
        "  %1 = (%0,);\n"
        "  %2 = nn.relu(%1.0);\n"
        "  %3 = nn.max_pool2d(%2, pool_size=[2, 2], layout=\"NHWC\");\n"
        "  nn.batch_flatten(cast(%3, dtype=\"int32\"))",
        kNchwConvOfNhwc +
            "  %3 = nn.bias_add(%2, %b, axis=1);\n"
            "  %4 = nn.relu(%3);\n"
            "  %5 = nn.max_pool2d(%4, pool_size=[2, 2]);\n"
            "  %6 = cast(%5, dtype=\"int32\");\n"
            "  %7 = layout_transform(%6, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
            "  nn.batch_flatten(%7)");
}

TEST(ConvertLayoutReference, APerChannelBiasIsExpandedThenMoved) {
  // test_conv_bias_pool_convert_layout's bias as CanonicalizeOps leaves it
  // (add of a (C) vector, which the reference's expected program shows):
  // expand_dims to (1, 1, 1, C) in NHWC, then NCHW.
  check(kToNchw, kNhwcParams + ", %b: Tensor[(4), float32]", "nn.relu(add(" + kNhwcConv + ", %b))",
        kNchwConvOfNhwc +
            "  %3 = expand_dims(%b, axis=0, num_newaxis=3);\n"
            "  %4 = layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
            "  %5 = nn.relu(add(%2, %4));\n"
            "  layout_transform(%5, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, ConvTransposeConvertsWithTheGivenAndTheDefaultKernelLayouts) {
  // test_conv_transpose_convert_layout: NHWC/HWIO to NCHW/IOHW, given.
  const std::string nhwc = "nn.conv2d_transpose(%x, %w, channels=4, kernel_size=[3, 3], padding=[1, 1], "
                           "data_layout=\"NHWC\", kernel_layout=\"HWIO\")";
  const std::string to_nchw =
      "%0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
      "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"IOHW\");\n"
      "  %2 = nn.relu(nn.conv2d_transpose(%0, %1, channels=4, kernel_size=[3, 3], padding=[1, 1]));\n"
      "  layout_transform(%2, src_layout=\"NCHW\", dst_layout=\"NHWC\")";
  check({{"nn.conv2d_transpose", {"NCHW", "IOHW"}}}, kNhwcParams, "nn.relu(" + nhwc + ")", to_nchw);
  // "default" with NCHW data is IOHW; with NHWC data the reference's HWIO.
  check({{"nn.conv2d_transpose", {"NCHW", "default"}}}, kNhwcParams, "nn.relu(" + nhwc + ")", to_nchw);
  check({{"nn.conv2d_transpose", {"NHWC", "default"}}},
        "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]",
        "nn.conv2d_transpose(%x, %w, channels=4, kernel_size=[3, 3], padding=[1, 1])",
        "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"IOHW\", dst_layout=\"HWIO\");\n"
        "  %2 = nn.conv2d_transpose(%0, %1, channels=4, kernel_size=[3, 3], padding=[1, 1], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  layout_transform(%2, src_layout=\"NHWC\", dst_layout=\"NCHW\")");
  // conv3d_transpose's default for NDHWC data is the reference's DHWOI.
  check({{"nn.conv3d_transpose", {"NDHWC", "default"}}},
        "%x: Tensor[(1, 2, 3, 3, 3), float32], %w: Tensor[(2, 2, 2, 2, 2), float32]",
        "nn.conv3d_transpose(%x, %w, channels=2, kernel_size=[2, 2, 2])",
        "%0 = layout_transform(%x, src_layout=\"NCDHW\", dst_layout=\"NDHWC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"IODHW\", dst_layout=\"DHWOI\");\n"
        "  %2 = nn.conv3d_transpose(%0, %1, channels=2, kernel_size=[2, 2, 2], data_layout=\"NDHWC\", "
        "kernel_layout=\"DHWOI\");\n"
        "  layout_transform(%2, src_layout=\"NDHWC\", dst_layout=\"NCDHW\")");
}

TEST(ConvertLayoutReference, ConvAndConvTransposeConvertTogether) {
  // test_different_ops_convert_layout, less its qnn.conv2d (weft has no qnn ops).
  check({{"nn.conv2d", {"NCHW", "default"}}, {"nn.conv2d_transpose", {"NCHW", "default"}}},
        kNhwcParams + ", %v: Tensor[(3, 3, 4, 4), float32]",
        "nn.conv2d_transpose(" + kNhwcConv +
            ", %v, channels=4, kernel_size=[3, 3], padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
        kNchwConvOfNhwc +
            "  %3 = layout_transform(%v, src_layout=\"HWIO\", dst_layout=\"IOHW\");\n"
            "  %4 = nn.conv2d_transpose(%2, %3, channels=4, kernel_size=[3, 3], padding=[1, 1]);\n"
            "  layout_transform(%4, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, ConcatenateJoinsAlongTheChannelAxisOfTheNewLayout) {
  // test_conv_concat_convert_layout
  check(kToNchw, kNhwcParams + ", %v: Tensor[(3, 3, 4, 4), float32]",
        "%0 = " + kNhwcConv + ";\n"
        "  %1 = nn.conv2d(%0, %v, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  concatenate((%0, %1), axis=3)",
        kNchwConvOfNhwc +
            "  %3 = layout_transform(%v, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
            "  %4 = nn.conv2d(%2, %3, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n"
            "  %5 = concatenate((%2, %4), axis=1);\n"
            "  layout_transform(%5, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, DualPathsEachGoBackWhereTheyLeaveTheConvertedRegion) {
  // test_dual_path_convert_layout
  check(kToNchw, kNhwcParams + ", %v: Tensor[(3, 3, 4, 4), float32]",
        "%0 = nn.relu(" + kNhwcConv + ");\n"
        "  %1 = nn.conv2d(%0, %v, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  (nn.relu(%1), nn.batch_flatten(%0))",
        kNchwConvOfNhwc +
            "  %3 = nn.relu(%2);\n"
            "  %4 = layout_transform(%v, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
            "  %5 = nn.conv2d(%3, %4, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n"
            "  %6 = nn.relu(%5);\n"
            "  %7 = layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
            "  (layout_transform(%6, src_layout=\"NCHW\", dst_layout=\"NHWC\"), nn.batch_flatten(%7))");
}

TEST(ConvertLayoutReference, BatchNormFollowsWithOneTransformBack) {
  // test_bn_convert_layout: the reference counts one NCHW -> NHWC transform.
  IRModule out = converted(kToNchw,
                           kNhwcParams + ", %g: Tensor[(4), float32], %be: Tensor[(4), float32], %m: "
                                         "Tensor[(4), float32], %va: Tensor[(4), float32]",
                           "nn.batch_norm(" + kNhwcConv + ", %g, %be, %m, %va, axis=3).0");
  EXPECT_EQ(count_calls(out.main()->body, "layout_transform",
                        [](const CallNode& c) {
                          return c.attrs->at("src_layout").as_string() == "NCHW" &&
                                 c.attrs->at("dst_layout").as_string() == "NHWC";
                        }),
            1)
      << to_text(out);
  EXPECT_EQ(count_calls(out.main()->body, "nn.batch_norm",
                        [](const CallNode& c) { return c.attrs->at("axis").as_int() == 1; }),
            1)
      << to_text(out);
}

TEST(ConvertLayoutReference, BatchNormThenReluStayInTheNewLayout) {
  // test_conv_bn_convert_layout
  check(kToNchw,
        kNhwcParams + ", %g: Tensor[(4), float32], %be: Tensor[(4), float32], %m: Tensor[(4), float32], "
                      "%va: Tensor[(4), float32]",
        "nn.relu(nn.batch_norm(" + kNhwcConv + ", %g, %be, %m, %va, axis=3).0)",
        kNchwConvOfNhwc +
            "  %3 = nn.batch_norm(%2, %g, %be, %m, %va, axis=1);\n"
            "  %4 = nn.relu(%3.0);\n"
            "  layout_transform(%4, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, OnlyTheKernelMovesWhenOnlyItsLayoutDiffers) {
  // test_conv_convert_kernel_layout
  check({{"nn.conv2d", {"NHWC", "OHWI"}}}, kNhwcParams, kNhwcConv,
        "%0 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"OHWI\");\n"
        "  nn.conv2d(%x, %0, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"OHWI\")");
}

TEST(ConvertLayoutReference, TransposeAxesFollowTheLayout) {
  // test_transpose_convert_layout: the transpose's axes in the new layout,
  // three transforms in all (data, weight, and the broadcast operand z).
  auto transposes_with = [](const IRModule& m, const std::vector<int64_t>& axes) {
    return count_calls(m.main()->body, "transpose", [&](const CallNode& c) {
      const AttrValue& a = c.attrs->at("axes");
      return !a.is_none() && a.as_int_list() == axes;
    });
  };
  IRModule to_nchw = converted(kToNchw, kNhwcParams + ", %z: Tensor[(6, 6, 4), float32]",
                               "nn.batch_flatten(transpose(add(" + kNhwcConv + ", %z), axes=[0, 3, 1, 2]))");
  EXPECT_EQ(transposes_with(to_nchw, {0, 1, 2, 3}), 1) << to_text(to_nchw);
  EXPECT_EQ(count_calls(to_nchw.main()->body, "layout_transform"), 3) << to_text(to_nchw);

  const std::string nchw = "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32], "
                           "%z: Tensor[(4, 6, 6), float32]";
  const std::string conv = "nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3])";
  // A negative axis, too.
  IRModule to_nhwc = converted(kToNhwc, nchw, "nn.batch_flatten(transpose(add(" + conv + ", %z), axes=[0, 2, -1, 1]))");
  EXPECT_EQ(transposes_with(to_nhwc, {0, 1, 2, 3}), 1) << to_text(to_nhwc);
  EXPECT_EQ(count_calls(to_nhwc.main()->body, "layout_transform"), 3) << to_text(to_nhwc);
  // No axes: the reversal of NCHW (W, H, C, N) read in NHWC.
  IRModule reversed = converted(kToNhwc, nchw, "transpose(add(" + conv + ", %z))");
  EXPECT_EQ(transposes_with(reversed, {2, 1, 3, 0}), 1) << to_text(reversed);
  EXPECT_EQ(count_calls(reversed.main()->body, "layout_transform"), 3) << to_text(reversed);
}

TEST(ConvertLayoutReference, ResnetBlockMeetsInTheNewLayout) {
  // test_resnet_convert_layout
  check(kToNchw, kNhwcParams + ", %v: Tensor[(1, 1, 4, 4), float32]",
        "%0 = nn.relu(" + kNhwcConv + ");\n"
        "  %1 = nn.relu(nn.conv2d(%x, %v, channels=4, kernel_size=[1, 1], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\"));\n"
        "  nn.global_max_pool2d(add(%0, %1), layout=\"NHWC\")",
        kNchwConvOfNhwc +
            "  %3 = nn.relu(%2);\n"
            "  %4 = layout_transform(%v, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
            "  %5 = nn.conv2d(%0, %4, channels=4, kernel_size=[1, 1]);\n"
            "  %6 = nn.relu(%5);\n"
            "  %7 = nn.global_max_pool2d(add(%3, %6));\n"
            "  layout_transform(%7, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, APoolGivenItsOwnLayoutKeepsIt) {
  // test_conv_max_pool_uses_specified_convert_layout: an explicit kernel
  // layout for the conv, and the max pool asked for NHWC too.
  check({{"nn.conv2d", {"NHWC", "OHWI"}}, {"nn.max_pool2d", {"NHWC"}}},
        "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]",
        "nn.batch_flatten(nn.max_pool2d(nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3])), "
        "pool_size=[2, 2]))",
        "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"OHWI\");\n"
        "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"OHWI\");\n"
        "  %3 = nn.max_pool2d(nn.relu(%2), pool_size=[2, 2], layout=\"NHWC\", out_layout=\"NHWC\");\n"
        "  %4 = layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
        "  nn.batch_flatten(%4)");
  // test_resnet_pool_uses_specified_convert_layout: the convs go to NCHW, the
  // global pool stays NHWC as asked, so the sum goes back before it.
  check({{"nn.conv2d", {"NCHW", "default"}}, {"nn.global_max_pool2d", {"NHWC"}}},
        kNhwcParams + ", %v: Tensor[(1, 1, 4, 4), float32]",
        "%0 = nn.relu(" + kNhwcConv + ");\n"
        "  %1 = nn.relu(nn.conv2d(%x, %v, channels=4, kernel_size=[1, 1], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\"));\n"
        "  nn.global_max_pool2d(add(%0, %1), layout=\"NHWC\")",
        kNchwConvOfNhwc +
            "  %3 = nn.relu(%2);\n"
            "  %4 = layout_transform(%v, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
            "  %5 = nn.relu(nn.conv2d(%0, %4, channels=4, kernel_size=[1, 1]));\n"
            "  %6 = layout_transform(add(%3, %5), src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
            "  nn.global_max_pool2d(%6, layout=\"NHWC\", out_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, AConvAndAPoolEachTakeTheLayoutAskedFor) {
  // test_conv_bias_pool_uses_specified_convert_layout, with its bias_add as
  // CanonicalizeOps leaves it: the conv and its bias in NCHW, the pool asked
  // for NHWC, so the relu's result goes back before it.
  check({{"nn.conv2d", {"NCHW", "OIHW"}}, {"nn.max_pool2d", {"NHWC"}}}, kNhwcParams + ", %b: Tensor[(4), float32]",
        "%0 = (add(" + kNhwcConv + ", %b),);\n"
        "  %1 = nn.max_pool2d(nn.relu(%0.0), pool_size=[2, 2], layout=\"NHWC\");\n"
        "  nn.batch_flatten(cast(%1, dtype=\"int32\"))",
        kNchwConvOfNhwc +
            "  %3 = expand_dims(%b, axis=0, num_newaxis=3);\n"
            "  %4 = layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
            "  %5 = layout_transform(nn.relu(add(%2, %4)), src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
            "  %6 = nn.max_pool2d(%5, pool_size=[2, 2], layout=\"NHWC\", out_layout=\"NHWC\");\n"
            "  nn.batch_flatten(cast(%6, dtype=\"int32\"))");
}

TEST(ConvertLayoutReference, AScalarOperandStaysAScalar) {
  // test_scalar_convert_layout
  check(kToNchw, kNhwcParams, "add(" + kNhwcConv + ", 1f)",
        kNchwConvOfNhwc + "  %3 = add(%2, 1f);\n  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, LayerAndInstanceNormRenumberTheirAxis) {
  // test_conv_ln_convert_layout, test_conv_InstanceNorm_convert_layout
  const std::string params = kNhwcParams + ", %g: Tensor[(4), float32], %be: Tensor[(4), float32]";
  for (std::string op : {"nn.layer_norm", "nn.instance_norm"}) {
    check(kToNchw, params, op + "(" + kNhwcConv + ", %g, %be, axis=3)",
          kNchwConvOfNhwc + "  %3 = " + op +
              "(%2, %g, %be, axis=1);\n  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
  }
}

TEST(ConvertLayoutReference, L2NormalizeRenumbersItsAxes) {
  // test_conv_l2n_convert_layout: [3] and [-1] become [1], [2, 3] becomes [3, 1].
  const std::vector<std::pair<std::string, std::string>> axes = {{"[3]", "[1]"}, {"[-1]", "[1]"}, {"[2, 3]", "[3, 1]"}};
  for (const auto& [given, renumbered] : axes) {
    check(kToNchw, kNhwcParams, "nn.l2_normalize(" + kNhwcConv + ", eps=0.001f, axis=" + given + ")",
          kNchwConvOfNhwc + "  %3 = nn.l2_normalize(%2, eps=0.001f, axis=" + renumbered +
              ");\n  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
  }
}

TEST(ConvertLayoutReference, TheDefaultKernelLayoutOfNchwDataIsOihw) {
  // test_default_keyword: only the weight moves.
  check(kToNchw, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 3, 3, 4), float32]",
        "nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3], kernel_layout=\"OHWI\")",
        "%0 = layout_transform(%w, src_layout=\"OHWI\", dst_layout=\"OIHW\");\n"
        "  nn.conv2d(%x, %0, padding=[1, 1], channels=4, kernel_size=[3, 3])");
}

TEST(ConvertLayoutReference, StridedSliceReordersBeginEndAndStrides) {
  // test_conv_strided_slice_convert_layout: begin and end shorter than the
  // rank, strides full; missing ends are the whole extent.
  check(kToNhwc, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]",
        "strided_slice(nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3])), begin=[0, 1], "
        "end=[1, -1, 4], strides=[1, 1, 2, 1])",
        "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
        "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  %3 = strided_slice(nn.relu(%2), begin=[0, 0, 0, 1], end=[1, 4, 6, -1], strides=[1, 2, 1, 1]);\n"
        "  layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\")");
}

TEST(ConvertLayoutReference, StridedSliceRenumbersTheAxesItLists) {
  // test_conv_strided_slice_axes_convert_layout
  check(kToNchw, kNhwcParams,
        "strided_slice(" + kNhwcConv + ", begin=[0, 1], end=[1, 3], strides=[1, 1], axes=[0, 3])",
        kNchwConvOfNhwc +
            "  %3 = strided_slice(%2, begin=[0, 1], end=[1, 3], strides=[1, 1], axes=[0, 1]);\n"
            "  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, SplitRunsAlongTheNewChannelAxisAndEachPieceGoesBack) {
  // test_conv_split_convert_layout: sections and indices, a negative axis too.
  for (std::string split : {"indices_or_sections=2, axis=-1", "indices_or_sections=2, axis=3",
                            "indices_or_sections=[1, 3], axis=3"}) {
    std::string moved = split.substr(0, split.find(", axis")) + ", axis=1";
    check(kToNchw, kNhwcParams,
          "%0 = split(nn.relu(" + kNhwcConv + "), " + split + ");\n  (%0.0, %0.1)",
          kNchwConvOfNhwc + "  %3 = split(nn.relu(%2), " + moved +
              ");\n"
              "  (layout_transform(%3.0, src_layout=\"NCHW\", dst_layout=\"NHWC\"), "
              "layout_transform(%3.1, src_layout=\"NCHW\", dst_layout=\"NHWC\"))");
  }
}

// test_conv_squeeze_convert_layout and test_conv_reduce_convert_layout: a
// 1x1 conv of (1, 1, 1, 8) data to 6 channels.
const std::string kPointParams = "%x: Tensor[(1, 1, 1, 8), float32], %w: Tensor[(1, 1, 8, 6), float32]";
const std::string kPointConv =
    "nn.relu(nn.conv2d(%x, %w, channels=6, kernel_size=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\"))";
const std::string kPointConvNchw =
    "%0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
    "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
    "  %2 = nn.relu(nn.conv2d(%0, %1, channels=6, kernel_size=[1, 1]));\n";

TEST(ConvertLayoutReference, SqueezeDropsTheSameLettersInTheNewLayout) {
  // A given axis (H, negative): the (N, C, W) result goes back to NWC.
  check(kToNchw, kPointParams, "squeeze(" + kPointConv + ", axis=[-3])",
        kPointConvNchw +
            "  %3 = squeeze(%2, axis=[2]);\n  layout_transform(%3, src_layout=\"NCW\", dst_layout=\"NWC\")");
  // Every axis of extent 1: only C is left, the same in both layouts.
  check(kToNchw, kPointParams, "squeeze(" + kPointConv + ")", kPointConvNchw + "  squeeze(%2, axis=[0, 2, 3])");
  // No axis: nothing squeezed, the result goes back.
  check(kToNchw, kPointParams, "squeeze(" + kPointConv + ", axis=[])",
        kPointConvNchw +
            "  %3 = squeeze(%2, axis=[]);\n  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, ReductionsRenumberTheirAxes) {
  // Spatial sums leave (N, C) in either layout; later sums follow unchanged,
  // and a sum over every axis keeps axis None.
  check(kToNchw, kPointParams, "sum(sum(sum(sum(" + kPointConv + ", axis=[1, 2]), axis=[1])))",
        kPointConvNchw + "  sum(sum(sum(sum(%2, axis=[2, 3]), axis=[1])))");
  // keepdims over the channels: NCHW result goes back to NHWC.
  const std::string params = "%x: Tensor[(1, 4, 4, 8), float32], %w: Tensor[(3, 3, 8, 8), float32]";
  check(kToNchw, params,
        "%0 = nn.relu(nn.conv2d(%x, %w, channels=8, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\"));\n"
        "  sum(multiply(%0, %0), axis=[3], keepdims=True)",
        "%0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
        "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
        "  %2 = nn.relu(nn.conv2d(%0, %1, channels=8, kernel_size=[3, 3]));\n"
        "  %3 = sum(multiply(%2, %2), axis=[1], keepdims=True);\n"
        "  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, SpatialReductionsOfAnNchwConvRunInNhwc) {
  // test_reduce_op_convert_layout: argmax, mean and max over H and W; the
  // (N, C) result needs no transform back.
  for (std::string op : {"argmax", "mean", "max"}) {
    check(kToNhwc, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]",
          op + "(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]), axis=[2, 3])",
          "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
          "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
          "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
          "kernel_layout=\"HWIO\");\n  " +
              op + "(%2, axis=[1, 2])");
  }
}

TEST(ConvertLayoutReference, BlockedDataLayoutsMakeContribConv2dNchwc) {
  // test_resnet_convert_layout_nchwc at 8x8: with NCHW<n>c desired, each
  // conv2d becomes contrib_conv2d_NCHWc, but the first one only where the
  // 3 input channels fill whole blocks (n = 1, not n = 4).
  const std::string params =
      "%x: Tensor[(1, 3, 8, 8), float32], %w1: Tensor[(8, 3, 3, 3), float32], %w2: Tensor[(8, 8, 3, 3), float32], "
      "%w3: Tensor[(8, 8, 1, 1), float32]";
  const std::string body =
      "%0 = nn.relu(nn.conv2d(%x, %w1, strides=[2, 2], padding=[1, 1], channels=8, kernel_size=[3, 3]));\n"
      "  %1 = nn.max_pool2d(%0, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);\n"
      "  %2 = nn.relu(nn.conv2d(%1, %w2, padding=[1, 1], channels=8, kernel_size=[3, 3]));\n"
      "  %3 = nn.relu(nn.conv2d(%1, %w3, channels=8, kernel_size=[1, 1]));\n"
      "  nn.global_max_pool2d(add(%2, %3))";
  for (int block : {1, 4}) {
    const std::string data = "NCHW" + std::to_string(block) + "c";
    const std::string kernel = "OIHW" + std::to_string(block) + "i" + std::to_string(block) + "o";
    const std::string blocked = ", data_layout=\"" + data + "\", kernel_layout=\"" + kernel + "\")";
    auto weight = [&](const std::string& w) {
      return "layout_transform(" + w + ", src_layout=\"OIHW\", dst_layout=\"" + kernel + "\")";
    };
    std::string stem =
        block == 1
            ? "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"" + data +
                  "\");\n"
                  "  %1 = nn.relu(nn.contrib_conv2d_NCHWc(%0, " +
                  weight("%w1") + ", strides=[2, 2], padding=[1, 1], channels=8, kernel_size=[3, 3]" + blocked +
                  ");\n"
                  "  %2 = nn.max_pool2d(%1, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"" +
                  data + "\");\n"
            : "%0 = nn.relu(nn.conv2d(%x, %w1, strides=[2, 2], padding=[1, 1], channels=8, kernel_size=[3, 3]));\n"
              "  %1 = nn.max_pool2d(%0, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);\n"
              "  %2 = layout_transform(%1, src_layout=\"NCHW\", dst_layout=\"" +
                  data + "\");\n";
    check({{"nn.conv2d", {data, kernel}}}, params, body,
          stem + "  %3 = nn.relu(nn.contrib_conv2d_NCHWc(%2, " + weight("%w2") +
              ", padding=[1, 1], channels=8, kernel_size=[3, 3]" + blocked +
              ");\n"
              "  %4 = nn.relu(nn.contrib_conv2d_NCHWc(%2, " +
              weight("%w3") + ", channels=8, kernel_size=[1, 1]" + blocked +
              ");\n"
              "  %5 = nn.global_max_pool2d(add(%3, %4), layout=\"" +
              data + "\");\n  layout_transform(%5, src_layout=\"" + data + "\", dst_layout=\"NCHW\")");
  }
}

TEST(ConvertLayoutReference, HwncDataTakesHwoiKernelsByDefault) {
  // test_convert_with_config's HWNC conversion, with no layer skipped (the
  // next case skips one).
  check({{"nn.conv2d", {"HWNC", "default"}}}, kNhwcParams, "nn.relu(" + kNhwcConv + ")",
        "%0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"HWNC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"HWOI\");\n"
        "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"HWNC\", "
        "kernel_layout=\"HWOI\");\n"
        "  layout_transform(nn.relu(%2), src_layout=\"HWNC\", dst_layout=\"NHWC\")");
}

// A deformable conv with a bias, relu, pool and cast (test_deformable_conv_bias_pool_convert_layout).
const std::string kDeformableNhwcParams =
    "%data: Tensor[(1, 6, 6, 3), float32], %offset: Tensor[(1, 4, 4, 18), float32], "
    "%weight: Tensor[(3, 3, 3, 4), float32], %bias: Tensor[(4), float32]";
const std::string kDeformableNchwParams =
    "%data: Tensor[(1, 3, 6, 6), float32], %offset: Tensor[(1, 18, 4, 4), float32], "
    "%weight: Tensor[(4, 3, 3, 3), float32], %bias: Tensor[(4), float32]";

TEST(ConvertLayoutReference, DeformableConvNhwcToNchwMovesDataOffsetAndWeight) {
  // The offset travels in the data layout; "default" gives OIHW for NCHW data.
  check({{"nn.deformable_conv2d", {"NCHW", "default"}}}, kDeformableNhwcParams,
        "%0 = nn.deformable_conv2d(%data, %offset, %weight, channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  %1 = nn.relu(nn.bias_add(%0, %bias, axis=3));\n"
        "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], layout=\"NHWC\");\n"
        "  nn.batch_flatten(cast(%2, dtype=\"int32\"))",
        "%0 = layout_transform(%data, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
        "  %1 = layout_transform(%offset, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
        "  %2 = layout_transform(%weight, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
        "  %3 = nn.deformable_conv2d(%0, %1, %2, channels=4, kernel_size=[3, 3]);\n"
        "  %4 = nn.relu(nn.bias_add(%3, %bias, axis=1));\n"
        "  %5 = cast(nn.max_pool2d(%4, pool_size=[2, 2]), dtype=\"int32\");\n"
        "  nn.batch_flatten(layout_transform(%5, src_layout=\"NCHW\", dst_layout=\"NHWC\"))");
}

TEST(ConvertLayoutReference, DeformableConvNchwToNhwcTakesHwioByDefault) {
  check({{"nn.deformable_conv2d", {"NHWC", "default"}}}, kDeformableNchwParams,
        "%0 = nn.deformable_conv2d(%data, %offset, %weight, channels=4, kernel_size=[3, 3]);\n"
        "  nn.relu(nn.bias_add(%0, %bias, axis=1))",
        "%0 = layout_transform(%data, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %1 = layout_transform(%offset, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %2 = layout_transform(%weight, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
        "  %3 = nn.deformable_conv2d(%0, %1, %2, channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  %4 = nn.relu(nn.bias_add(%3, %bias, axis=3));\n"
        "  layout_transform(%4, src_layout=\"NHWC\", dst_layout=\"NCHW\")");
}

TEST(ConvertLayoutReference, DeformableConvAndPoolEachTakeTheLayoutAskedFor) {
  // test_deformable_conv_bias_pool_uses_specified_convert_layout: the pool's own
  // desired layout wins over the one its producer leaves it in.
  IRModule out = converted({{"nn.deformable_conv2d", {"NHWC", "default"}}, {"nn.max_pool2d", {"NCHW"}}},
                           kDeformableNchwParams,
                           "%0 = nn.deformable_conv2d(%data, %offset, %weight, channels=4, kernel_size=[3, 3]);\n"
                           "  nn.max_pool2d(nn.relu(%0), pool_size=[2, 2])");
  EXPECT_EQ(testing::calls_of(out.main(), "nn.deformable_conv2d")[0]->attrs->at("data_layout").as_string(), "NHWC");
  EXPECT_EQ(testing::calls_of(out.main(), "nn.max_pool2d")[0]->attrs->at("layout").as_string(), "NCHW");
}

TEST(ConvertLayoutReference, ADeformableConvOfAnotherDataLayoutNeedsItsKernelLayout) {
  IRModule in = testing::typed_program("def @main(" + kDeformableNchwParams + ") {\n"
                                       "  nn.deformable_conv2d(%data, %offset, %weight, channels=4, kernel_size=[3, 3])\n}\n");
  try {
    ConvertLayout({{"nn.deformable_conv2d", {"HWNC", "default"}}})(in);
    ADD_FAILURE() << "HWNC with a default kernel layout converted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no default kernel layout for data layout HWNC"), std::string::npos)
        << e.what();
  }
}

TEST(ConvertLayoutReference, UpsamplingDoesNotFollowAChannelsLastLayout) {
  // Relay's UpsamplingInferCorrectLayout follows only layouts that keep H and
  // W in place: after an NHWC conv the upsampling reads its input back in NCHW.
  check(kToNhwc, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]",
        "nn.upsampling(nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3])), scale_h=2f, "
        "scale_w=2f)",
        "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
        "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
        "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
        "kernel_layout=\"HWIO\");\n"
        "  %3 = layout_transform(nn.relu(%2), src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
        "  nn.upsampling(%3, scale_h=2f, scale_w=2f)");
}

TEST(ConvertLayoutReference, ASkippedDeformableConvKeepsItsLayout) {
  // deformable_conv2d is a layout layer too: layer 0 here, the conv2d after it layer 1.
  IRModule in = testing::typed_program("def @main(" + kDeformableNchwParams + ", %w2: Tensor[(4, 4, 3, 3), float32]) {\n"
                                       "  %0 = nn.deformable_conv2d(%data, %offset, %weight, channels=4, kernel_size=[3, 3]);\n"
                                       "  nn.conv2d(%0, %w2, padding=[1, 1], channels=4, kernel_size=[3, 3])\n}\n");
  IRModule out = testing::run_checked(
      ConvertLayout({{"nn.deformable_conv2d", {"NHWC", "default"}}, {"nn.conv2d", {"NHWC", "default"}}}, {0}), in);
  testing::expect_same_outputs(in, out);
  EXPECT_EQ(testing::calls_of(out.main(), "nn.deformable_conv2d")[0]->attrs->at("data_layout").as_string(), "NCHW");
  EXPECT_EQ(testing::calls_of(out.main(), "nn.conv2d")[0]->attrs->at("data_layout").as_string(), "NHWC");
}

// Two NHWC convs, each followed by a relu (test_convert_with_config's program).
const std::string kTwoNhwcConvsParams = kNhwcParams + ", %w2: Tensor[(3, 3, 4, 4), float32]";
const std::string kTwoNhwcConvs =
    "%0 = nn.relu(" + kNhwcConv + ");\n"
    "  nn.relu(nn.conv2d(%0, %w2, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
    "kernel_layout=\"HWIO\"))";

TEST(ConvertLayoutReference, ASkippedLayerKeepsItsLayoutAndTheNextOneConverts) {
  // test_convert_with_config: LayoutConfig(skip_layers=[0]) keeps the first conv
  // in NHWC; its relu follows it, and moves to HWNC for the second conv.
  testing::check_main(ConvertLayout({{"nn.conv2d", {"HWNC", "default"}}}, {0}), kTwoNhwcConvsParams, kTwoNhwcConvs,
                      "%0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
                      "kernel_layout=\"HWIO\");\n"
                      "  %1 = nn.relu(%0);\n"
                      "  %2 = layout_transform(%1, src_layout=\"NHWC\", dst_layout=\"HWNC\");\n"
                      "  %3 = layout_transform(%w2, src_layout=\"HWIO\", dst_layout=\"HWOI\");\n"
                      "  %4 = nn.conv2d(%2, %3, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"HWNC\", "
                      "kernel_layout=\"HWOI\");\n"
                      "  layout_transform(nn.relu(%4), src_layout=\"HWNC\", dst_layout=\"NHWC\")");
}

TEST(ConvertLayoutReference, SkippingTheSecondLayerConvertsTheFirstAndMovesBackBeforeTheSecond) {
  // skip_layers=[1]: the first conv converts, the second reads its relu back in NHWC.
  testing::check_main(ConvertLayout({{"nn.conv2d", {"HWNC", "default"}}}, {1}), kTwoNhwcConvsParams, kTwoNhwcConvs,
                      "%0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"HWNC\");\n"
                      "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"HWOI\");\n"
                      "  %2 = nn.conv2d(%0, %1, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"HWNC\", "
                      "kernel_layout=\"HWOI\");\n"
                      "  %3 = nn.relu(%2);\n"
                      "  %4 = layout_transform(%3, src_layout=\"HWNC\", dst_layout=\"NHWC\");\n"
                      "  nn.relu(nn.conv2d(%4, %w2, padding=[1, 1], channels=4, kernel_size=[3, 3], "
                      "data_layout=\"NHWC\", kernel_layout=\"HWIO\"))");
}

TEST(ConvertLayoutReference, OnlyLayoutLayersTheDesiredLayoutsNameAreCounted) {
  // The reference counts in conv2d's and deformable_conv2d's convert hooks, so
  // a conv2d_transpose (not a layout layer) between two convs takes no number:
  // skip_layers=[1] is the second conv2d.
  const std::string params =
      "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32], %wt: Tensor[(4, 4, 3, 3), float32], "
      "%w2: Tensor[(4, 4, 3, 3), float32]";
  IRModule in = testing::typed_program("def @main(" + params + ") {\n"
                                       "  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n"
                                       "  %1 = nn.conv2d_transpose(%0, %wt, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n"
                                       "  nn.conv2d(%1, %w2, padding=[1, 1], channels=4, kernel_size=[3, 3])\n}\n");
  IRModule out = testing::run_checked(
      ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}, {"nn.conv2d_transpose", {"NHWC", "default"}}}, {1}), in);
  testing::expect_same_outputs(in, out);
  std::vector<const CallNode*> convs = testing::calls_of(out.main(), "nn.conv2d");
  ASSERT_EQ(convs.size(), 2u);
  int nhwc = 0;
  for (const CallNode* c : convs) nhwc += c->attrs->at("data_layout").as_string() == "NHWC";
  EXPECT_EQ(nhwc, 1);
  EXPECT_EQ(testing::calls_of(out.main(), "nn.conv2d_transpose")[0]->attrs->at("data_layout").as_string(), "NHWC");
  // The skipped conv is the last one, reading the transpose's output moved back to NCHW.
  EXPECT_EQ(out.main()->body.as<CallNode>()->attrs->at("data_layout").as_string(), "NCHW");
}

TEST(ConvertLayoutReference, TheLayoutLayersAreConv2dAndDeformableConv2d) {
  // The two ops whose convert hooks consult the reference's LayoutConfig.
  for (const char* name : {"nn.conv2d", "nn.deformable_conv2d"})
    EXPECT_TRUE(OpRegistry::global().get(name).is_layout_layer) << name;
  for (const char* name : {"nn.conv1d", "nn.conv3d", "nn.conv2d_transpose", "nn.max_pool2d", "nn.relu"})
    EXPECT_FALSE(OpRegistry::global().get(name).is_layout_layer) << name;
}

TEST(ConvertLayoutReference, SkipLayersComeFromThePassContextConfigAndMustBeLayerNumbers) {
  PassContext ctx;
  ctx.set_config("relay.ConvertLayout.desired_layouts", AttrValue(std::string(R"({"nn.conv2d": ["HWNC", "default"]})")));
  ctx.set_config("relay.ConvertLayout.skip_layers", AttrValue(std::vector<int64_t>{0, 1, 7}));
  IRModule in = testing::typed_program("def @main(" + kTwoNhwcConvsParams + ") {\n  " + kTwoNhwcConvs + "\n}\n");
  IRModule out = PassRegistry::global().get("ConvertLayout").create()(in, ctx);
  EXPECT_TRUE(testing::calls_of(out.main(), "layout_transform").empty());  // both skipped; 7 is past the last
  try {
    ConvertLayout(kToNchw, {0, -2})(in);
    ADD_FAILURE() << "a negative skip layer passed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ConvertLayout: skip layer -2 is not a layer number"), std::string::npos)
        << e.what();
  }
}

TEST(ConvertLayoutReference, TheDesiredLayoutsComeFromThePassContextConfig) {
  // relay.ConvertLayout.desired_layouts, as the reference's PassContext config.
  PassContext ctx;
  ctx.set_config("relay.ConvertLayout.desired_layouts",
                 AttrValue(std::string(R"({"nn.conv2d": ["NCHW", "default"]})")));
  IRModule in = testing::typed_program("def @main(" + kNhwcParams + ") {\n  nn.relu(" + kNhwcConv + ")\n}\n");
  IRModule out = PassRegistry::global().get("ConvertLayout").create()(in, ctx);
  testing::expect_program(out, "def @main(" + kNhwcParams + ") {\n  " + kNchwConvOfNhwc +
                                   "  %3 = nn.relu(%2);\n  layout_transform(%3, src_layout=\"NCHW\", "
                                   "dst_layout=\"NHWC\")\n}\n");
}

}  // namespace
}  // namespace weft
