// The onednn target through weft::build, as a user's config drives it: which
// calls it claims, how a group fuses into oneDNN primitives (asked of its
// verbose report) and the values against the interpreter on the same program.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/group_storage.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/target.h"
#include "weft/testing/random_data.h"
#include "weft/text.h"
#include "onednn_test_support.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using onednn_test::Built;
using onednn_test::build_for_onednn;
using onednn_test::max_error;
using onednn_test::program;
using onednn_test::Program;

/// Builds and runs `p` on onednn; expects the interpreter's values, every op
/// on onednn, and returns the verbose report.
std::string expect_runs_on_onednn(const Program& p) {
  Built built = build_for_onednn(p.mod);
  for (const CompiledGroup& group : built.compiled->groups) {
    EXPECT_EQ(group.target, "onednn") << describe_partition(*built.compiled);
  }
  Value got = GraphExecutor(built.compiled).run(p.args);
  Value want = Interpreter(p.mod).run_main(p.args);
  EXPECT_LE(max_error(got.tensor(), want.tensor()), 1e-5);
  return built.report;
}

TEST(OnednnTarget, TakesAThreadCountDefaultingToAllCores) {
  const TargetDef& def = TargetRegistry::global().get("onednn");
  EXPECT_EQ(def.options.normalize("onednn", empty_attrs())->at("threads").as_int(), 0);
  try {
    def.create(def.options.normalize("onednn", make_attrs({{"threads", int64_t{-2}}})));
    ADD_FAILURE() << "a negative thread count was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("threads must be >= 0, not -2"));
  }
  // One thread gives the same values (the work is split for it at compile).
  RunConfig config;
  config.targets = {"onednn"};
  config.target_options["onednn"] = make_attrs({{"threads", int64_t{1}}, {"cache_dir", std::string()}});
  Program p = program(R"(
def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(8, 4, 3, 3), float32]) {
  nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=8, kernel_size=[3, 3]))
}
)",
                      {"w"});
  Value got = GraphExecutor(build(p.mod, config)).run(p.args);
  EXPECT_LE(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 1e-5);
}

TEST(OnednnTarget, AConstantJoinedByAConcatenationIsReadAtLaunch) {
  // The constant comes to the group as a bound parameter; the group's
  // concatenation copies it at each launch, so it is not packed (a packed
  // one arrives with data null).
  Program p = program(R"(
def @main(%x: Tensor[(1, 16, 2, 2), float32], %c: Tensor[(1, 16, 2, 2), float32]) {
  concatenate((nn.relu(%x), %c), axis=1)
}
)",
                      {"c"});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("concat"));
}

TEST(OnednnTarget, FusesConvBiasResidualAddAndReluIntoOnePrimitive) {
  Program p = program(R"(
def @main(%x: Tensor[(1, 8, 10, 10), float32], %w: Tensor[(16, 8, 3, 3), float32], %b: Tensor[(16), float32],
          %r: Tensor[(1, 16, 10, 10), float32]) {
  nn.relu(add(nn.bias_add(nn.conv2d(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3]), %b), %r))
}
)",
                      {"w", "b"});
  std::string report = expect_runs_on_onednn(p);
  // One group, one primitive: the bias folded, the residual a sum post-op, relu an eltwise one.
  EXPECT_THAT(report, HasSubstr("compiled a group to convolution(nn.conv2d, add as bias, add as sum, nn.relu as eltwise)\n")) << report;
}

TEST(OnednnTarget, ALargeResidualReachesTheSumDestinationWhole) {
  // The residual (65536 floats, a parameter: not the output's buffer) is
  // copied into the destination before the sum post-op adds into it, by the
  // threads sharing the copy: every element must arrive.
  Program p = program(R"(
def @main(%x: Tensor[(1, 8, 64, 64), float32], %w: Tensor[(16, 8, 3, 3), float32],
          %r: Tensor[(1, 16, 64, 64), float32]) {
  nn.relu(add(nn.conv2d(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3]), %r))
}
)",
                      {"w"});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("add as sum"));
}

