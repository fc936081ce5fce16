// The nn ops' TE computes on the `loops` target (fallback: error, so every op
// runs there): hand-worked cases for the choices that make them match the
// reference kernels exactly, where a plainer TE would not (a conv tap outside
// the data skipped rather than multiplied by a zero pad, a softmax maximum
// folded as the kernel folds it, the divisors of average pooling, the
// gather order of a transposed conv, the first maximum a max-pool gradient
// routes to, a deformable conv's zero samples skipped, Winograd's transforms
// in the accumulator's dtype), each also bit-identical to the interpreter's
// reference kernels.
#include <gmock/gmock.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/run_config.h"
#include "weft/te/function_te.h"

namespace weft::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

RunConfig loops_only() {
  RunConfig config;
  config.targets = {"loops"};
  config.fallback = FallbackPolicy::kError;
  return config;
}

/// What describing `program`'s main as TE (its op calls' te_computes) throws.
struct TeRefusal {
  StatusCode status{};
  std::string message;  ///< "" when the TE was described
};
TeRefusal te_refusal(const std::string& program) {
  IRModule mod = infer_type(parse_module("#[version = \"0.0.5\"]\n" + program));
  try {
    (void)te::function_te(mod.main());
  } catch (const Error& e) {
    return {e.status(), e.what()};
  }
  return {};
}

/// Runs `program` (Relay text) on loops and on the interpreter; expects the
/// same bits from both and returns the loops result's tensors.
std::vector<Tensor> run_on_loops(const IRModule& mod, const std::vector<Tensor>& inputs) {
  std::vector<Value> args(inputs.begin(), inputs.end());
  std::vector<Tensor> got = GraphExecutor(build(mod, loops_only())).run(args).flatten();
  std::vector<Tensor> want = Interpreter(mod).run_main(args).flatten();
  EXPECT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size() && o < want.size(); ++o) {
    std::vector<double> g = elements(got[o]), w = elements(want[o]);
    EXPECT_EQ(g.size(), w.size());
    if (g.size() != w.size()) continue;
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(w[i])) EXPECT_TRUE(std::isnan(g[i])) << "output " << o << " element " << i;
      else EXPECT_EQ(g[i], w[i]) << "output " << o << " element " << i;
    }
  }
  return got;
}
/// The same for `program` in Relay text.
std::vector<Tensor> run_on_loops(const std::string& program, const std::vector<Tensor>& inputs) {
  return run_on_loops(infer_type(parse_module("#[version = \"0.0.5\"]\n" + program)), inputs);
}

/// Runs each case of `op` in the golden file `file` on loops and on the
/// interpreter, expecting the same bits; returns how many ran.
int golden_cases_on_loops(const std::string& file, const std::string& op) {
  nlohmann::json golden = read_json(std::string(WEFT_PLUGIN_GOLDEN_DIR) + "/" + file);
  int ran = 0;
  for (const nlohmann::json& c : golden.at("cases")) {
    if (c.at("op") != op) continue;
    SCOPED_TRACE(file + ": " + c.at("name").get<std::string>());
    std::vector<Tensor> inputs;
    std::vector<Var> params;
    std::vector<Expr> args;
    for (const nlohmann::json& t : c.at("inputs")) {
      const Tensor& in = inputs.emplace_back(tensor_from_json(t));
      params.push_back(var("in" + std::to_string(params.size()), tensor_type(in.shape(), in.dtype())));
      args.push_back(params.back());
    }
    run_on_loops(infer_type(IRModule::from_function(function(params, call(op, args, attrs_from_json(c.at("attrs")))))),
                 inputs);
    ++ran;
  }
  return ran;
}

TEST(NnTeOnLoops, Conv2dSkipsTheTapsOutsideTheData) {
  // 1..9 convolved with ones, padded by 1: each output sums the data under
  // the window. An infinite corner tap only ever lies over the padding for
  // output (0, 0), which stays finite (a zero pad times inf would be NaN).
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const char* program = R"(def @main(%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=1, kernel_size=[3, 3])
})";
  std::vector<Tensor> ones = run_on_loops(program, {tensor_of(x, {1, 1, 3, 3}), tensor_of(std::vector<double>(9, 1), {1, 1, 3, 3})});
  EXPECT_THAT(elements(ones.at(0)), ElementsAre(12, 21, 16, 27, 45, 33, 24, 39, 28));
  std::vector<double> w(9, 1);
  w[0] = kInf;
  std::vector<Tensor> inf = run_on_loops(program, {tensor_of(x, {1, 1, 3, 3}), tensor_of(w, {1, 1, 3, 3})});
  EXPECT_EQ(elements(inf.at(0))[0], 12);
  EXPECT_EQ(elements(inf.at(0))[4], kInf);
}

