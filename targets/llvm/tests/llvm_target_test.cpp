// The llvm target through weft::build and the graph executor: programs built
// with `fallback: error` (every op must run on llvm) and checked against the
// interpreter on the reference kernels, or against values worked by hand
// where the loop IR's own rules (saturating casts, rounding of 16-bit floats,
// division by zero) are what is tested.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <weft/sdk/disk_cache.hpp>
#include <weft/sdk/numpy_random.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <span>
#include <thread>
#include <utility>

#include "support/temp_dir.h"
#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/testing/gtest_helpers.h"
#include "weft/testing/random_data.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RunConfig llvm_only(int threads = 0) {
  RunConfig config;
  config.targets = {"llvm"};
  config.fallback = FallbackPolicy::kError;
  config.threads = threads;
  return config;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

IRModule program(const std::string& text) { return infer_type(parse_module(text)); }

/// Builds for llvm alone and checks that every group went there.
std::shared_ptr<const CompiledModule> build_on_llvm(const IRModule& mod, int threads = 0) {
  std::shared_ptr<const CompiledModule> compiled = build(mod, llvm_only(threads));
  for (const CompiledGroup& group : compiled->groups) EXPECT_EQ(group.target, "llvm");
  return compiled;
}

Tensor run_on_llvm(const IRModule& mod, const std::vector<Value>& args) {
  return GraphExecutor(build_on_llvm(mod)).run(args).tensor();
}

Tensor interpret(const IRModule& mod, const std::vector<Value>& args) {
  return Interpreter(mod).run_main(args).tensor();
}

/// Builds for llvm alone with option emit set, and what the target printed.
std::pair<std::shared_ptr<const CompiledModule>, std::string> build_printing(const IRModule& mod, const std::string& emit) {
  RunConfig config = llvm_only();
  config.target_options["llvm"] = make_attrs({{"emit", emit}});
  ::testing::internal::CaptureStderr();
  try {
    std::shared_ptr<const CompiledModule> compiled = build(mod, config);
    return {compiled, ::testing::internal::GetCapturedStderr()};
  } catch (...) {
    ::testing::internal::GetCapturedStderr();
    throw;
  }
}

/// A 1-D tensor of `values` in dtype `dtype` (T holds its element's bytes).
template <typename T>
Tensor vector_of(std::vector<T> values, DataType dtype) {
  return Tensor::from_bytes({static_cast<int64_t>(values.size())}, dtype, std::as_bytes(std::span(values)));
}
Tensor int32s(std::vector<int32_t> v) { return vector_of(std::move(v), DataType::Int(32)); }

Tensor uniform(DataType dtype, std::vector<int64_t> shape, uint32_t seed, double low, double high) {
  sdk::NumpyRandomState state(seed);
  return testing::rand(dtype, shape, state, low, high);
}

TEST(LlvmTarget, FusedElementwiseChainMatchesTheReferenceKernels) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 37), float32], %y: Tensor[(37), float32]) {
  %0 = add(%x, %y);
  %1 = multiply(%0, 0.5f);
  %2 = nn.relu(%1);
  %3 = sigmoid(%2);
  %4 = tanh(%3);
  %5 = exp(%4);
  %6 = erf(%5);
  subtract(%6, %x)
})");
  std::vector<Value> args = {testing::rand(DataType::Float(32), {4, 37}, 1), testing::rand(DataType::Float(32), {37}, 2)};
  EXPECT_TENSOR_NEAR(run_on_llvm(mod, args), interpret(mod, args), 1e-6, 1e-7);
}

/// A 3x3 convolution of 3 into 8 channels on 9x7 with `window` (its strides
/// and padding), then bias and relu; and random arguments for it.
std::pair<IRModule, std::vector<Value>> conv_bias_relu(const std::string& window) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 9, 7), float32], %weight: Tensor[(8, 3, 3, 3), float32], %bias: Tensor[(8), float32]) {
  %0 = nn.conv2d(%data, %weight, )" + window + R"(, channels=8, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %bias);
  nn.relu(%1)
})");
  return {mod,
          {testing::rand(DataType::Float(32), {1, 3, 9, 7}, 3), testing::rand(DataType::Float(32), {8, 3, 3, 3}, 4),
           testing::rand(DataType::Float(32), {8}, 5)}};
}