TEST(OnednnTarget, WritesTheSumIntoTheResidualsOwnBufferWhereItDiesThere) {
  // The residual is another group's result (a 1x1 projection, as resnet's),
  // read last by the convolution's group: the plan gives the convolution's
  // output its bytes, and the sum post-op adds into them with no copy.
  Program p = program(R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32], %w: Tensor[(16, 16, 3, 3), float32], %v: Tensor[(16, 16, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %v, channels=16, kernel_size=[1, 1]);
  nn.relu(add(nn.conv2d(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3]), %0))
}
)",
                      {"w", "v"});
  Built built = build_for_onednn(p.mod);
  ASSERT_THAT(built.report, HasSubstr("add as sum, nn.relu as eltwise)")) << built.report;
  size_t summing = 0;
  for (const CompiledGroup& g : built.compiled->groups)
    if (std::find(g.ops.begin(), g.ops.end(), "add") != g.ops.end()) {
      ++summing;
      const Function& fn = g.primitive;
      ASSERT_TRUE(g.inplace_param.has_value());
      // The residual: the one parameter of the output's type.
      EXPECT_TRUE(has_result_type(fn, *g.inplace_param));
    }
  EXPECT_EQ(summing, 1u);
  GraphExecutor exec(built.compiled);
  // 4 KiB tensors (16x8x8 floats): the blocked input and the projection,
  // then the sum in the projection's bytes; the output in NCHW after it.
  // Without the sum in place the input, the projection and the sum: 12 KiB.
  EXPECT_EQ(exec.memory().arena_bytes, 8192u) << describe_partition(*built.compiled);
  Value got = exec.run(p.args);
  EXPECT_LE(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 1e-5);
}

TEST(OnednnTarget, RunsDepthwiseStridedDilatedAsymmetricNhwcConvolutionWithClip) {
  Program p = program(R"(
def @main(%x: Tensor[(1, 11, 12, 6), float32], %w: Tensor[(3, 3, 1, 6), float32]) {
  clip(nn.conv2d(%x, %w, strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=6, channels=6,
                 kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO"), a_min=-0.25, a_max=0.5)
}
)",
                      {"w"});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("convolution(nn.conv2d, clip as eltwise)\n"));
}

TEST(OnednnTarget, RunsGroupedConvolutionWithARuntimeWeight) {
  Program p = program(R"(
def @main(%x: Tensor[(2, 8, 7, 7), float32], %w: Tensor[(12, 4, 1, 3), float32]) {
  sigmoid(nn.conv2d(%x, %w, padding=[0, 1], groups=2, channels=12, kernel_size=[1, 3]))
}
)",
                      {});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("convolution(nn.conv2d, sigmoid as eltwise)\n"));
}

TEST(OnednnTarget, FusesConv1dAndConv3dWithBiasAndReluIntoOnePrimitive) {
  // Channels last, strided, dilated, asymmetric padding, grouped.
  Program conv1d = program(R"(
def @main(%x: Tensor[(2, 13, 6), float32], %w: Tensor[(3, 3, 8), float32], %b: Tensor[(8), float32]) {
  nn.relu(nn.bias_add(nn.conv1d(%x, %w, strides=[2], padding=[2, 1], dilation=[2], groups=2, channels=8,
                                kernel_size=[3], data_layout="NWC", kernel_layout="WIO"), %b, axis=2))
}
)",
                           {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(conv1d), HasSubstr("convolution(nn.conv1d, add as bias, nn.relu as eltwise)\n"));
  Program conv3d = program(R"(
def @main(%x: Tensor[(1, 4, 5, 6, 7), float32], %w: Tensor[(6, 2, 2, 3, 3), float32], %b: Tensor[(6), float32]) {
  nn.relu(nn.bias_add(nn.conv3d(%x, %w, strides=[1, 2, 1], padding=[0, 1, 1, 1, 0, 2], dilation=[2, 1, 1], groups=2,
                                channels=6, kernel_size=[2, 3, 3]), %b))
}
)",
                           {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(conv3d), HasSubstr("convolution(nn.conv3d, add as bias, nn.relu as eltwise)\n"));
}

TEST(OnednnTarget, RunsChannelsLastConv3dWithARuntimeWeightAndAResidualSum) {
  Program p = program(R"(
def @main(%x: Tensor[(1, 4, 5, 6, 3), float32], %w: Tensor[(3, 1, 3, 3, 4), float32],
          %r: Tensor[(1, 4, 5, 6, 4), float32]) {
  add(nn.conv3d(%x, %w, padding=[1, 0, 1], channels=4, kernel_size=[3, 1, 3], data_layout="NDHWC",
                kernel_layout="DHWIO"), %r)
}
)",
                      {});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("convolution(nn.conv3d, add as sum)\n"));
}