TEST(NnTeOnLoops, Conv2dTransposeGathersEachInputsContributions) {
  // Ones 2x2 kernel: stride 2 repeats each input in a 2x2 block; stride 1
  // sums the inputs overlapping each output.
  std::vector<Tensor> in = {tensor_of({1, 2, 3, 4}, {1, 1, 2, 2}), tensor_of({1, 1, 1, 1}, {1, 1, 2, 2})};
  std::vector<Tensor> s2 = run_on_loops(R"(def @main(%x: Tensor[(1, 1, 2, 2), float32], %w: Tensor[(1, 1, 2, 2), float32]) {
  nn.conv2d_transpose(%x, %w, channels=1, kernel_size=[2, 2], strides=[2, 2])
})", in);
  EXPECT_THAT(elements(s2.at(0)), ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  std::vector<Tensor> s1 = run_on_loops(R"(def @main(%x: Tensor[(1, 1, 2, 2), float32], %w: Tensor[(1, 1, 2, 2), float32]) {
  nn.conv2d_transpose(%x, %w, channels=1, kernel_size=[2, 2])
})", in);
  EXPECT_THAT(elements(s1.at(0)), ElementsAre(1, 3, 2, 4, 10, 6, 3, 7, 4));
}

TEST(NnTeOnLoops, SoftmaxFoldsItsMaximumAsTheKernel) {
  // A line with one finite logit puts all its mass there; a line of -inf
  // only is NaN (its maximum is -inf, as the kernel's, not the dtype's lowest).
  std::vector<Tensor> out = run_on_loops(R"(def @main(%x: Tensor[(2, 2), float32]) {
  (nn.softmax(%x), nn.log_softmax(%x))
})", {tensor_of({-kInf, 0, -kInf, -kInf}, {2, 2})});
  std::vector<double> s = elements(out.at(0)), l = elements(out.at(1));
  EXPECT_EQ(s[0], 0);
  EXPECT_EQ(s[1], 1);
  EXPECT_TRUE(std::isnan(s[2]) && std::isnan(s[3]));
  EXPECT_EQ(l[0], -kInf);
  EXPECT_EQ(l[1], 0);
}

TEST(NnTeOnLoops, AvgPoolDividesByTheWindowInsideTheDataOrThePaddedData) {
  // 1..9 pooled 2x2 by 2 with a pad of 1: the windows hold {1}, {2, 3},
  // {4, 7} and {5, 6, 8, 9} of the data.
  std::vector<Tensor> x = {tensor_of({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3})};
  std::vector<Tensor> out = run_on_loops(R"(def @main(%x: Tensor[(1, 1, 3, 3), float32]) {
  (nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1]),
   nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1], count_include_pad=True),
   nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1]))
})", x);
  EXPECT_THAT(elements(out.at(0)), ElementsAre(1, 2.5, 5.5, 7));
  EXPECT_THAT(elements(out.at(1)), ElementsAre(0.25, 1.25, 2.75, 7));
  EXPECT_THAT(elements(out.at(2)), ElementsAre(1, 3, 7, 9));
}

TEST(NnTeOnLoops, AdaptivePoolWindowsOverlapWhereTheExtentsDoNotDivide) {
  // 5 -> 3: windows [0, 2), [1, 4), [3, 5).
  std::vector<Tensor> out = run_on_loops(R"(def @main(%x: Tensor[(1, 1, 5), float32]) {
  (nn.adaptive_avg_pool1d(%x, output_size=[3]), nn.adaptive_max_pool1d(%x, output_size=[3]))
})", {tensor_of({1, 2, 3, 4, 5}, {1, 1, 5})});
  EXPECT_THAT(elements(out.at(0)), ElementsAre(1.5, 3, 4.5));
  EXPECT_THAT(elements(out.at(1)), ElementsAre(2, 4, 5));
}