TEST(LlvmTarget, PaddedConvolutionWithBiasAndReluMatchesTheReference) {
  const auto [mod, args] = conv_bias_relu("strides=[2, 1], padding=[1, 2, 0, 1]");
  EXPECT_TENSOR_NEAR(run_on_llvm(mod, args), interpret(mod, args), 1e-5, 1e-6);
}

TEST(LlvmTarget, ReductionsAndSoftmaxMatchTheReference) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 50), float32]) {
  %0 = nn.softmax(%x, axis=1);
  %1 = max(%0, axis=[1], keepdims=True);
  %2 = sum(%x, axis=[1], keepdims=True);
  %3 = add(%1, %2);
  multiply(%0, %3)
})");
  std::vector<Value> args = {testing::rand(DataType::Float(32), {3, 50}, 6)};
  EXPECT_TENSOR_NEAR(run_on_llvm(mod, args), interpret(mod, args), 1e-5, 1e-7);
}

TEST(LlvmTarget, SixteenBitFloatsRoundAfterEveryOperationAsTheEvaluatorDoes) {
  // The reference kernels take no 16-bit floats; the loop-IR evaluator
  // (`loops`) is the oracle of the loop IR's arithmetic.
  for (const char* dtype : {"float16", "bfloat16"}) {
    SCOPED_TRACE(dtype);
    IRModule mod = program(std::string(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(64), )") + dtype + "], %y: Tensor[(64), " + dtype + R"(]) {
  %0 = add(%x, %y);
  %1 = multiply(%0, %x);
  %2 = divide(%1, %y);
  %3 = sqrt(%2);
  %4 = exp(%3);
  subtract(%4, %0)
})");
    const DataType t = dtype == std::string("float16") ? DataType::Float(16) : DataType::BFloat(16);
    std::vector<Value> args = {uniform(t, {64}, 7, 0.5, 2.0), uniform(t, {64}, 8, 0.5, 2.0)};
    RunConfig loops;
    loops.targets = {"loops"};
    loops.fallback = FallbackPolicy::kError;
    EXPECT_TENSOR_EQ(run_on_llvm(mod, args), GraphExecutor(build(mod, loops)).run(args).tensor());
  }
}

TEST(LlvmTarget, FloatToIntegerCastsSaturateAndNanIsZero) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(7), float32]) {
  %0 = cast(%x, dtype="int32");
  %1 = cast(%x, dtype="int64");
  (%0, %1)
})");
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = vector_of<float>({std::nanf(""), inf, -inf, 300.7f, -3e9f, 2.9f, -2.9f}, DataType::Float(32));
  std::vector<Tensor> got = GraphExecutor(build_on_llvm(mod)).run({x}).flatten();
  ASSERT_EQ(got.size(), 2u);
  const int32_t lo32 = std::numeric_limits<int32_t>::min(), hi32 = std::numeric_limits<int32_t>::max();
  const int64_t lo64 = std::numeric_limits<int64_t>::min(), hi64 = std::numeric_limits<int64_t>::max();
  EXPECT_TENSOR_EQ(got[0], int32s({0, hi32, lo32, 300, lo32, 2, -2}));
  EXPECT_TENSOR_EQ(got[1], vector_of<int64_t>({0, hi64, lo64, 300, -3000000000, 2, -2}, DataType::Int(64)));
}

TEST(LlvmTarget, IntegerDivisionWrapsAndFloorsAsTheReference) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(6), int32], %b: Tensor[(6), int32]) {
  %0 = divide(%a, %b);
  %1 = floor_divide(%a, %b);
  %2 = floor_mod(%a, %b);
  (%0, %1, %2)
})");
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  Tensor a = int32s({7, -7, 7, -7, lowest, 6});
  Tensor b = int32s({2, 2, -2, -2, -1, 3});
  std::vector<Tensor> got = GraphExecutor(build_on_llvm(mod)).run({a, b}).flatten();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TENSOR_EQ(got[0], int32s({3, -3, -3, 3, lowest, 2}));
  EXPECT_TENSOR_EQ(got[1], int32s({3, -4, -4, 3, lowest, 2}));
  EXPECT_TENSOR_EQ(got[2], int32s({1, 1, -1, -1, 0, 0}));
}

