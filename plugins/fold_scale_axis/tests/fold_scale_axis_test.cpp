// FoldScaleAxis: the situations of the reference's
// test_pass_fold_scale_axis.py in weft's words. Programs are Relay text whose
// constant parameters (scales, weights) are bound before the pass; the
// expected programs are written out by hand from Relay's rewrite rules. Folded
// programs also compute what the unfolded ones do, on the interpreter.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <map>

#include "core/small_stack.h"
#include "support/op_test.h"
#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {
namespace {

using testing::f32;
using ::testing::HasSubstr;

// Deterministic values in [lo, hi) (a fixed LCG: no dependence on std's engines).
Tensor filled(std::vector<int64_t> shape, double lo, double hi, uint32_t seed) {
  Tensor t = Tensor::empty(shape, f32);
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    t.data_as<float>()[i] = static_cast<float>(lo + (hi - lo) * (seed >> 8) / double(1 << 24));
  }
  return t;
}

IRModule run_pass(const std::string& name, const IRModule& mod) {
  PassContext ctx;
  ctx.opt_level = 3;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  return sequential({PassRegistry::global().create(name)})(mod, ctx);
}

IRModule program(const std::string& text, const std::map<std::string, Tensor>& constants) {
  return bind_params(parse_module(text), constants);
}

// Both typed, so that return annotations InferType adds compare too.
void expect_equal(const IRModule& got, const IRModule& want) {
  Function g = infer_type(got).main(), w = infer_type(want).main();
  EXPECT_TRUE(structural_equal(g, w)) << "got:\n" << to_text(g) << "\nwant:\n" << to_text(w);
}

// Runs main of both on the same inputs; the outputs agree within 1e-5.
void expect_same_outputs(const IRModule& a, const IRModule& b, const std::vector<Tensor>& inputs) {
  std::vector<Value> args(inputs.begin(), inputs.end());
  Tensor ya = Interpreter(a).run_main(args).tensor(), yb = Interpreter(b).run_main(args).tensor();
  ASSERT_EQ(ya.shape(), yb.shape());
  for (int64_t i = 0; i < ya.numel(); ++i)
    EXPECT_NEAR(ya.data_as<float>()[i], yb.data_as<float>()[i], 1e-5 * (1 + std::abs(ya.data_as<float>()[i])))
        << "element " << i;
}

bool calls_op(const IRModule& mod, const std::string& op);

// FoldScaleAxis on `text` with `constants` bound leaves no multiply (it ends
// with FoldConstant: the scaled weights are constants) and computes what the
// program computed before, on `input` for its one free parameter.
void expect_fully_folded(const char* text, const std::map<std::string, Tensor>& constants, const Tensor& input) {
  IRModule before = program(text, constants);
  IRModule after = run_pass("FoldScaleAxis", before);
  EXPECT_FALSE(calls_op(after, "multiply")) << to_text(after.main());
  expect_same_outputs(before, after, {input});
}

bool calls_op(const IRModule& mod, const std::string& op) {
  bool found = false;
  post_order_visit(mod.main(), [&](const Expr& e) {
    if (auto* c = e.as<CallNode>(); c && c->op.as<OpNode>() && c->op.as<OpNode>()->name() == op) found = true;
  });
  return found;
}

// ---- Forward: multiply(x, s) -> relu -> add -> conv2d.

const char* kForwardConv = R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3), float32],
          %in_bias: Tensor[(4, 1, 1), float32], %in_scale: Tensor[(4, 1, 1), float32]) {
  %0 = multiply(%x, %in_scale);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3])
})";