TEST(NnTeOnLoops, DenseAccumulatesInOutDtype) {
  // 100 * 100 + 100 * 100 overflows int8 but not the int32 out_dtype.
  std::vector<Tensor> out = run_on_loops(R"(def @main(%x: Tensor[(1, 2), int8], %w: Tensor[(1, 2), int8]) {
  nn.dense(%x, %w, units=1, out_dtype="int32")
})", {tensor_of({100, 100}, {1, 2}, DataType::Int(8)), tensor_of({100, 100}, {1, 2}, DataType::Int(8))});
  EXPECT_EQ(out.at(0).dtype(), DataType::Int(32));
  EXPECT_THAT(elements(out.at(0)), ElementsAre(20000));
}

TEST(NnTeOnLoops, PadCropsAndMirrors) {
  // [1, 2, 3] padded by [2, -1]: two fill values, then the data without its last.
  std::vector<Tensor> in = {tensor_of({1, 2, 3}, {3}), tensor_of({9}, {})};
  std::vector<Tensor> out = run_on_loops(R"(def @main(%x: Tensor[(3), float32], %v: Tensor[(), float32]) {
  (nn.pad(%x, %v, pad_width=[[2, -1]]), nn.pad(%x, %v, pad_width=[[2, 2]], pad_mode="reflect"),
   nn.pad(%x, %v, pad_width=[[1, 2]], pad_mode="edge"), nn.mirror_pad(%x, pad_width=[[2, 1]]))
})", in);
  EXPECT_THAT(elements(out.at(0)), ElementsAre(9, 9, 1, 2));
  EXPECT_THAT(elements(out.at(1)), ElementsAre(3, 2, 1, 2, 3, 2, 1));
  EXPECT_THAT(elements(out.at(2)), ElementsAre(1, 1, 2, 3, 3, 3));
  EXPECT_THAT(elements(out.at(3)), ElementsAre(2, 1, 1, 2, 3, 3));
}

TEST(NnTeOnLoops, UpsamplingAndDepthToSpaceRearrange) {
  std::vector<Tensor> up = run_on_loops(R"(def @main(%x: Tensor[(1, 1, 2, 2), float32]) {
  nn.upsampling(%x, scale_h=2f, scale_w=2f)
})", {tensor_of({1, 2, 3, 4}, {1, 1, 2, 2})});
  EXPECT_THAT(elements(up.at(0)), ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  // Four channels of one pixel become a 2x2 block, channel b * 2 + a at (b, a) (DCR).
  std::vector<Tensor> d2s = run_on_loops(R"(def @main(%x: Tensor[(1, 4, 1, 1), float32]) {
  nn.depth_to_space(%x, block_size=2)
})", {tensor_of({1, 2, 3, 4}, {1, 4, 1, 1})});
  EXPECT_THAT(elements(d2s.at(0)), ElementsAreArray({1.0, 2.0, 3.0, 4.0}));
}

TEST(NnTeOnLoops, MaxPool2dGradRoutesEachWindowToItsFirstMaximum) {
  // Windows 2x2 by 1 over [[0, 5, 5], [5, 5, 0], [0, 0, 0]]: (0, 0) and
  // (0, 1) both pick (0, 1), the first 5 in row-major order; (1, 0) picks
  // (1, 0) and (1, 1) picks (1, 1). The gradients add up where they meet.
  std::vector<Tensor> ties = run_on_loops(R"(def @main(%g: Tensor[(1, 1, 2, 2), float32], %x: Tensor[(1, 1, 3, 3), float32]) {
  nn.max_pool2d_grad(%g, %x, pool_size=[2, 2])
})", {tensor_of({1, 2, 3, 4}, {1, 1, 2, 2}), tensor_of({0, 5, 5, 5, 5, 0, 0, 0, 0}, {1, 1, 3, 3})});
  EXPECT_THAT(elements(ties.at(0)), ElementsAre(0, 3, 0, 3, 4, 0, 0, 0, 0));
  // Padding never wins, even over a negative input (all four padded windows
  // route to the one element), and a window of only -inf or NaN routes nowhere.
  std::vector<Tensor> padded = run_on_loops(R"(def @main(%g: Tensor[(1, 1, 2, 2), float32], %x: Tensor[(1, 1, 1, 1), float32]) {
  nn.max_pool2d_grad(%g, %x, pool_size=[2, 2], padding=[1, 1, 1, 1])
})", {tensor_of({1, 2, 3, 4}, {1, 1, 2, 2}), tensor_of({-1}, {1, 1, 1, 1})});
  EXPECT_THAT(elements(padded.at(0)), ElementsAre(10));
  std::vector<Tensor> nowhere = run_on_loops(R"(def @main(%g: Tensor[(1, 1, 1, 3), float32], %x: Tensor[(1, 1, 1, 3), float32]) {
  nn.max_pool2d_grad(%g, %x, pool_size=[1, 1])
})", {tensor_of({1, 2, 3}, {1, 1, 1, 3}), tensor_of({-kInf, kNaN, 7}, {1, 1, 1, 3})});
  EXPECT_THAT(elements(nowhere.at(0)), ElementsAre(0, 0, 3));
}