TEST(OnednnTarget, FusesGroupedTransposedConv2dWithBiasAndReluIntoOneDeconvolution) {
  // IOHW weights (in_channels, channels / groups, kh, kw): TVM's and weft's
  // layout, whose groups split the I axis; output_padding under the stride.
  Program p = program(R"(
def @main(%x: Tensor[(1, 4, 5, 6), float32], %w: Tensor[(4, 3, 3, 2), float32], %b: Tensor[(6), float32]) {
  nn.relu(nn.bias_add(nn.conv2d_transpose(%x, %w, strides=[2, 3], padding=[1, 0, 2, 1], output_padding=[1, 2],
                                          dilation=[2, 1], groups=2, channels=6, kernel_size=[3, 2]), %b))
}
)",
                      {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(p),
              HasSubstr("deconvolution(nn.conv2d_transpose, add as bias, nn.relu as eltwise)\n"));
}

TEST(OnednnTarget, FusesTransposedConv1dAndConv3dWithBiasAndReluIntoOneDeconvolution) {
  Program conv1d = program(R"(
def @main(%x: Tensor[(2, 6, 7), float32], %w: Tensor[(6, 2, 4), float32], %b: Tensor[(6), float32]) {
  nn.relu(nn.bias_add(nn.conv1d_transpose(%x, %w, strides=[3], padding=[2, 1], output_padding=[2], groups=3,
                                          channels=6, kernel_size=[4]), %b))
}
)",
                           {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(conv1d),
              HasSubstr("deconvolution(nn.conv1d_transpose, add as bias, nn.relu as eltwise)\n"));
  Program conv3d = program(R"(
def @main(%x: Tensor[(1, 3, 3, 4, 2), float32], %w: Tensor[(3, 5, 2, 3, 2), float32], %b: Tensor[(5), float32]) {
  nn.relu(nn.bias_add(nn.conv3d_transpose(%x, %w, strides=[2, 1, 2], padding=[1, 1, 0, 0, 1, 1], output_padding=[1, 0, 1],
                                          dilation=[1, 2, 1], channels=5, kernel_size=[2, 3, 2]), %b))
}
)",
                           {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(conv3d),
              HasSubstr("deconvolution(nn.conv3d_transpose, add as bias, nn.relu as eltwise)\n"));
}

TEST(OnednnTarget, RunsTransposedConvolutionWithARuntimeGroupedWeightAndAResidualSum) {
  Program p = program(R"(
def @main(%x: Tensor[(1, 6, 4, 4), float32], %w: Tensor[(6, 2, 3, 3), float32], %r: Tensor[(1, 6, 8, 8), float32]) {
  add(nn.conv2d_transpose(%x, %w, strides=[2, 2], padding=[1, 1], output_padding=[1, 1], groups=3, channels=6,
                          kernel_size=[3, 3]), %r)
}
)",
                      {});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("deconvolution(nn.conv2d_transpose, add as sum)\n"));
}

TEST(OnednnTarget, RunsBlockedConv3dAndTransposedConv2dAsTheirBytesLie) {
  // The rank-generic mapping reads blocked layouts as the conv2d one does:
  // 4c data, 4i4o (conv) and 4o4i (transposed) weights.
  Program conv3d = program(R"(
def @main(%x: Tensor[(1, 2, 4, 5, 5, 4), float32], %w: Tensor[(3, 2, 3, 1, 3, 4, 4), float32]) {
  nn.relu(nn.conv3d(%x, %w, padding=[1, 0, 1], channels=12, kernel_size=[3, 1, 3], data_layout="NCDHW4c",
                    kernel_layout="OIDHW4i4o"))
}
)",
                           {"w"});
  EXPECT_THAT(expect_runs_on_onednn(conv3d), HasSubstr("convolution(nn.conv3d, nn.relu as eltwise)\n"));
  Program transposed = program(R"(
def @main(%x: Tensor[(1, 2, 4, 3, 4), float32], %w: Tensor[(2, 3, 3, 2, 4, 4), float32]) {
  nn.relu(nn.conv2d_transpose(%x, %w, strides=[2, 1], padding=[1, 0], output_padding=[1, 0], channels=12,
                              kernel_size=[3, 2], data_layout="NCHW4c", kernel_layout="IOHW4o4i"))
}
)",
                               {"w"});
  EXPECT_THAT(expect_runs_on_onednn(transposed), HasSubstr("deconvolution(nn.conv2d_transpose, nn.relu as eltwise)\n"));
}