TEST(ForwardFoldScaleAxis, AChannelScaleMovesThroughReluAndAddIntoTheConvWeight) {
  // The reference's test_fold_fwd_simple: relu(s * x) + b = s * (relu(x) + b / s),
  // and conv(s * y, w) = conv(y, w * s) with s on w's input channels.
  Tensor scale = filled({4, 1, 1}, 0.5, 1, 1);
  IRModule folded = run_pass("ForwardFoldScaleAxis", program(kForwardConv, {{"in_scale", scale}}));
  IRModule expected = program(R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3), float32],
          %in_bias: Tensor[(4, 1, 1), float32], %in_scale: Tensor[(4, 1, 1), float32]) {
  %0 = squeeze(%in_scale, axis=[1, 2]);
  %1 = nn.relu(%x);
  %2 = add(%1, divide(%in_bias, expand_dims(%0, axis=1, num_newaxis=2)));
  nn.conv2d(%2, multiply(%weight, expand_dims(%0, axis=1, num_newaxis=2)), padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3])
})",
                              {{"in_scale", scale}});
  expect_equal(folded, expected);
}

TEST(ForwardFoldScaleAxis, ABlockedLayoutTakesTheScaleOnBothChannelAxes) {
  // test_fold_fwd_simple's blocked case: NCHW2c data, OIHW2i4o weight; the
  // scale covers C and c, reshaped onto the bias and onto the weight's I and i.
  auto conv = [](const std::string& weight) {
    return "nn.conv2d(%2, " + weight +
           R"(, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW2i4o"))" + "\n}";
  };
  const std::string params = R"(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(2, 2, 3, 3, 2, 4), float32],
          %in_bias: Tensor[(1, 2, 1, 1, 2), float32], %in_scale: Tensor[(1, 2, 1, 1, 2), float32])" ")";
  std::map<std::string, Tensor> scale = {{"in_scale", filled({1, 2, 1, 1, 2}, 0.5, 1, 21)}};
  IRModule folded = run_pass("ForwardFoldScaleAxis", program("def @main(" + params + R"( {
  %0 = multiply(%x, %in_scale);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  )" + conv("%weight"), scale));
  IRModule expected = program("def @main(" + params + R"( {
  %0 = squeeze(%in_scale, axis=[0, 2, 3]);
  %1 = nn.relu(%x);
  %2 = add(%1, divide(%in_bias, reshape(%0, newshape=[1, 2, 1, 1, 2])));
  )" + conv("multiply(%weight, reshape(%0, newshape=[1, 2, 1, 1, 2, 1]))"), scale);
  expect_equal(folded, expected);
}

TEST(ForwardFoldScaleAxis, FoldedComputesWhatUnfoldedDoes) {
  std::map<std::string, Tensor> constants = {{"in_scale", filled({4, 1, 1}, 0.5, 1, 1)},
                                             {"weight", filled({2, 4, 3, 3}, -1, 1, 2)},
                                             {"in_bias", filled({4, 1, 1}, -1, 1, 3)}};
  expect_fully_folded(kForwardConv, constants, filled({2, 4, 10, 10}, -1, 1, 4));
}

TEST(ForwardFoldScaleAxis, ANegativeScaleDoesNotPassRelu) {
  // relu(s * x) != s * relu(x) for s < 0 (the reference's test_fold_fwd_negative_scale).
  Tensor scale = filled({4, 1, 1}, 0.5, 1, 1);
  scale.data_as<float>()[2] = -0.5f;
  IRModule in = program(kForwardConv, {{"in_scale", scale}});
  expect_equal(run_pass("ForwardFoldScaleAxis", in), in);
}

TEST(ForwardFoldScaleAxis, AScaleThatIsNotAConstantDoesNotPassRelu) {
  // Its sign is unknown.
  IRModule in = program(kForwardConv, {});
  expect_equal(run_pass("ForwardFoldScaleAxis", in), in);
}

TEST(ForwardFoldScaleAxis, AScaleAlongAnAxisOtherThanTheChannelsStays) {
  // A scale along W (shape (1, 1, 10)) is no per-channel scale.
  const char* text = R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3), float32], %s: Tensor[(1, 1, 10), float32]) {
  %0 = multiply(%x, %s);
  nn.conv2d(%0, %weight, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3])
})";
  IRModule in = program(text, {{"s", filled({1, 1, 10}, 0.5, 1, 5)}});
  expect_equal(run_pass("ForwardFoldScaleAxis", in), in);
}