TEST(NnTeOnLoops, DeformableConv2dSamplesBilinearlyAndSkipsZeroSamples) {
  // A 1x1 kernel of weight w over [[1, 2], [3, 4]], each output sampling at
  // its position plus its offset: (0.5, 0.5) is the four corners' mean 2.5;
  // (0, 0) is 1; (1.5, 0) is 3 / 2 (the row past the last counts zero);
  // a NaN coordinate is outside, and so zero.
  const char* program = R"(def @main(%x: Tensor[(1, 1, 2, 2), float32], %off: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(1, 1, 1, 1), float32]) {
  nn.deformable_conv2d(%x, %off, %w, kernel_size=[1, 1])
})";
  Tensor x = tensor_of({1, 2, 3, 4}, {1, 1, 2, 2});
  // Offsets: the y of each output, then the x of each output.
  Tensor off = tensor_of({0.5, 0, 0.5, kNaN, 0.5, -1, 0, 0}, {1, 2, 2, 2});
  std::vector<Tensor> one = run_on_loops(program, {x, off, tensor_of({1}, {1, 1, 1, 1})});
  EXPECT_THAT(elements(one.at(0)), ElementsAre(2.5, 1, 1.5, 0));
  // An infinite weight times a skipped (zero) sample adds nothing: 0, not NaN.
  std::vector<Tensor> inf = run_on_loops(program, {x, off, tensor_of({kInf}, {1, 1, 1, 1})});
  EXPECT_THAT(elements(inf.at(0)), ElementsAre(kInf, kInf, kInf, 0));
}

TEST(NnTeOnLoops, DeformableConv2dWithGroupsIsUnsupportedNamingTheAttr) {
  // The reference kernel computes groups 1 only; the TE declines the rest.
  TeRefusal r = te_refusal(R"(def @main(%x: Tensor[(1, 2, 2, 2), float32], %off: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(2, 1, 1, 1), float32]) {
  nn.deformable_conv2d(%x, %off, %w, kernel_size=[1, 1], groups=2)
})");
  EXPECT_EQ(r.status, StatusCode::kUnsupported);
  EXPECT_THAT(r.message, HasSubstr("nn.deformable_conv2d"));
  EXPECT_THAT(r.message, HasSubstr("groups=2"));
  // An integer out_dtype cannot hold a bilinear sample.
  r = te_refusal(R"(def @main(%x: Tensor[(1, 1, 2, 2), int32], %off: Tensor[(1, 2, 2, 2), int32], %w: Tensor[(1, 1, 1, 1), int32]) {
  nn.deformable_conv2d(%x, %off, %w, kernel_size=[1, 1])
})");
  EXPECT_EQ(r.status, StatusCode::kUnsupported);
  EXPECT_THAT(r.message, HasSubstr("nn.deformable_conv2d"));
  EXPECT_THAT(r.message, HasSubstr("out_dtype"));
}

