// Blocked layouts on the onednn target: a weft tensor in NCHW16c (or
// OIHW16i16o, ...) is the oneDNN memory of the same bytes, AlterOpLayout
// asks for those layouts, and a network then runs blocked from its first
// convolution to its last with no reorder around the primitives and a
// layout_transform only where the blocks end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "memory_view.h"
#include "onednn_test_support.h"
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
using dnnl::memory;
using onednn_test::has_avx512;
namespace view = onednn_target;

/// Dims, strides and inner blocks, each compared (oneDNN's == skips the
/// strides of unit dims, which its kernels do not).
void expect_same_desc(const memory::desc& got, const memory::desc& want) {
  ASSERT_EQ(got.dims(), want.dims());
  const dnnl_blocking_desc_t &g = got.data.format_desc.blocking, &w = want.data.format_desc.blocking;
  for (int d = 0; d < got.data.ndims; ++d) EXPECT_EQ(g.strides[d], w.strides[d]) << "dim " << d;
  ASSERT_EQ(g.inner_nblks, w.inner_nblks);
  for (int b = 0; b < g.inner_nblks; ++b) {
    EXPECT_EQ(g.inner_blks[b], w.inner_blks[b]) << "block " << b;
    EXPECT_EQ(g.inner_idxs[b], w.inner_idxs[b]) << "block " << b;
  }
}

memory::desc layout_view(const view::Shape& shape, const std::string& layout, const std::string& letters) {
  std::optional<view::AxisGroups> groups = view::layout_groups(layout, letters);
  EXPECT_TRUE(groups) << layout;
  return groups ? view::plain_view(shape, *groups) : memory::desc();
}

TEST(OnednnBlockedMemory, WeftLayoutsAreOneDnnsFormatTagsOfTheSameBytes) {
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  expect_same_desc(layout_view({2, 4, 5, 6, 16}, "NCHW16c", "NCHW"), memory::desc({2, 64, 5, 6}, f32, tag::nChw16c));
  expect_same_desc(layout_view({1, 1, 3, 3, 16}, "NCHW16c", "NCHW"), memory::desc({1, 16, 3, 3}, f32, tag::nChw16c));
  expect_same_desc(layout_view({1, 3, 4, 5, 8}, "NCHW8c", "NCHW"), memory::desc({1, 24, 4, 5}, f32, tag::nChw8c));
  expect_same_desc(layout_view({1, 4, 5, 6}, "NHWC", "NCHW"), memory::desc({1, 6, 4, 5}, f32, tag::nhwc));
  expect_same_desc(layout_view({2, 3, 3, 3, 16, 16}, "OIHW16i16o", "OIHW"),
                   memory::desc({32, 48, 3, 3}, f32, tag::OIhw16i16o));
  // A depthwise kernel (O/G = 1 between the group and I): OIHW1i16o is Goihw16g.
  const view::AxisGroups oihw = *view::layout_groups("OIHW1i16o", "OIHW");
  expect_same_desc(view::plain_view({2, 1, 3, 3, 1, 16}, {oihw[0], {}, oihw[1], oihw[2], oihw[3]}),
                   memory::desc({32, 1, 1, 3, 3}, f32, tag::Goihw16g));
  // A per-channel scale after AlterOpLayout, (1, C/16, 1, 1, 16), broadcast
  // over the blocked dst as a binary post-op operand.
  const view::AxisGroups nchw16c = *view::layout_groups("NCHW16c", "NCHW");
  std::optional<memory::desc> scale = view::broadcast_view({1, 2, 1, 1, 16}, {1, 2, 7, 7, 16}, nchw16c);
  ASSERT_TRUE(scale);
  expect_same_desc(*scale, memory::desc({1, 32, 1, 1}, f32, tag::nChw16c));
  EXPECT_FALSE(view::broadcast_view({1, 2, 1, 1, 1}, {1, 2, 7, 7, 16}, nchw16c)) << "half a channel dim broadcast";
  // Blocks amid the primal axes, or other letters, have no desc here.
  EXPECT_FALSE(view::layout_groups("NC16cHW", "NCHW"));
  EXPECT_FALSE(view::layout_groups("NCHW16c", "OIHW"));
  EXPECT_FALSE(view::layout_groups("NCH", "NCHW"));
}

/// `text`'s main with every parameter but the first bound to random data
/// (seed 1), and a random input (seed 2).
struct Program {
  IRModule mod;
  std::vector<Value> args;
};