TEST(OnednnTarget, FusesDenseBiasAndTanhIntoOneMatmul) {
  Program p = program(R"(
def @main(%x: Tensor[(2, 3, 20), float32], %w: Tensor[(7, 20), float32], %b: Tensor[(7), float32]) {
  tanh(nn.bias_add(nn.dense(%x, %w, units=7), %b, axis=-1))
}
)",
                      {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("matmul(nn.dense, add as bias, tanh as eltwise)\n"));
}

TEST(OnednnTarget, RunsTransposedMatmulAndBroadcastBatchMatmul) {
  Program mm = program(R"(
def @main(%a: Tensor[(5, 4), float32], %b: Tensor[(6, 5), float32]) {
  nn.matmul(%a, %b, transpose_a=True, transpose_b=True)
}
)",
                       {});
  EXPECT_THAT(expect_runs_on_onednn(mm), HasSubstr("matmul(nn.matmul)\n"));
  Program bmm = program(R"(
def @main(%a: Tensor[(3, 4, 5), float32], %b: Tensor[(3, 6, 5), float32], %c: Tensor[(3, 4, 6), float32]) {
  multiply(nn.batch_matmul(%a, %b, transpose_b=True), %c)
}
)",
                        {});
  EXPECT_THAT(expect_runs_on_onednn(bmm), HasSubstr("matmul(nn.batch_matmul, multiply as binary)\n"));
}

TEST(OnednnTarget, RunsBroadcastingBinaryOpsAsBinaryPrimitives) {
  Program p = program(R"(
def @main(%a: Tensor[(2, 3, 4), float32], %b: Tensor[(3, 1), float32]) {
  maximum(subtract(%a, %b), %b)
}
)",
                      {});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("binary(subtract, maximum as binary)\n"));
}

TEST(OnednnTarget, RunsAGroupOfSeveralPrimitivesWithASharedIntermediate) {
  // Inference batch_norm as SimplifyInference writes it, channels last: the
  // scale is read twice, so it ends one primitive and feeds two others.
  Program p = program(R"(
def @main(%x: Tensor[(2, 3, 4, 5), float32], %g: Tensor[(5), float32], %b: Tensor[(5), float32],
          %m: Tensor[(5), float32], %v: Tensor[(5), float32]) {
  %0 = multiply(rsqrt(add(%v, 1.5f)), %g);
  add(multiply(%x, %0), add(multiply(negative(%m), %0), %b))
}
)",
                      {});
  EXPECT_THAT(expect_runs_on_onednn(p), HasSubstr("binary(add, rsqrt as eltwise, multiply as binary), binary(multiply), "
                                                  "eltwise(negative), binary(multiply, add as sum), binary(add)\n"));
}

TEST(OnednnTarget, JoinsConvolutionOutputsInOneConcatStep) {
  Program p = program(R"(
def @main(%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(4, 3, 1, 1), float32], %y: Tensor[(1, 2, 5, 5), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %w, channels=4, kernel_size=[1, 1]));
  concatenate((%y, %0, %y), axis=1)
}
)",
                      {"w"});
  Built built = build_for_onednn(p.mod);
  Value got = GraphExecutor(built.compiled).run(p.args);
  EXPECT_LE(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 1e-5);
  size_t concat_groups = 0;
  for (const CompiledGroup& group : built.compiled->groups) {
    if (std::find(group.ops.begin(), group.ops.end(), "concatenate") == group.ops.end()) continue;
    ++concat_groups;
    EXPECT_EQ(group.target, "onednn");
  }
  EXPECT_EQ(concat_groups, 1u);
  EXPECT_THAT(built.report, HasSubstr("concat(concatenate)"));
}

/// concatenate((relu(a), b, c), axis=2) of sources with `rows` rows each
/// (of `width` floats, in 2 x 3 outer blocks), run as one onednn group: the
/// same floats as the interpreter's.
void expect_inner_concat_copies_exactly(int64_t width, const std::array<int64_t, 3>& rows) {
  auto tensor = [&](int64_t r) {
    return "Tensor[(2, 3, " + std::to_string(r) + ", " + std::to_string(width) + "), float32]";
  };
  Program p = program("def @main(%a: " + tensor(rows[0]) + ", %b: " + tensor(rows[1]) + ", %c: " + tensor(rows[2]) +
                          ") {\n  concatenate((nn.relu(%a), %b, %c), axis=2)\n}\n",
                      {});
  Built built = build_for_onednn(p.mod);
  ASSERT_EQ(built.compiled->groups.size(), 1u);
  EXPECT_EQ(built.compiled->groups[0].target, "onednn");
  Value got = GraphExecutor(built.compiled).run(p.args);
  EXPECT_EQ(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 0.0);
}

