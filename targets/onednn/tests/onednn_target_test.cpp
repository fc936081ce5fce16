// The onednn target through weft::build, as a user's config drives it: which
// calls it claims, how a group fuses into oneDNN primitives (asked of its
// verbose report) and the values against the interpreter on the same program.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/target.h"
#include "weft/testing/random_data.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Built {
  std::shared_ptr<const CompiledModule> compiled;
  std::string report;  // the target's verbose lines
};

/// Builds `text` for onednn (verbose) with the parameters named in `bound`
/// bound to random constants, so weights reach compile as constants.
Built build_for_onednn(const IRModule& mod) {
  RunConfig config;
  config.targets = {"onednn"};
  config.target_options["onednn"] = make_attrs({{"verbose", true}});
  ::testing::internal::CaptureStderr();
  Built built;
  try {
    built.compiled = build(mod, config);
  } catch (...) {
    ::testing::internal::GetCapturedStderr();
    throw;
  }
  built.report = ::testing::internal::GetCapturedStderr();
  return built;
}

/// `text`'s main with the parameters named in `bound` bound to random data
/// (seed 1), and random arguments (seed 2) for the rest.
struct Program {
  IRModule mod;
  std::vector<Value> args;
};

Program program(const std::string& text, const std::vector<std::string>& bound) {
  IRModule mod = infer_type(parse_module(text));
  std::map<std::string, Tensor> params;
  std::vector<Value> args;
  for (const auto& [name, tensor] : testing::random_inputs(mod.main(), 1, -1.0, 1.0)) {
    if (std::find(bound.begin(), bound.end(), name) != bound.end()) params.emplace(name, tensor);
  }
  mod = infer_type(bind_params(mod, params));
  for (const auto& [name, tensor] : testing::random_inputs(mod.main(), 2, -1.0, 1.0)) args.push_back(Value(tensor));
  return {mod, args};
}

/// The largest |got - want| over max(1, |want|), element by element.
double max_error(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.numel(), want.numel());
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(i), w = want.element_as_double(i);
    worst = std::max(worst, std::abs(g - w) / std::max(1.0, std::abs(w)));
  }
  return worst;
}

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
  config.target_options["onednn"] = make_attrs({{"threads", int64_t{1}}});
  Program p = program(R"(
def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(8, 4, 3, 3), float32]) {
  nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=8, kernel_size=[3, 3]))
}
)",
                      {"w"});
  Value got = GraphExecutor(build(p.mod, config)).run(p.args);
  EXPECT_LE(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 1e-5);
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

TEST(OnednnTarget, JoinsConvolutionOutputsWithAConcatPrimitive) {
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

}  // namespace
}  // namespace weft