Program program(const std::string& text, bool bind_weights = true) {
  IRModule mod = infer_type(parse_module(text));
  std::map<std::string, Tensor> params;
  const std::string input = mod.main()->params[0]->name_hint;
  for (const auto& [name, tensor] : testing::random_inputs(mod.main(), 1, -1.0, 1.0)) {
    if (bind_weights && name != input) params.emplace(name, tensor);
  }
  mod = infer_type(bind_params(mod, params));
  std::vector<Value> args;
  for (const auto& [name, tensor] : testing::random_inputs(mod.main(), 2, -1.0, 1.0)) args.push_back(Value(tensor));
  return {mod, args};
}

struct OnednnRun {
  std::shared_ptr<const CompiledModule> compiled;
  std::string report;  // the target's verbose lines
  size_t layout_transforms = 0;
  double error = 0;  // the largest |got - want| / max(1, |want|) against the interpreter
};

/// Builds `p` for onednn (opt_level 3, so AlterOpLayout runs), runs it and the
/// interpreter on the same input.
OnednnRun run_on_onednn(const Program& p) {
  RunConfig config;
  config.targets = {"onednn"};
  config.target_options["onednn"] = make_attrs({{"verbose", true}});
  EXPECT_EQ(config.opt_level, 3);
  OnednnRun run;
  ::testing::internal::CaptureStderr();
  try {
    run.compiled = build(p.mod, config);
  } catch (...) {
    ::testing::internal::GetCapturedStderr();
    throw;
  }
  run.report = ::testing::internal::GetCapturedStderr();
  for (const CompiledGroup& group : run.compiled->groups) {
    run.layout_transforms += std::count(group.ops.begin(), group.ops.end(), "layout_transform");
  }
  const Tensor got = GraphExecutor(run.compiled).run(p.args).tensor();
  const Tensor want = Interpreter(p.mod).run_main(p.args).tensor();
  EXPECT_EQ(got.numel(), want.numel());
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(i), w = want.element_as_double(i);
    run.error = std::max(run.error, std::abs(g - w) / std::max(1.0, std::abs(w)));
  }
  return run;
}