TEST(NnTeOnLoops, WinogradWeightTransformAppliesGInTheAccumulatorsDtype) {
  // TOPI's F(2, 3) G has rows [1, 0, 0], [1/2, -1/2, 1/2], [1/2, 1/2, 1/2],
  // [0, 0, 1], summing to s = [1, 1/2, 3/2, 1]: G ones G^T is s s^T. In
  // int32 the halves truncate to 0, so s = [1, 0, 0, 1].
  auto run = [&](const std::string& dtype, DataType dt) {
    std::string program = "def @main(%w: Tensor[(1, 1, 3, 3), " + dtype +
                          "]) { nn.contrib_conv2d_winograd_weight_transform(%w, tile_size=2) }";
    return elements(run_on_loops(program, {tensor_of(std::vector<double>(9, 1), {1, 1, 3, 3}, dt)}).at(0));
  };
  EXPECT_THAT(run("float32", DataType::Float(32)),
              ElementsAre(1, 0.5, 1.5, 1, 0.5, 0.25, 0.75, 0.5, 1.5, 0.75, 2.25, 1.5, 1, 0.5, 1.5, 1));
  EXPECT_THAT(run("int32", DataType::Int(32)), ElementsAre(1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1));
  // 3-D, depth transformed too: s_d s_h s_w.
  std::vector<double> u3 = elements(run_on_loops(R"(def @main(%w: Tensor[(1, 1, 3, 3, 3), float32]) {
  nn.contrib_conv3d_winograd_weight_transform(%w, tile_size=2)
})", {tensor_of(std::vector<double>(27, 1), {1, 1, 3, 3, 3})}).at(0));
  ASSERT_EQ(u3.size(), 64u);
  EXPECT_EQ(u3[0], 1);
  EXPECT_EQ(u3[(1 * 4 + 1) * 4 + 1], 0.125);
  EXPECT_EQ(u3[(2 * 4 + 2) * 4 + 2], 3.375);
  EXPECT_EQ(u3[(2 * 4 + 1) * 4 + 3], 0.75);
}

TEST(NnTeOnLoops, WinogradConvolutionsAgreeWithTheDirectOnes) {
  // F(3, 3) over a 5x5 input: the second row and column of tiles are ragged.
  std::vector<double> x(25), w(9);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 7) - 3;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i) / 4 - 1;
  std::vector<Tensor> two = run_on_loops(R"(def @main(%x: Tensor[(1, 1, 5, 5), float32], %w: Tensor[(1, 1, 3, 3), float32]) {
  (nn.contrib_conv2d_winograd_without_weight_transform(%x, nn.contrib_conv2d_winograd_weight_transform(%w, tile_size=3),
     tile_size=3, channels=1, kernel_size=[3, 3], padding=[1, 1, 1, 1]),
   nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=1, kernel_size=[3, 3]))
})", {tensor_of(x, {1, 1, 5, 5}), tensor_of(w, {1, 1, 3, 3})});
  std::vector<double> winograd = elements(two.at(0)), direct = elements(two.at(1));
  ASSERT_EQ(winograd.size(), direct.size());
  for (size_t i = 0; i < direct.size(); ++i) EXPECT_NEAR(winograd[i], direct[i], 1e-4) << "element " << i;

  // 3-D: depth transformed (kernel 3x3x3), and convolved directly (kernel depth 2, depth stride 2).
  std::vector<double> x3(2 * 4 * 4 * 3), w3(2 * 27), w3d(2 * 18);
  for (size_t i = 0; i < x3.size(); ++i) x3[i] = static_cast<double>(i % 5) - 2;
  for (size_t i = 0; i < w3.size(); ++i) w3[i] = static_cast<double>(i % 9) / 8;
  for (size_t i = 0; i < w3d.size(); ++i) w3d[i] = 1 - static_cast<double>(i % 4) / 2;
  std::vector<Tensor> three = run_on_loops(R"(def @main(%x: Tensor[(1, 2, 4, 4, 3), float32], %w: Tensor[(1, 2, 3, 3, 3), float32], %v: Tensor[(1, 2, 2, 3, 3), float32]) {
  (nn.contrib_conv3d_winograd_without_weight_transform(%x, nn.contrib_conv3d_winograd_weight_transform(%w, tile_size=2),
     tile_size=2, channels=1, kernel_size=[3, 3, 3], padding=[1, 1, 1, 1, 1, 1]),
   nn.conv3d(%x, %w, padding=[1, 1, 1, 1, 1, 1], channels=1, kernel_size=[3, 3, 3]),
   nn.contrib_conv3d_winograd_without_weight_transform(%x, nn.contrib_conv3d_winograd_weight_transform(%v, tile_size=2),
     tile_size=2, channels=1, kernel_size=[2, 3, 3], strides=[2, 1, 1], padding=[0, 1, 1, 0, 1, 1]),
   nn.conv3d(%x, %v, strides=[2, 1, 1], padding=[0, 1, 1, 0, 1, 1], channels=1, kernel_size=[2, 3, 3]))
})", {tensor_of(x3, {1, 2, 4, 4, 3}), tensor_of(w3, {1, 2, 3, 3, 3}), tensor_of(w3d, {1, 2, 2, 3, 3})});
  for (size_t pair : {0u, 2u}) {
    std::vector<double> wino = elements(three.at(pair)), conv = elements(three.at(pair + 1));
    ASSERT_EQ(wino.size(), conv.size());
    for (size_t i = 0; i < conv.size(); ++i) EXPECT_NEAR(wino[i], conv[i], 1e-4) << "output " << pair << ", " << i;
  }
}