TEST(LlvmTarget, IntegerDivisionByZeroFailsTheRunNamingTheGroup) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(3), int32], %b: Tensor[(3), int32]) {
  divide(%a, %b)
})");
  GraphExecutor executor(build_on_llvm(mod));
  Tensor a = int32s({1, 2, 3});
  EXPECT_TENSOR_EQ(executor.run({a, int32s({1, 1, 3})}).tensor(), int32s({1, 2, 1}));
  try {
    executor.run({a, int32s({1, 0, 3})});
    FAIL() << "a zero divisor ran";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("integer division or modulo by zero in group"));
  }
}

TEST(LlvmTarget, AnIntermediateLargerThanTheStackLimitLivesOnTheHeap) {
  // Softmax over axis 0: its max and its sum (20,000 floats, 80 KB each) are
  // the group's intermediates.
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 20000), float32]) {
  nn.softmax(%x, axis=0)
})");
  std::vector<Value> args = {testing::rand(DataType::Float(32), {3, 20000}, 9)};
  std::shared_ptr<const CompiledModule> compiled = build_on_llvm(mod);
  ASSERT_EQ(compiled->groups.size(), 1u) << describe_partition(*compiled);
  EXPECT_TENSOR_NEAR(GraphExecutor(compiled).run(args).tensor(), interpret(mod, args), 1e-6, 1e-7);
}

TEST(LlvmTarget, OneCompiledModuleRunsOnSeveralThreadsAtOnce) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 4, 8, 8), float32]) {
  %0 = nn.max_pool2d(%x, pool_size=[3, 3], padding=[1, 1, 1, 1]);
  nn.relu(%0)
})");
  std::shared_ptr<const CompiledModule> compiled = build_on_llvm(mod);
  std::vector<Value> args = {uniform(DataType::Float(32), {2, 4, 8, 8}, 10, -1.0, 1.0)};
  const Tensor want = interpret(mod, args);
  std::vector<Tensor> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] { got[t] = GraphExecutor(compiled).run(args).tensor(); });
  for (std::thread& t : threads) t.join();
  for (const Tensor& g : got) EXPECT_TENSOR_EQ(g, want);
}

TEST(LlvmTarget, ParallelLoopsComputeWhatOneThreadComputesAndReportFailures) {
  // Parallel loops' bodies run on the pool in chunks; the results cannot depend on the split.
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 8, 17, 9), float32], %w: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.softmax(%0, axis=1);
  nn.avg_pool2d(%1, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)
})");
  std::vector<Value> args = {testing::rand(DataType::Float(32), {2, 8, 17, 9}, 11),
                             testing::rand(DataType::Float(32), {8, 8, 3, 3}, 12)};
  const Tensor serial = GraphExecutor(build_on_llvm(mod, 1)).run(args).tensor();
  for (int threads : {2, 3, 5}) {
    SCOPED_TRACE(threads);
    EXPECT_TENSOR_EQ(GraphExecutor(build_on_llvm(mod, threads)).run(args).tensor(), serial);
  }
  EXPECT_TENSOR_NEAR(serial, interpret(mod, args), 1e-5, 1e-7);

  IRModule division = program(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(65536), int32], %b: Tensor[(65536), int32]) {
  floor_mod(%a, %b)
})");  // enough elements to be worth several threads
  std::vector<int32_t> divisors(65536, 3);
  divisors[65000] = 0;  // in the last chunk, not the caller's
  try {
    GraphExecutor(build_on_llvm(division, 4)).run({int32s(std::vector<int32_t>(65536, 7)), int32s(divisors)});
    FAIL() << "a zero divisor ran";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("integer division or modulo by zero in group"));
  }
}