TEST(OnednnTarget, AConcatAlongAnInnerAxisCopiesEachSourcesChunksInOrder) {
  // Along axis 2 each source is one chunk per (n, c): 2 x 3 chunks of 2, 1
  // and 3 rows, interleaved in the output.
  expect_inner_concat_copies_exactly(4, {2, 1, 3});
}

TEST(OnednnTarget, ALargeConcatSharedAmongThreadsCopiesEveryChunkOnce) {
  // 48000 floats, past the size the threads share: 6 rows of chunks of 4000,
  // 700 and 3300 floats, so each thread's share starts and ends mid-chunk.
  expect_inner_concat_copies_exactly(100, {40, 7, 33});
}

TEST(OnednnTarget, DeclinesAFloat64ConvolutionSayingWhy) {
  IRModule mod = infer_type(parse_module(R"(
def @main(%x: Tensor[(1, 2, 5, 5), float64], %w: Tensor[(4, 2, 3, 3), float64]) {
  nn.conv2d(%x, %w, channels=4, kernel_size=[3, 3])
}
)"));
  const TargetDef& def = TargetRegistry::global().get("onednn");
  std::shared_ptr<Target> target = def.create(def.options.normalize("onednn", make_attrs({{"verbose", true}})));
  ::testing::internal::CaptureStderr();
  const bool supported = target->supports(downcast<CallNode>(mod.main()->body));
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(supported);
  EXPECT_THAT(report, HasSubstr("declines nn.conv2d"));
  EXPECT_THAT(report, HasSubstr("runs float32 of static shape"));
  // The build runs it on ref instead.
  Built built = build_for_onednn(mod);
  ASSERT_EQ(built.compiled->groups.size(), 1u);
  EXPECT_EQ(built.compiled->groups[0].target, kReferenceTarget);
  EXPECT_THAT(built.report, Not(HasSubstr("compiled a group")));
}

// ---- op families mapped onto one oneDNN primitive each ----

/// Why the onednn target declines the body call of `text`'s main (empty when it claims it).
std::string refusal_of(const std::string& text) {
  IRModule mod = infer_type(parse_module(text));
  const TargetDef& def = TargetRegistry::global().get("onednn");
  std::shared_ptr<Target> target = def.create(def.options.normalize("onednn", make_attrs({{"verbose", true}})));
  ::testing::internal::CaptureStderr();
  const bool supported = target->supports(downcast<CallNode>(mod.main()->body));
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(supported, report.empty()) << report;
  return report;
}

TEST(OnednnTarget, DeclinesALayoutTransformThatPads) {
  // 3 channels into 16-channel blocks pads to 16: no reorder does that.
  EXPECT_THAT(refusal_of(R"(
def @main(%x: Tensor[(1, 3, 4, 4), float32]) {
  layout_transform(%x, src_layout="NCHW", dst_layout="NCHW16c")
}
)"),
              HasSubstr("pads or crops NCHW -> NCHW16c"));
}

Tensor f32_tensor(std::vector<int64_t> shape, const std::vector<float>& values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

TEST(OnednnTarget, DeclinesATransposedConvolutionWhoseOutputPaddingReachesTheStride) {
  // weft (as TVM) allows output_padding under the dilation; oneDNN's
  // deconvolution infers it from the dst extent, only under the stride.
  const std::string text = R"(
def @main(%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(2, 3, 3, 3), float32]) {
  nn.conv2d_transpose(%x, %w, output_padding=[1, 0], dilation=[2, 2], channels=3, kernel_size=[3, 3])
}
)";
  const std::string why = refusal_of(text);
  EXPECT_THAT(why, HasSubstr("declines nn.conv2d_transpose"));
  EXPECT_THAT(why, HasSubstr("output_padding [1, 0] is not smaller than strides [1, 1] on every axis, which "
                             "oneDNN's deconvolution cannot express"));
  // The build runs it on ref instead.
  Built built = build_for_onednn(infer_type(parse_module(text)));
  ASSERT_EQ(built.compiled->groups.size(), 1u);
  EXPECT_EQ(built.compiled->groups[0].target, kReferenceTarget);
}