/// run_on_onednn(p) with oneDNN's verbose lines of the primitives it ran.
std::pair<OnednnRun, std::string> run_on_onednn_verbosely(const Program& p) {
  dnnl::set_verbose(1);
  ::testing::internal::CaptureStdout();
  OnednnRun run;
  try {
    run = run_on_onednn(p);
  } catch (...) {
    dnnl::set_verbose(0);
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  dnnl::set_verbose(0);
  return {run, ::testing::internal::GetCapturedStdout()};
}

size_t groups_with(const CompiledModule& compiled, const std::string& op) {
  size_t n = 0;
  for (const CompiledGroup& group : compiled.groups) {
    if (std::find(group.ops.begin(), group.ops.end(), op) == group.ops.end()) continue;
    ++n;
    EXPECT_EQ(group.target, "onednn") << op << ":\n" << describe_partition(compiled);
  }
  return n;
}

TEST(OnednnBlockedLayouts, AResnetBlockRunsBlockedWithLayoutTransformsOnlyAtItsBorders) {
  // The first conv (RGB), its batch norm as SimplifyInference leaves it, a
  // basic block (conv, bias, relu, conv, residual add, relu), a strided 1x1
  // projection, max and global average pooling, the classifier.
  Program p = program(R"(
def @main(%x: Tensor[(1, 3, 16, 16), float32], %w0: Tensor[(16, 3, 3, 3), float32], %s: Tensor[(16, 1, 1), float32],
          %t: Tensor[(16, 1, 1), float32], %w1: Tensor[(16, 16, 3, 3), float32], %b1: Tensor[(16), float32],
          %w2: Tensor[(16, 16, 3, 3), float32], %w3: Tensor[(32, 16, 1, 1), float32], %wd: Tensor[(10, 32), float32]) {
  %0 = nn.conv2d(%x, %w0, padding=[1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.relu(add(multiply(%0, %s), %t));
  %2 = nn.relu(nn.bias_add(nn.conv2d(%1, %w1, padding=[1, 1], channels=16, kernel_size=[3, 3]), %b1));
  %3 = nn.relu(add(nn.conv2d(%2, %w2, padding=[1, 1], channels=16, kernel_size=[3, 3]), %1));
  %4 = nn.max_pool2d(%3, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]);
  %5 = nn.relu(nn.conv2d(%4, %w3, strides=[2, 2], channels=32, kernel_size=[1, 1]));
  nn.dense(nn.batch_flatten(nn.global_avg_pool2d(%5)), %wd, units=10)
}
)");
  OnednnRun run = run_on_onednn(p);
  EXPECT_LE(run.error, 1e-5);
  EXPECT_EQ(groups_with(*run.compiled, "nn.conv2d"), 4u);
  EXPECT_EQ(groups_with(*run.compiled, "nn.max_pool2d"), 1u);
  EXPECT_EQ(groups_with(*run.compiled, "nn.global_avg_pool2d"), 1u);
  // The first conv reads the NCHW input as it is; the weights' transforms
  // fold into constants; the one left takes the pooled features out of the
  // blocks for the flatten.
  EXPECT_EQ(run.layout_transforms, 1u) << describe_partition(*run.compiled);
  EXPECT_THAT(run.report, Not(HasSubstr("reorders"))) << run.report;
  EXPECT_THAT(run.report, HasSubstr("convolution(nn.conv2d, add as sum, nn.relu as eltwise)\n")) << run.report;
  EXPECT_THAT(run.report, HasSubstr("convolution(nn.conv2d, add as bias, nn.relu as eltwise)\n")) << run.report;
  EXPECT_THAT(run.report, HasSubstr("pooling(nn.max_pool2d)\n")) << run.report;
}

TEST(OnednnBlockedLayouts, DepthwiseConvsAndAChannelConcatStayBlocked) {
  // A mobilenet step (depthwise 3x3, pointwise 1x1) and a squeezenet fire
  // module (squeeze, then 1x1 and 3x3 expands joined along the channels),
  // average pooled.
  Program p = program(R"(
def @main(%x: Tensor[(1, 3, 12, 12), float32], %w0: Tensor[(16, 3, 3, 3), float32], %wd: Tensor[(16, 1, 3, 3), float32],
          %wp: Tensor[(32, 16, 1, 1), float32], %ws: Tensor[(16, 32, 1, 1), float32], %we1: Tensor[(32, 16, 1, 1), float32],
          %we3: Tensor[(32, 16, 3, 3), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %w0, strides=[2, 2], padding=[1, 1], channels=16, kernel_size=[3, 3]));
  %1 = nn.relu(nn.conv2d(%0, %wd, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3]));
  %2 = nn.relu(nn.conv2d(%1, %wp, channels=32, kernel_size=[1, 1]));
  %3 = nn.relu(nn.conv2d(%2, %ws, channels=16, kernel_size=[1, 1]));
  %4 = nn.relu(nn.conv2d(%3, %we1, channels=32, kernel_size=[1, 1]));
  %5 = nn.relu(nn.conv2d(%3, %we3, padding=[1, 1], channels=32, kernel_size=[3, 3]));
  nn.avg_pool2d(concatenate((%4, %5), axis=1), pool_size=[2, 2], strides=[2, 2])
}
)");
  OnednnRun run = run_on_onednn(p);
  EXPECT_LE(run.error, 1e-5);
  EXPECT_EQ(groups_with(*run.compiled, "nn.conv2d"), 6u);
  EXPECT_EQ(groups_with(*run.compiled, "concatenate"), 1u);
  EXPECT_EQ(run.layout_transforms, 1u) << describe_partition(*run.compiled);  // the pooled result, back to NCHW
  EXPECT_THAT(run.report, Not(HasSubstr("reorders"))) << run.report;
  EXPECT_THAT(run.report, HasSubstr("concat(concatenate)")) << run.report;
}

/// The channel block of this CPU's convolutions, as oneDNN names it ("16b").
std::string native_block() { return has_avx512() ? "16b" : "8b"; }

TEST(OnednnBlockedLayouts, APerChannelOperandOfBlockedDataRunsOnAJitBinaryKernel) {
  // A pre-activation batch norm on blocked data (this CPU's block: 16
  // channels with AVX-512, 8 with AVX2), as resnet v2's blocks have between
  // convs: read axis by axis, oneDNN 2.6 has only ref:any for it.
  const std::string block = has_avx512() ? "16" : "8", outer = has_avx512() ? "2" : "4";
  Program p = program(R"(
def @main(%x: Tensor[(1, )" + outer + ", 6, 6, " + block + R"(), float32], %s: Tensor[(1, )" + outer + ", 1, 1, " +
                          block + R"(), float32]) {
  nn.relu(add(%x, %s))
}
)",
                      false);
  const auto [run, executed] = run_on_onednn_verbosely(p);
  EXPECT_LE(run.error, 1e-6);
  EXPECT_THAT(executed, HasSubstr("exec,cpu,binary,jit")) << executed;
  EXPECT_THAT(executed, Not(HasSubstr("ref:any"))) << executed;
}