TEST(ForwardFoldScaleAxis, AScaledValueAlsoUsedElsewhereStays) {
  // The reference's test_fold_fwd_fail: exp takes the scaled value too, so the
  // scale cannot move.
  const char* text = R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.conv2d(%0, %weight, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3]);
  (%1, exp(%0))
})";
  IRModule in = program(text, {{"s", filled({4, 1, 1}, 0.5, 1, 6)}});
  expect_equal(run_pass("ForwardFoldScaleAxis", in), in);
}

TEST(ForwardFoldScaleAxis, AScaleOnDenseInputFeaturesFoldsIntoTheWeightColumns) {
  const char* text = R"(
def @main(%x: Tensor[(3, 8), float32], %w: Tensor[(5, 8), float32], %s: Tensor[(8), float32]) {
  nn.dense(multiply(%x, %s), %w, units=5)
})";
  std::map<std::string, Tensor> scale = {{"s", filled({8}, -1, 1, 7)}};
  IRModule folded = run_pass("ForwardFoldScaleAxis", program(text, scale));
  expect_equal(folded, program(R"(
def @main(%x: Tensor[(3, 8), float32], %w: Tensor[(5, 8), float32], %s: Tensor[(8), float32]) {
  nn.dense(%x, multiply(%w, %s), units=5)
})",
                               scale));
  expect_fully_folded(text, {{"s", scale.at("s")}, {"w", filled({5, 8}, -1, 1, 8)}}, filled({3, 8}, -1, 1, 9));
}

TEST(ForwardFoldScaleAxis, InNhwcTheScaleGoesOnTheHwioWeightsInputChannels) {
  const char* text = R"(
def @main(%x: Tensor[(2, 10, 10, 4), float32], %w: Tensor[(3, 3, 4, 2), float32], %s: Tensor[(4), float32]) {
  nn.conv2d(multiply(%x, %s), %w, channels=2, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO")
})";
  std::map<std::string, Tensor> scale = {{"s", filled({4}, -1, 1, 22)}};
  expect_equal(run_pass("ForwardFoldScaleAxis", program(text, scale)), program(R"(
def @main(%x: Tensor[(2, 10, 10, 4), float32], %w: Tensor[(3, 3, 4, 2), float32], %s: Tensor[(4), float32]) {
  nn.conv2d(%x, multiply(%w, expand_dims(%s, axis=1)), channels=2, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO")
})",
                                                                                 scale));
  expect_fully_folded(text, {{"s", scale.at("s")}, {"w", filled({3, 3, 4, 2}, -1, 1, 23)}},
                      filled({2, 10, 10, 4}, -1, 1, 24));
}

// ---- Backward: conv2d -> bias_add -> relu -> multiply(., s).

const char* kBackwardConv = R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32],
          %out_bias: Tensor[(8), float32], %out_scale: Tensor[(8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %out_bias);
  %2 = nn.relu(%1);
  multiply(%2, %out_scale)
})";

TEST(BackwardFoldScaleAxis, AnOutputChannelScaleMovesBackIntoTheConvWeightAndBias) {
  // The reference's test_fold_bwd_simple: s * relu(conv(x, w) + b) =
  // relu(conv(x, w * s) + b * s) for s >= 0.
  Tensor scale = filled({8, 1, 1}, 0.5, 1, 10);
  IRModule folded = run_pass("BackwardFoldScaleAxis", program(kBackwardConv, {{"out_scale", scale}}));
  IRModule expected = program(R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32],
          %out_bias: Tensor[(8), float32], %out_scale: Tensor[(8, 1, 1), float32]) {
  %0 = squeeze(%out_scale, axis=[1, 2]);
  %1 = nn.conv2d(%x, multiply(%weight, expand_dims(%0, axis=1, num_newaxis=3)), padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %2 = nn.bias_add(%1, multiply(%out_bias, %0));
  nn.relu(%2)
})",
                              {{"out_scale", scale}});
  expect_equal(folded, expected);
}