TEST(OnednnTarget, RunsPreluAlongItsAxisAsAPreluPrimitive) {
  for (const char* text : {R"(
def @main(%x: Tensor[(2, 3, 4, 5), float32], %a: Tensor[(3), float32]) { nn.prelu(%x, %a) }
)",
                           R"(
def @main(%x: Tensor[(2, 3, 4, 5), float32], %a: Tensor[(5), float32]) { nn.prelu(%x, %a, axis=3) }
)"}) {
    EXPECT_THAT(expect_runs_on_onednn(program(text, {"a"})), HasSubstr("compiled a group to prelu(nn.prelu)\n"));
  }
}

TEST(OnednnTarget, RunsLrnAcrossChannelsAsTopiDefinesIt) {
  // Hand-worked: data [1, 2, 3] on the channels, size 3, alpha 3, beta 1,
  // bias 1: x / (1 + 3 / 3 * sum of the squares of the channels around).
  IRModule mod = infer_type(parse_module(R"(
def @main(%x: Tensor[(1, 3, 1, 1), float32]) { nn.lrn(%x, size=3, alpha=3f, beta=1f, bias=1f) }
)"));
  Built built = build_for_onednn(mod);
  EXPECT_THAT(built.report, HasSubstr("compiled a group to lrn(nn.lrn)\n"));
  Tensor got = GraphExecutor(built.compiled).run({Value(f32_tensor({1, 3, 1, 1}, {1, 2, 3}))}).tensor();
  const float want[] = {1.f / 6, 2.f / 15, 3.f / 14};
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(got.data_as<float>()[c], want[c], 1e-6) << "channel " << c;
  // Channels last, against the interpreter.
  EXPECT_THAT(expect_runs_on_onednn(program(R"(
def @main(%x: Tensor[(2, 3, 4, 7), float32]) { nn.lrn(%x, axis=3, size=5, alpha=0.5f, beta=0.6f, bias=1.5f) }
)",
                                            {})),
              HasSubstr("lrn(nn.lrn)\n"));
}

TEST(OnednnTarget, RunsAdaptivePoolingOverEvenBinsAsPooling) {
  EXPECT_THAT(expect_runs_on_onednn(program(R"(
def @main(%x: Tensor[(1, 3, 6, 8), float32]) { nn.adaptive_avg_pool2d(%x, output_size=[3, 2]) }
)",
                                            {})),
              HasSubstr("compiled a group to pooling(nn.adaptive_avg_pool2d)\n"));
  EXPECT_THAT(expect_runs_on_onednn(program(R"(
def @main(%x: Tensor[(2, 6, 4, 3), float32]) { nn.adaptive_max_pool2d(%x, output_size=[2, 4], layout="NHWC") }
)",
                                            {})),
              HasSubstr("compiled a group to pooling(nn.adaptive_max_pool2d)\n"));
}

TEST(OnednnTarget, DeclinesAdaptivePoolingOverUnevenBinsSayingWhy) {
  const std::string why = refusal_of(R"(
def @main(%x: Tensor[(1, 2, 5, 7), float32]) { nn.adaptive_avg_pool2d(%x, output_size=[5, 2]) }
)");
  EXPECT_THAT(why, HasSubstr("its output extent 2 on W does not divide the input's 7, so its bins are uneven"));
}

/// The passes a build leaves out for nn.layer_norm to reach the target:
/// SimplifyInference writes it as mean, variance and arithmetic otherwise.
const std::vector<std::string> kKeepLayerNorm = {"SimplifyInference"};