TEST(OnednnBlockedLayouts, APostOpOnlyAReferenceKernelRunsIsAPrimitiveOfItsOwn) {
  // A transformer's layer norm after its reductions: the variance's rsqrt
  // per row, then the scale and shift per feature (the last axis). oneDNN
  // 2.6 runs a binary post-op broadcast along the last axis only on ref:any,
  // which took the whole primitive there (4.3 ms instead of 10 us here).
  Program p = program(R"(
def @main(%x: Tensor[(1, 128, 256), float32], %v: Tensor[(1, 128, 1), float32], %g: Tensor[(256), float32],
          %b: Tensor[(256), float32]) {
  add(multiply(multiply(%x, rsqrt(add(%v, 1e-05f))), %g), %b)
}
)",
                      false);
  const auto [run, executed] = run_on_onednn_verbosely(p);
  EXPECT_LE(run.error, 1e-5);
  EXPECT_EQ(groups_with(*run.compiled, "rsqrt"), 1u);
  EXPECT_THAT(executed, HasSubstr("exec,cpu,binary,jit")) << executed;
  EXPECT_THAT(executed, Not(HasSubstr("ref:any"))) << executed;
}

TEST(OnednnBlockedLayouts, OutputChannelsOutsideTheBlockRunChannelsLastOrInTheLargestBlockThatDividesThem) {
  // squeezenet's tail: a 1000-channel classifier conv on blocked data, relu,
  // global average pooling. 1000 is no multiple of 16: with AVX-512 it runs
  // channels last (brgconv_1x1:avx512_core, a masked tail), else in 8-channel
  // blocks, never on plain NCHW data, which oneDNN reaches from nChw16c only
  // by its reference reorder.
  Program p = program(R"(
def @main(%x: Tensor[(1, 3, 9, 9), float32], %w0: Tensor[(32, 3, 3, 3), float32], %w1: Tensor[(1000, 32, 1, 1), float32],
          %b1: Tensor[(1000), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %w0, padding=[1, 1], channels=32, kernel_size=[3, 3]));
  %1 = nn.relu(nn.bias_add(nn.conv2d(%0, %w1, channels=1000, kernel_size=[1, 1]), %b1));
  nn.batch_flatten(nn.global_avg_pool2d(%1))
}
)");
  const auto [run, executed] = run_on_onednn_verbosely(p);
  EXPECT_LE(run.error, 1e-5);
  EXPECT_EQ(groups_with(*run.compiled, "nn.conv2d"), 2u);
  // With AVX-512 the first conv writes 16-channel blocks, one transform
  // makes them channels last and the other takes the pooled result out of
  // them; without, the first conv writes the 8-channel blocks itself.
  EXPECT_EQ(run.layout_transforms, has_avx512() ? 2u : 1u) << describe_partition(*run.compiled);
  EXPECT_THAT(run.report, Not(HasSubstr("reorders"))) << run.report;
  EXPECT_THAT(executed, HasSubstr(has_avx512() ? "src_f32::blocked:acdb:f0" : "src_f32::blocked:aBcd8b:f0"))
      << executed;
  if (has_avx512()) {
    EXPECT_THAT(executed, HasSubstr("avx512_core,forward_inference,src_f32::blocked:acdb")) << executed;
  }
  EXPECT_THAT(executed, HasSubstr("mb1_ic32oc1000_")) << executed;
  EXPECT_THAT(executed, Not(HasSubstr(",ref"))) << executed;
}

/// Runs `text` (its weights bound) on onednn and expects it to match the
/// interpreter with `transforms` layout_transforms left, no reorder around
/// the primitives, no reference kernel, and its 16 -> 32 channel `primitive`
/// reading `format` (oneDNN's name of the blocked data, in this CPU's block).
void expect_runs_blocked(const std::string& text, size_t transforms, const std::string& primitive,
                         const std::string& format) {
  const auto [run, executed] = run_on_onednn_verbosely(program(text));
  EXPECT_LE(run.error, 1e-4);  // float32 sums of up to 432 products, in another order
  EXPECT_EQ(run.layout_transforms, transforms) << describe_partition(*run.compiled);
  EXPECT_THAT(run.report, Not(HasSubstr("reorders"))) << run.report;
  EXPECT_THAT(executed, Not(HasSubstr(",ref"))) << executed;
  std::istringstream lines(executed);
  size_t runs = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find(",exec,cpu," + primitive + ",") == std::string::npos || line.find("_ic16oc32_") == std::string::npos) {
      continue;
    }
    ++runs;
    EXPECT_THAT(line, HasSubstr("src_f32::blocked:" + format + ":f0"));
  }
  EXPECT_GE(runs, 1u) << executed;
}