TEST(BackwardFoldScaleAxis, FoldedComputesWhatUnfoldedDoes) {
  std::map<std::string, Tensor> constants = {{"out_scale", filled({8, 1, 1}, 0.5, 1, 11)},
                                             {"weight", filled({8, 4, 3, 3}, -1, 1, 12)},
                                             {"out_bias", filled({8}, -1, 1, 13)}};
  expect_fully_folded(kBackwardConv, constants, filled({2, 4, 10, 10}, -1, 1, 14));
}

TEST(BackwardFoldScaleAxis, ANegativeScaleDoesNotPassRelu) {
  Tensor scale = filled({8, 1, 1}, 0.5, 1, 10);
  scale.data_as<float>()[0] = -1;
  IRModule in = program(kBackwardConv, {{"out_scale", scale}});
  expect_equal(run_pass("BackwardFoldScaleAxis", in), in);
}

TEST(BackwardFoldScaleAxis, AConvOutputUsedTwiceKeepsItsScale) {
  // The reference's test_fold_bwd_fail: the unscaled conv output is needed too.
  const char* text = R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  (multiply(%0, %s), %0)
})";
  IRModule in = program(text, {{"s", filled({8, 1, 1}, 0.5, 1, 15)}});
  expect_equal(run_pass("BackwardFoldScaleAxis", in), in);
}

TEST(BackwardFoldScaleAxis, AScaleOnDenseUnitsFoldsIntoTheWeightRows) {
  // A scale that is no constant is fine where no relu needs its sign.
  const char* text = R"(
def @main(%x: Tensor[(3, 8), float32], %w: Tensor[(5, 8), float32], %s: Tensor[(5), float32]) {
  multiply(nn.dense(%x, %w, units=5), %s)
})";
  expect_equal(run_pass("BackwardFoldScaleAxis", program(text, {})), program(R"(
def @main(%x: Tensor[(3, 8), float32], %w: Tensor[(5, 8), float32], %s: Tensor[(5), float32]) {
  nn.dense(%x, multiply(%w, expand_dims(%s, axis=1)), units=5)
})",
                                                                              {}));
}

TEST(BackwardFoldScaleAxis, TwoScaledConvsAddedShareTheScale) {
  // s * (conv1 + conv2) = conv(x, w1 * s) + conv(x, w2 * s) (test_fold_bwd_dual_path's sum).
  Var x = var("x", tensor_type({2, 4, 10, 10})), w1 = var("w1", tensor_type({8, 4, 3, 3})),
      w2 = var("w2", tensor_type({8, 4, 3, 3}));
  testing::AttrList conv_attrs = {{"padding", testing::ints({1, 1, 1, 1})}, {"channels", 8}, {"kernel_size", testing::ints({3, 3})}};
  Expr scale = constant(filled({8, 1, 1}, 0.5, 1, 16));
  Expr sum = call("add", {call("nn.conv2d", {x, w1}, conv_attrs), call("nn.conv2d", {x, w2}, conv_attrs)});
  IRModule before = IRModule::from_function(function({x, w1, w2}, call("multiply", {sum, scale})));
  IRModule after = run_pass("BackwardFoldScaleAxis", before);
  EXPECT_EQ(after.main()->body.as<CallNode>()->op.as<OpNode>()->name(), "add") << to_text(after.main());
  expect_same_outputs(before, after,
                      {filled({2, 4, 10, 10}, -1, 1, 17), filled({8, 4, 3, 3}, -1, 1, 18), filled({8, 4, 3, 3}, -1, 1, 19)});
}

TEST(BackwardFoldScaleAxis, ADepthwiseConvTakesTheScaleOnItsOutputChannels) {
  // groups = channels = 4 and one input channel per group: the weight's O axis.
  const char* text = R"(
def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 1, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  multiply(nn.conv2d(%x, %w, groups=4, channels=4, kernel_size=[3, 3]), %s)
})";
  std::map<std::string, Tensor> scale = {{"s", filled({4, 1, 1}, -1, 1, 25)}};
  expect_equal(run_pass("BackwardFoldScaleAxis", program(text, scale)), program(R"(
def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 1, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  nn.conv2d(%x, multiply(%w, expand_dims(squeeze(%s, axis=[1, 2]), axis=1, num_newaxis=3)), groups=4, channels=4, kernel_size=[3, 3])
})",
                                                                                  scale));
  expect_fully_folded(text, {{"s", scale.at("s")}, {"w", filled({4, 1, 3, 3}, -1, 1, 26)}},
                      filled({1, 4, 6, 6}, -1, 1, 27));
}