TEST(OnednnTarget, RunsLayerNormOverTheLastAxisAsLayerNormalization) {
  for (const char* text : {R"(
def @main(%x: Tensor[(2, 3, 6), float32], %g: Tensor[(6), float32], %b: Tensor[(6), float32]) {
  nn.layer_norm(%x, %g, %b, epsilon=0.01f)
}
)",
                           R"(
def @main(%x: Tensor[(4, 7), float32], %g: Tensor[(7), float32], %b: Tensor[(7), float32]) {
  nn.layer_norm(%x, %g, %b, axis=-1, scale=False)
}
)"}) {
    Program p = program(text, {"g", "b"});
    Built built = build_for_onednn(p.mod, {}, kKeepLayerNorm);
    EXPECT_THAT(built.report, HasSubstr("compiled a group to layer_normalization(nn.layer_norm)\n"));
    Value got = GraphExecutor(built.compiled).run(p.args);
    EXPECT_LE(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 1e-5) << text;
  }
  // Hand-worked: [1, 3] has mean 2 and variance 1; with epsilon 0, gamma
  // [2, 1] and beta [0, 10] it normalizes to [-1, 1] -> [-2, 11].
  IRModule mod = infer_type(parse_module(R"(
def @main(%x: Tensor[(1, 2), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32]) {
  nn.layer_norm(%x, %g, %b, epsilon=0f)
}
)"));
  Built built = build_for_onednn(mod, {}, kKeepLayerNorm);
  Tensor got = GraphExecutor(built.compiled)
                   .run({Value(f32_tensor({1, 2}, {1, 3})), Value(f32_tensor({2}, {2, 1})),
                         Value(f32_tensor({2}, {0, 10}))})
                   .tensor();
  EXPECT_NEAR(got.data_as<float>()[0], -2.f, 1e-5);
  EXPECT_NEAR(got.data_as<float>()[1], 11.f, 1e-5);
}

TEST(OnednnTarget, DeclinesLayerNormOnAnAxisOtherThanTheLast) {
  EXPECT_THAT(refusal_of(R"(
def @main(%x: Tensor[(2, 5, 3), float32], %g: Tensor[(5), float32], %b: Tensor[(5), float32]) {
  nn.layer_norm(%x, %g, %b, axis=1)
}
)"),
              HasSubstr("axis 1 of Tensor[(2, 5, 3), float32] is not the last"));
}

TEST(OnednnTarget, RoundsHalvesToEvenAsTheReferenceDoes) {
  IRModule mod = infer_type(parse_module("def @main(%x: Tensor[(6), float32]) { round(%x) }"));
  Built built = build_for_onednn(mod);
  EXPECT_THAT(built.report, HasSubstr("compiled a group to eltwise(round)\n"));
  Tensor got = GraphExecutor(built.compiled).run({Value(f32_tensor({6}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5}))}).tensor();
  const float want[] = {-2, -2, 0, 0, 2, 2};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got.data_as<float>()[i], want[i]) << "element " << i;
}

TEST(OnednnTarget, FusesGeluAsTheFrontendsWriteItAsAGeluPostOp) {
  // TVM's PyTorch converter: x * (0.5 + erf(x * sqrt(0.5)) * 0.5).
  Program torch_form = program(R"(
def @main(%x: Tensor[(2, 16), float32], %w: Tensor[(8, 16), float32], %b: Tensor[(8), float32]) {
  %0 = nn.bias_add(nn.dense(%x, %w, units=8), %b);
  multiply(%0, add(0.5f, multiply(erf(multiply(%0, 0.707107f)), 0.5f)))
}
)",
                               {"w", "b"});
  EXPECT_THAT(expect_runs_on_onednn(torch_form),
              HasSubstr("compiled a group to matmul(nn.dense, add as bias, gelu_erf as eltwise)\n"));
  // Its ONNX converter: 0.5 * x * (1 + erf(x / sqrt(2))).
  Program onnx_form = program(R"(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);
  multiply(multiply(0.5f, %0), add(1f, erf(divide(%0, 1.41421f))))
}
)",
                              {"w"});
  EXPECT_THAT(expect_runs_on_onednn(onnx_form), HasSubstr("compiled a group to convolution(nn.conv2d, gelu_erf as eltwise)\n"));
  // Its FastGelu: 0.5 * x * (1 + tanh(sqrt(2 / pi) * x + 0.044715 * sqrt(2 / pi) * x^3)).
  Program fast_form = program(R"(
def @main(%x: Tensor[(2, 16), float32], %w: Tensor[(8, 16), float32]) {
  %0 = nn.dense(%x, %w, units=8);
  %1 = add(multiply(0.797885f, %0), multiply(0.0356774f, power(%0, 3f)));
  multiply(multiply(0.5f, %0), add(1f, tanh(%1)))
}
)",
                              {"w"});
  EXPECT_THAT(expect_runs_on_onednn(fast_form), HasSubstr("compiled a group to matmul(nn.dense, gelu_tanh as eltwise)\n"));
}