TEST(LlvmTarget, EmitPrintsEachGroupsOptimizedIrOrAssemblyAndRefusesOtherValues) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(64), float32]) {
  negative(%x)
})");
  auto printed = [&](const std::string& emit) { return build_printing(mod, emit).second; };
  const std::string ir = printed("llvm");
  EXPECT_THAT(ir, ::testing::ContainsRegex("define (noundef )?i32 @weft_fused_negative_"));
  EXPECT_THAT(ir, ::testing::AnyOf(HasSubstr("<16 x float>"), HasSubstr("<8 x float>"), HasSubstr("<4 x float>")));  // vector code
  EXPECT_THAT(printed("asm"), HasSubstr("ret"));
  EXPECT_EQ(printed(""), "");
  try {
    printed("bitcode");
    FAIL() << "emit: bitcode was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("emit is \"bitcode\"; expected \"\", \"llvm\" or \"asm\""));
  }
}

TEST(LlvmTarget, DenseRunsOnPackedWeightPanelsAndConvolutionOnChannelBlocks) {
  // AlterOpLayout asks for dense_pack over a weight packed NC{lanes}n and for
  // conv2d on NCHW{lanes}c data, so the vector lanes run along contiguous memory.
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 40), float32], %w: Tensor[(64, 40), float32], %d: Tensor[(1, 64, 6, 6), float32],
          %k: Tensor[(64, 64, 3, 3), float32]) {
  %0 = nn.dense(%x, %w, units=64);
  %1 = nn.conv2d(%d, %k, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);
  (%0, %1)
})");
  std::vector<Value> args = {testing::rand(DataType::Float(32), {3, 40}, 13), testing::rand(DataType::Float(32), {64, 40}, 14),
                             testing::rand(DataType::Float(32), {1, 64, 6, 6}, 15),
                             testing::rand(DataType::Float(32), {64, 64, 3, 3}, 16)};
  std::shared_ptr<const CompiledModule> compiled = build_on_llvm(mod);
  const std::string partition = describe_partition(*compiled);
  EXPECT_THAT(partition, HasSubstr("nn.contrib_dense_pack")) << partition;
  EXPECT_THAT(partition, HasSubstr("layout_transform")) << partition;  // the weight's packing, the blocks' borders
  std::vector<Tensor> got = GraphExecutor(compiled).run(args).flatten();
  std::vector<Tensor> want = Interpreter(mod).run_main(args).flatten();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TENSOR_NEAR(got[0], want[0], 1e-5, 1e-6);
  EXPECT_TENSOR_NEAR(got[1], want[1], 1e-5, 1e-6);
}

TEST(LlvmTarget, GroupsAlikeShareOneCompiledKernel) {
  // Two pools of the same shape are two groups with one loop program: compiled once.
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 8, 8), float32], %y: Tensor[(1, 16, 8, 8), float32]) {
  %0 = nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2]);
  %1 = nn.max_pool2d(%y, pool_size=[2, 2], strides=[2, 2]);
  (%0, %1)
})");
  const auto [compiled, printed] = build_printing(mod, "llvm");
  ASSERT_EQ(compiled->groups.size(), 2u);
  // "llvm: group NAME:" heads each group's listing; both list one function.
  const size_t at = printed.find("@weft_fused_nn_max_pool2d_");
  ASSERT_NE(at, std::string::npos) << printed;
  const std::string function = printed.substr(at, printed.find('(', at) - at);
  EXPECT_EQ(printed.find("@weft_fused_nn_max_pool2d_", printed.find("llvm: group", 1)), printed.rfind(function)) << printed;
  std::vector<Value> args = {testing::rand(DataType::Float(32), {1, 16, 8, 8}, 17),
                             testing::rand(DataType::Float(32), {1, 16, 8, 8}, 18)};
  std::vector<Tensor> got = GraphExecutor(compiled).run(args).flatten(), want = Interpreter(mod).run_main(args).flatten();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TENSOR_EQ(got[0], want[0]);
  EXPECT_TENSOR_EQ(got[1], want[1]);
}

TEST(LlvmTarget, VectorCodeCallsGlibcsVectorMathForExpTanhErf) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 64), float32]) {
  %0 = sigmoid(%x);
  %1 = tanh(%0);
  erf(%1)
})");
  const auto [compiled, printed] = build_printing(mod, "llvm");
  // libmvec's names: _ZGV, the ISA, N, the lanes, one v per argument, the function.
  for (const char* f : {"v_expf", "v_tanhf", "v_erff"}) EXPECT_THAT(printed, HasSubstr(f)) << printed;
  std::vector<Value> args = {uniform(DataType::Float(32), {4, 64}, 19, -4.0, 4.0)};
  EXPECT_TENSOR_NEAR(GraphExecutor(compiled).run(args).tensor(), interpret(mod, args), 1e-6, 1e-7);
}