// ---- nn.conv3d (the reference's test_fold_fwd_conv3d and
// test_fold_bwd_conv3d, plain layouts) and grouped conv2d.

const char* kForwardConv3d = R"(
def @main(%x: Tensor[(2, 4, 6, 6, 6), float32], %weight: Tensor[(2, 4, 3, 3, 3), float32],
          %in_bias: Tensor[(4, 1, 1, 1), float32], %in_scale: Tensor[(4, 1, 1, 1), float32]) {
  %0 = multiply(%x, %in_scale);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.conv3d(%2, %weight, padding=[1, 1, 1, 1, 1, 1], channels=2, kernel_size=[3, 3, 3])
})";

TEST(ForwardFoldScaleAxis, AConv3dTakesTheScaleOnItsWeightsInputChannels) {
  Tensor scale = filled({4, 1, 1, 1}, 0.5, 1, 41);
  IRModule folded = run_pass("ForwardFoldScaleAxis", program(kForwardConv3d, {{"in_scale", scale}}));
  IRModule expected = program(R"(
def @main(%x: Tensor[(2, 4, 6, 6, 6), float32], %weight: Tensor[(2, 4, 3, 3, 3), float32],
          %in_bias: Tensor[(4, 1, 1, 1), float32], %in_scale: Tensor[(4, 1, 1, 1), float32]) {
  %0 = squeeze(%in_scale, axis=[1, 2, 3]);
  %1 = nn.relu(%x);
  %2 = add(%1, divide(%in_bias, expand_dims(%0, axis=1, num_newaxis=3)));
  nn.conv3d(%2, multiply(%weight, expand_dims(%0, axis=1, num_newaxis=3)), padding=[1, 1, 1, 1, 1, 1], channels=2, kernel_size=[3, 3, 3])
})",
                              {{"in_scale", scale}});
  expect_equal(folded, expected);
  expect_fully_folded(kForwardConv3d,
                      {{"in_scale", scale}, {"weight", filled({2, 4, 3, 3, 3}, -1, 1, 42)},
                       {"in_bias", filled({4, 1, 1, 1}, -1, 1, 43)}},
                      filled({2, 4, 6, 6, 6}, -1, 1, 44));
}

const char* kBackwardConv3d = R"(
def @main(%x: Tensor[(2, 4, 6, 6, 6), float32], %weight: Tensor[(8, 4, 3, 3, 3), float32],
          %out_bias: Tensor[(8), float32], %out_scale: Tensor[(8, 1, 1, 1), float32]) {
  %0 = nn.conv3d(%x, %weight, padding=[1, 1, 1, 1, 1, 1], channels=8, kernel_size=[3, 3, 3]);
  %1 = add(%0, expand_dims(%out_bias, axis=1, num_newaxis=3));
  %2 = nn.relu(%1);
  multiply(%2, %out_scale)
})";