TEST(NnTeOnLoops, AttrsPastInt32IndicesAreUnsupportedNamingThem) {
  // The TE indexes in int32: a stride of 2^32 would wrap to 0 there (the
  // window gather's floordiv by the stride), so the computes decline it.
  for (const char* op : {"nn.max_pool2d_grad", "nn.avg_pool2d_grad"}) {
    TeRefusal r = te_refusal(std::string(R"(def @main(%g: Tensor[(1, 1, 1, 1), float32], %x: Tensor[(1, 1, 3, 3), float32]) {
  )") + op + R"((%g, %x, pool_size=[2, 2], strides=[4294967296, 4294967296], padding=[1, 1, 1, 1])
})");
    EXPECT_EQ(r.status, StatusCode::kUnsupported) << op;
    EXPECT_THAT(r.message, HasSubstr(op));
    EXPECT_THAT(r.message, HasSubstr("strides holds 4294967296"));
  }
  // Attrs that fit, whose indices together do not: a second output 2^31 - 1 along.
  TeRefusal r = te_refusal(R"(def @main(%x: Tensor[(1, 1, 3, 3), float32], %off: Tensor[(1, 2, 2, 2), float32], %w: Tensor[(1, 1, 1, 1), float32]) {
  nn.deformable_conv2d(%x, %off, %w, kernel_size=[1, 1], padding=[1073741824, 1073741824, 1073741824, 1073741824], strides=[2147483647, 2147483647])
})");
  EXPECT_EQ(r.status, StatusCode::kUnsupported);
  EXPECT_THAT(r.message, HasSubstr("nn.deformable_conv2d"));
  EXPECT_THAT(r.message, HasSubstr("strides, padding, dilation"));
}

TEST(NnTeOnLoops, GoldenCasesMatchTheKernelsBitForBit) {
  // The conformance suite holds loops to a tolerance; these ops' TE computes
  // sum the kernels' terms in the kernels' order and break ties as they do,
  // so they match them bit for bit.
  EXPECT_EQ(golden_cases_on_loops("conv_winograd.json", "nn.contrib_conv2d_winograd_weight_transform"), 6);
  EXPECT_EQ(golden_cases_on_loops("conv_winograd.json", "nn.contrib_conv2d_winograd_without_weight_transform"), 8);
  EXPECT_EQ(golden_cases_on_loops("conv_winograd.json", "nn.contrib_conv3d_winograd_weight_transform"), 4);
  EXPECT_EQ(golden_cases_on_loops("conv_winograd.json", "nn.contrib_conv3d_winograd_without_weight_transform"), 4);
  EXPECT_EQ(golden_cases_on_loops("conv_special.json", "nn.deformable_conv2d"), 6);
  EXPECT_EQ(golden_cases_on_loops("pool_grad.json", "nn.max_pool2d_grad"), 8);
}

TEST(NnTeOnLoops, WinogradWithAMisshapenWeightIsInvalidNamingTheOp) {
  // The relation leaves the transformed weight unchecked; the TE checks it as the kernel does.
  TeRefusal r = te_refusal(R"(def @main(%x: Tensor[(1, 1, 4, 4), float32], %u: Tensor[(4, 4, 2, 1), float32]) {
  nn.contrib_conv2d_winograd_without_weight_transform(%x, %u, tile_size=2, channels=1, kernel_size=[3, 3])
})");
  EXPECT_EQ(r.status, StatusCode::kInvalidArgument);
  EXPECT_THAT(r.message, HasSubstr("nn.contrib_conv2d_winograd_without_weight_transform"));
  EXPECT_THAT(r.message, HasSubstr("the transformed weight has shape (4, 4, 2, 1), expected (4, 4, 1, 1)"));
}

}  // namespace
}  // namespace weft::testing