TEST(OnednnBlockedLayouts, Conv1dConv3dAndTransposedConvsRunBlocked) {
  // Each a first conv on 3 channels (plain data in, blocks out), a second
  // on the blocks with bias and relu, and the result back out of the blocks.
  expect_runs_blocked(R"(
def @main(%x: Tensor[(1, 3, 20), float32], %w0: Tensor[(16, 3, 3), float32], %w1: Tensor[(32, 16, 3), float32],
          %b1: Tensor[(32), float32]) {
  %0 = nn.relu(nn.conv1d(%x, %w0, padding=[1], channels=16, kernel_size=[3]));
  nn.relu(nn.bias_add(nn.conv1d(%0, %w1, strides=[2], padding=[1], channels=32, kernel_size=[3]), %b1))
}
)",
                      1, "convolution", "aBc" + native_block());
  expect_runs_blocked(R"(
def @main(%x: Tensor[(1, 3, 6, 8, 8), float32], %w0: Tensor[(16, 3, 3, 3, 3), float32],
          %w1: Tensor[(32, 16, 3, 3, 3), float32], %b1: Tensor[(32), float32]) {
  %0 = nn.relu(nn.conv3d(%x, %w0, padding=[1, 1, 1], channels=16, kernel_size=[3, 3, 3]));
  nn.relu(nn.bias_add(nn.conv3d(%0, %w1, padding=[1, 1, 1], channels=32, kernel_size=[3, 3, 3]), %b1))
}
)",
                      1, "convolution", "aBcde" + native_block());
  expect_runs_blocked(R"(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w0: Tensor[(16, 3, 3, 3), float32], %w1: Tensor[(16, 32, 4, 4), float32],
          %b1: Tensor[(32), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %w0, padding=[1, 1], channels=16, kernel_size=[3, 3]));
  nn.relu(nn.bias_add(nn.conv2d_transpose(%0, %w1, strides=[2, 2], padding=[1, 1], channels=32, kernel_size=[4, 4]), %b1))
}
)",
                      1, "deconvolution", "aBcd" + native_block());
}

TEST(OnednnBlockedLayouts, RunsLayoutTransformsAsReorders) {
  // Data into and out of blocks (through NHWC), and a run-time weight into
  // the blocked kernel layout.
  Program p = program(R"(
def @main(%x: Tensor[(1, 32, 5, 6), float32], %w: Tensor[(32, 16, 3, 3), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%0, src_layout="NHWC", dst_layout="NCHW8c");
  %2 = layout_transform(%w, src_layout="OIHW", dst_layout="OIHW16i16o");
  %3 = add(layout_transform(%1, src_layout="NCHW8c", dst_layout="NCHW"), %x);
  (%3, %2)
}
)",
                      false);
  RunConfig config;
  config.targets = {"onednn"};
  config.target_options["onednn"] = make_attrs({{"verbose", true}});
  config.opt_level = 0;  // the transforms as written
  ::testing::internal::CaptureStderr();
  std::shared_ptr<const CompiledModule> compiled = build(p.mod, config);
  const std::string report = ::testing::internal::GetCapturedStderr();
  for (const CompiledGroup& group : compiled->groups) EXPECT_EQ(group.target, "onednn") << describe_partition(*compiled);
  EXPECT_THAT(report, HasSubstr("reorder(layout_transform)")) << report;
  const Value got = GraphExecutor(compiled).run(p.args), want = Interpreter(p.mod).run_main(p.args);
  for (size_t i = 0; i < 2; ++i) {
    const Tensor g = got.fields()[i].tensor(), w = want.fields()[i].tensor();
    ASSERT_EQ(g.shape(), w.shape());
    for (int64_t e = 0; e < w.numel(); ++e) ASSERT_EQ(g.element_as_double(e), w.element_as_double(e)) << i << ", " << e;
  }
}

}  // namespace
}  // namespace weft