TEST(BackwardFoldScaleAxis, AConv3dTakesTheScaleOnItsWeightsOutputChannels) {
  Tensor scale = filled({8, 1, 1, 1}, 0.5, 1, 45);
  IRModule folded = run_pass("BackwardFoldScaleAxis", program(kBackwardConv3d, {{"out_scale", scale}}));
  IRModule expected = program(R"(
def @main(%x: Tensor[(2, 4, 6, 6, 6), float32], %weight: Tensor[(8, 4, 3, 3, 3), float32],
          %out_bias: Tensor[(8), float32], %out_scale: Tensor[(8, 1, 1, 1), float32]) {
  %0 = squeeze(%out_scale, axis=[1, 2, 3]);
  %1 = nn.conv3d(%x, multiply(%weight, expand_dims(%0, axis=1, num_newaxis=4)), padding=[1, 1, 1, 1, 1, 1], channels=8, kernel_size=[3, 3, 3]);
  %2 = add(%1, multiply(expand_dims(%out_bias, axis=1, num_newaxis=3), expand_dims(%0, axis=1, num_newaxis=3)));
  nn.relu(%2)
})",
                              {{"out_scale", scale}});
  expect_equal(folded, expected);
  expect_fully_folded(kBackwardConv3d,
                      {{"out_scale", scale}, {"weight", filled({8, 4, 3, 3, 3}, -1, 1, 46)},
                       {"out_bias", filled({8}, -1, 1, 47)}},
                      filled({2, 4, 6, 6, 6}, -1, 1, 48));
}

// groups = 2 with two input channels per group: the reference folds only
// full or depthwise convolutions, so both directions leave the program as it was.
TEST(FoldScaleAxisPasses, AGroupedConvThatIsNotDepthwiseKeepsItsScale) {
  std::map<std::string, Tensor> scale = {{"s", filled({4, 1, 1}, 0.5, 1, 49)}};
  IRModule forward = program(R"(
def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  nn.conv2d(multiply(%x, %s), %w, groups=2, channels=4, kernel_size=[3, 3])
})",
                             scale);
  expect_equal(run_pass("ForwardFoldScaleAxis", forward), forward);
  IRModule backward = program(R"(
def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  multiply(nn.conv2d(%x, %w, groups=2, channels=4, kernel_size=[3, 3]), %s)
})",
                              scale);
  expect_equal(run_pass("BackwardFoldScaleAxis", backward), backward);
}

// ---- The passes as passes.

TEST(FoldScaleAxisPasses, RegisteredAtTheReferencesOptLevelAfterInferType) {
  for (const char* name : {"FoldScaleAxis", "ForwardFoldScaleAxis", "BackwardFoldScaleAxis"}) {
    Pass p = PassRegistry::global().create(name);
    EXPECT_EQ(p.info().opt_level, 3) << name;
    EXPECT_EQ(p.info().required, std::vector<std::string>{"InferType"}) << name;
  }
}

TEST(FoldScaleAxisPasses, RunsItsMembersAsPassesUnderTheCallersContext) {
  // Relay's FoldScaleAxis is Sequential({Backward, Forward, FoldConstant}): each member runs
  // under the caller's context, so its instruments see them nested and its statistics table
  // gets FoldConstant's count.
  std::map<std::string, Tensor> constants = {{"in_scale", filled({4, 1, 1}, 0.5, 1, 1)},
                                             {"weight", filled({2, 4, 3, 3}, -1, 1, 2)},
                                             {"in_bias", filled({4, 1, 1}, -1, 1, 3)}};
  PassContext ctx;
  ctx.opt_level = 3;
  auto timing = std::make_shared<TimingInstrument>();
  ctx.instruments = {timing};
  IRModule after = sequential({PassRegistry::global().create("FoldScaleAxis")})(program(kForwardConv, constants), ctx);
  EXPECT_FALSE(calls_op(after, "multiply"));
  std::vector<std::string> nested;
  for (const auto& e : timing->entries())
    if (e.depth == 2) nested.push_back(e.pass);
  EXPECT_THAT(nested, ::testing::ElementsAre("BackwardFoldScaleAxis", "ForwardFoldScaleAxis", "FoldConstant"));
  EXPECT_GT(ctx.statistics()["FoldConstant"]["folded calls"], 0);
}