/// Builds for llvm alone with the kernel cache in `dir`, verbose; the build
/// and what the target printed.
std::pair<std::shared_ptr<const CompiledModule>, std::string> build_cached(const IRModule& mod, const std::string& dir) {
  RunConfig config = llvm_only();
  config.target_options["llvm"] = make_attrs({{"cache_dir", dir}, {"verbose", true}});
  ::testing::internal::CaptureStderr();
  std::shared_ptr<const CompiledModule> compiled = build(mod, config);
  return {compiled, ::testing::internal::GetCapturedStderr()};
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

TEST(LlvmTarget, ASecondBuildReadsItsKernelsFromTheDiskCacheAndABrokenOneIsCompiledAgain) {
  const auto [mod, args] = conv_bias_relu("padding=[1, 1, 1, 1]");
  const Tensor want = interpret(mod, args);
  testing::ScratchDir scratch;
  const std::string dir = (scratch / "kernels").string();

  auto [first, first_log] = build_cached(mod, dir);
  EXPECT_THAT(first_log, Not(HasSubstr("read from the cache")));
  const std::vector<std::filesystem::path> files = files_in(dir);
  ASSERT_FALSE(files.empty()) << first_log;
  EXPECT_LE(files.size(), first->groups.size());
  EXPECT_TENSOR_NEAR(GraphExecutor(first).run(args).tensor(), want, 1e-5, 1e-6);

  auto [second, second_log] = build_cached(mod, dir);
  // Each distinct kernel read once (groups alike share it).
  size_t reads = 0;
  for (size_t at = second_log.find("code read from the cache"); at != std::string::npos;
       at = second_log.find("code read from the cache", at + 1))
    ++reads;
  EXPECT_EQ(reads, files.size()) << second_log;
  EXPECT_EQ(files_in(dir).size(), files.size());
  EXPECT_TENSOR_NEAR(GraphExecutor(second).run(args).tensor(), want, 1e-5, 1e-6);

  // A whole record whose object code is garbage: the JIT cannot link it.
  const std::string record = read_bytes(files[0]);
  const size_t key_size = std::stoul(record.substr(record.find("\nkey ") + 5));
  const std::string key = record.substr(record.find('\n', record.find("\nkey ") + 1) + 1, key_size);
  sdk::DiskCache(dir, "llvm-kernel").write(key, "\x7f" "ELF, but not an object file");
  auto [third, third_log] = build_cached(mod, dir);
  EXPECT_THAT(third_log, HasSubstr("warning: llvm cannot load group ")) << third_log;
  EXPECT_THAT(third_log, HasSubstr("compiling it again"));
  EXPECT_TENSOR_NEAR(GraphExecutor(third).run(args).tensor(), want, 1e-5, 1e-6);
  EXPECT_EQ(read_bytes(files[0]), record) << "compiling again wrote the good record back";

  // A record cut short is not read at all.
  std::ofstream(files[0], std::ios::binary | std::ios::trunc) << record.substr(0, record.size() / 2);
  auto [fourth, fourth_log] = build_cached(mod, dir);
  EXPECT_THAT(fourth_log, HasSubstr("it is not a 'weft-llvm-kernel 1' record")) << fourth_log;
  EXPECT_TENSOR_NEAR(GraphExecutor(fourth).run(args).tensor(), want, 1e-5, 1e-6);
}

TEST(LlvmTarget, ANegativeThreadCountIsAnErrorNamingTheOption) {
  IRModule mod = program(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8), float32]) {
  negative(%x)
})");
  RunConfig config = llvm_only();
  config.target_options["llvm"] = make_attrs({{"threads", int64_t{-1}}});
  try {
    build(mod, config);
    FAIL() << "threads: -1 was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("threads must not be negative, got -1"));
  }
}

}  // namespace
}  // namespace weft