TEST(OnednnTarget, RunsPowerOfAConstantExponentAsEltwisePow) {
  // Hand-worked, negative bases included: x^3 keeps the sign, x^0.5 of a
  // negative is NaN as std::pow gives it.
  for (const auto& [exponent, want] : std::vector<std::pair<std::string, std::vector<float>>>{
           {"3f", {-8.f, -0.125f, 0.f, 3.375f}}, {"0.5f", {NAN, NAN, 0.f, std::sqrt(1.5f)}}}) {
    IRModule mod = infer_type(parse_module("def @main(%x: Tensor[(4), float32]) { power(%x, " + exponent + ") }"));
    Built built = build_for_onednn(mod);
    EXPECT_THAT(built.report, HasSubstr("compiled a group to eltwise(power)\n"));
    Tensor got = GraphExecutor(built.compiled).run({Value(f32_tensor({4}, {-2.f, -0.5f, 0.f, 1.5f}))}).tensor();
    for (int i = 0; i < 4; ++i) {
      if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got.data_as<float>()[i])) << exponent << " element " << i;
      else EXPECT_NEAR(got.data_as<float>()[i], want[i], 1e-6) << exponent << " element " << i;
    }
  }
  // A run-time exponent is no eltwise.
  EXPECT_THAT(refusal_of("def @main(%x: Tensor[(4), float32], %e: Tensor[(4), float32]) { power(%x, %e) }"),
              HasSubstr("oneDNN does not run power"));
}

TEST(OnednnTarget, RunsErfOnlyInsideAGelu) {
  EXPECT_THAT(refusal_of("def @main(%x: Tensor[(2, 3), float32]) { erf(%x) }"),
              HasSubstr("oneDNN 2.6 has no erf eltwise: the onednn target runs erf only inside a GELU"));
  // An erf of x / sqrt(2) is claimed, but outside the whole pattern (here
  // 0.6 for 0.5) compile declines its group, which runs on ref instead.
  Program near_miss = program(R"(
def @main(%x: Tensor[(2, 16), float32]) {
  multiply(%x, add(0.5f, multiply(erf(multiply(%x, 0.707107f)), 0.6f)))
}
)",
                              {});
  Built built = build_for_onednn(near_miss.mod);
  ASSERT_EQ(built.compiled->groups.size(), 1u);
  EXPECT_EQ(built.compiled->groups[0].target, kReferenceTarget);
  Value got = GraphExecutor(built.compiled).run(near_miss.args);
  EXPECT_LE(max_error(got.tensor(), Interpreter(near_miss.mod).run_main(near_miss.args).tensor()), 1e-6);
}

TEST(OnednnTarget, FusesSwishAndHardswishAsTheirEltwisePostOps) {
  // SiLU, x * sigmoid(x), and swish with its sigmoid's argument scaled.
  Program silu = program(R"(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);
  multiply(%0, sigmoid(%0))
}
)",
                         {"w"});
  EXPECT_THAT(expect_runs_on_onednn(silu), HasSubstr("compiled a group to convolution(nn.conv2d, swish as eltwise)\n"));
  Program swish = program(R"(
def @main(%x: Tensor[(2, 16), float32], %w: Tensor[(8, 16), float32]) {
  %0 = nn.dense(%x, %w, units=8);
  multiply(sigmoid(multiply(1.702f, %0)), %0)
}
)",
                          {"w"});
  EXPECT_THAT(expect_runs_on_onednn(swish), HasSubstr("compiled a group to matmul(nn.dense, swish as eltwise)\n"));
  // TVM's PyTorch converter: x * (clip(x + 3, 0, 6) / 6).
  Program hardswish = program(R"(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);
  multiply(%0, divide(clip(add(%0, 3f), a_min=0f, a_max=6f), 6f))
}
)",
                              {"w"});
  EXPECT_THAT(expect_runs_on_onednn(hardswish),
              HasSubstr("compiled a group to convolution(nn.conv2d, hardswish as eltwise)\n"));
  // Another bound is no hardswish: its calls run as they are written.
  Program near_miss = program(R"(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);
  multiply(%0, divide(clip(add(%0, 3f), a_min=0f, a_max=5f), 6f))
}
)",
                              {"w"});
  EXPECT_THAT(expect_runs_on_onednn(near_miss), Not(HasSubstr("hardswish")));
}

}  // namespace
}  // namespace weft