TEST(FoldScaleAxisPasses, AMemberTheContextDisablesDoesNotRun) {
  // disabled_pass=["ForwardFoldScaleAxis"]: the forward scale stays where it is.
  std::map<std::string, Tensor> constants = {{"in_scale", filled({4, 1, 1}, 0.5, 1, 1)},
                                             {"weight", filled({2, 4, 3, 3}, -1, 1, 2)},
                                             {"in_bias", filled({4, 1, 1}, -1, 1, 3)}};
  PassContext ctx;
  ctx.opt_level = 3;
  ctx.disabled_passes = {"ForwardFoldScaleAxis"};
  IRModule in = program(kForwardConv, constants);
  IRModule after = sequential({PassRegistry::global().create("FoldScaleAxis")})(in, ctx);
  EXPECT_TRUE(calls_op(after, "multiply"));
  ctx.disabled_passes = {};
  EXPECT_FALSE(calls_op(sequential({PassRegistry::global().create("FoldScaleAxis")})(in, ctx), "multiply"));
}

TEST(FoldScaleAxisPasses, AnIllTypedProgramIsAnErrorNamingThePass) {
  // add of (2) and (3) does not type-check.
  IRModule bad = parse_module(R"(def @main(%a: Tensor[(2), float32], %b: Tensor[(3), float32]) { add(%a, %b) })");
  std::string msg = testing::error_of([&] { PassRegistry::global().create("BackwardFoldScaleAxis")(bad); });
  EXPECT_THAT(msg, HasSubstr("BackwardFoldScaleAxis"));
  EXPECT_THAT(msg, HasSubstr("add"));
}

TEST(FoldScaleAxisPasses, A100000NodeChainPassesOnASmallStack) {
  // multiply(x, s), then 100,000 relus, then dense: the scale travels the whole
  // chain forward; the other way, the dense's scale travels it backward.
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kLength = 100000;
    Var x = var("x", tensor_type({2, 3})), w = var("w", tensor_type({4, 3}));
    Expr e = call("multiply", {x, constant(filled({3}, 0.5, 1, 20))});
    for (int i = 0; i < kLength; ++i) e = call("nn.relu", {e});
    IRModule mod = IRModule::from_function(function({x, w}, call("nn.dense", {e, w}, {{"units", 4}})));
    IRModule forward = PassRegistry::global().create("ForwardFoldScaleAxis")(mod);
    auto* dense = forward.main()->body.as<CallNode>();
    ASSERT_TRUE(dense);
    EXPECT_EQ(dense->args[1].as<CallNode>()->op.as<OpNode>()->name(), "multiply");  // w * s
    const Expr* bottom = &dense->args[0];
    int relus = 0;
    while (auto* c = bottom->as<CallNode>()) {
      EXPECT_EQ(c->op.as<OpNode>()->name(), "nn.relu");
      ++relus;
      bottom = &c->args[0];
    }
    EXPECT_EQ(relus, kLength);
    EXPECT_TRUE(bottom->same_as(forward.main()->params[0]));  // relu(...relu(x)): the multiply is gone
  });
}

TEST(FoldScaleAxisPasses, A100000NodeChainPassesBackwardOnASmallStack) {
  // dense, 100,000 relus, then multiply by a positive scale: the scale travels
  // the chain back into the dense's weight rows.
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kLength = 100000;
    Var x = var("x", tensor_type({2, 3})), w = var("w", tensor_type({4, 3}));
    Expr e = call("nn.dense", {x, w}, {{"units", 4}});
    for (int i = 0; i < kLength; ++i) e = call("nn.relu", {e});
    e = call("multiply", {e, constant(filled({4}, 0.5, 1, 28))});
    IRModule mod = IRModule::from_function(function({x, w}, e));
    IRModule backward = PassRegistry::global().create("BackwardFoldScaleAxis")(mod);
    const Expr* at = &backward.main()->body;
    int relus = 0;
    for (auto* c = at->as<CallNode>(); c && c->op.as<OpNode>()->name() == "nn.relu"; c = at->as<CallNode>()) {
      ++relus;
      at = &c->args[0];
    }
    EXPECT_EQ(relus, kLength);
    auto* dense = at->as<CallNode>();
    ASSERT_TRUE(dense);
    EXPECT_EQ(dense->op.as<OpNode>()->name(), "nn.dense");
    EXPECT_EQ(dense->args[1].as<CallNode>()->op.as<OpNode>()->name(), "multiply");  // w * s[:, None]
  });
}

}  // namespace
}  // namespace weft
