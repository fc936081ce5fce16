// The llvm target's kernels against their ceilings, measured side by side in
// one run (issue 16's goals): a fused chain of 8 elementwise ops over 16 M
// floats against memcpy of the same bytes (the machine's copy bandwidth),
// and dense 1024x1024x1024 and a resnet-50 3x3 convolution against the same
// layers on oneDNN. Weights are bound as constants, as `weft run` binds a
// model's, so each target packs them at build. The time is the layer's own
// kernel (GraphExecutor::run_profiled), not the executor's copies of inputs
// and outputs; a target that is not built is skipped.
// Run: build/bin/weft_bench_llvm_kernels (idle machine; --benchmark_repetitions=3).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/passes.h"
#include "weft/target.h"
#include "weft/testing/random_data.h"
#include "weft/text.h"

namespace weft {
namespace {

constexpr int64_t kChainElements = int64_t{16} << 20;

struct Built {
  std::shared_ptr<const CompiledModule> compiled;
  std::vector<Value> inputs;
};

/// A program built for one target with its `weights` bound (random values
/// from a fixed seed), and random values for its other parameters.
Built build_for(const std::string& target, const std::string& text, const std::vector<std::string>& weights) {
  IRModule mod = infer_type(parse_module(text));
  auto random_of = [](const Var& p, uint32_t seed) {
    return testing::rand(DataType::Float(32), p->checked_type().as<TensorTypeNode>()->shape, seed);
  };
  std::map<std::string, Tensor> bound;
  uint32_t seed = 0;
  for (const Var& p : mod.main()->params)
    if (std::find(weights.begin(), weights.end(), p->name_hint) != weights.end()) bound.emplace(p->name_hint, random_of(p, seed++));
  mod = bind_params(mod, bound);
  Built b;
  for (const Var& p : mod.main()->params) b.inputs.emplace_back(random_of(p, seed++));
  RunConfig config;
  config.targets = {target};
  b.compiled = build(mod, config);
  return b;
}

/// Times the slowest group of each run (the layer; layout changes at the
/// borders are groups of their own) with manual timing.
void time_layer(benchmark::State& state, const Built& b, double flops_per_run, double bytes_per_run) {
  GraphExecutor executor(b.compiled);
  std::vector<KernelProfile> profile;
  executor.run_profiled(b.inputs, profile);  // warm-up
  for (auto _ : state) {
    profile.clear();
    executor.run_profiled(b.inputs, profile);
    double slowest = 0;
    for (const KernelProfile& k : profile) slowest = std::max(slowest, k.ms);
    state.SetIterationTime(slowest / 1e3);
  }
  if (flops_per_run > 0)
    state.counters["GFLOP/s"] = benchmark::Counter(flops_per_run * 1e-9 * static_cast<double>(state.iterations()),
                                                   benchmark::Counter::kIsRate);
  if (bytes_per_run > 0) state.SetBytesProcessed(static_cast<int64_t>(bytes_per_run * static_cast<double>(state.iterations())));
}

bool target_built(benchmark::State& state, const std::string& target) {
  if (TargetRegistry::global().find(target)) return true;
  state.SkipWithError(("target " + target + " is not built").c_str());
  return false;
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<float> src(kChainElements, 1.0f), dst(kChainElements);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * kChainElements * sizeof(float));
}
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ElementwiseChain(benchmark::State& state, const std::string& target) {
  if (!target_built(state, target)) return;
  const Built b = build_for(target, R"(#[version = "0.0.5"]
def @main(%x: Tensor[(16777216), float32]) {
  %0 = add(%x, 1f);
  %1 = multiply(%0, 0.5f);
  %2 = nn.relu(%1);
  %3 = subtract(%2, 0.25f);
  %4 = multiply(%3, %3);
  %5 = add(%4, %x);
  %6 = maximum(%5, 0.1f);
  minimum(%6, 4f)
})", {});
  time_layer(state, b, 0, 2.0 * kChainElements * sizeof(float));  // x read once, the result written once
}
BENCHMARK_CAPTURE(BM_ElementwiseChain, llvm, "llvm")->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_Dense1024(benchmark::State& state, const std::string& target) {
  if (!target_built(state, target)) return;
  const Built b = build_for(target, R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1024, 1024), float32], %w: Tensor[(1024, 1024), float32]) {
  nn.dense(%x, %w, units=1024)
})", {"w"});
  time_layer(state, b, 2.0 * 1024 * 1024 * 1024, 0);
}
BENCHMARK_CAPTURE(BM_Dense1024, llvm, "llvm")->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_Dense1024, onednn, "onednn")->Unit(benchmark::kMillisecond)->UseManualTime();

/// resnet-50's stage-3 3x3 convolution at batch 1: 256 channels on 14x14.
void BM_Resnet50Conv3x3(benchmark::State& state, const std::string& target) {
  if (!target_built(state, target)) return;
  const Built b = build_for(target, R"(#[version = "0.0.5"]
def @main(%data: Tensor[(1, 256, 14, 14), float32], %weight: Tensor[(256, 256, 3, 3), float32]) {
  nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], channels=256, kernel_size=[3, 3])
})", {"weight"});
  time_layer(state, b, 2.0 * 256 * 14 * 14 * 256 * 9, 0);
}
BENCHMARK_CAPTURE(BM_Resnet50Conv3x3, llvm, "llvm")->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_Resnet50Conv3x3, onednn, "onednn")->Unit(benchmark::kMillisecond)->UseManualTime();

}  // namespace
}  // namespace weft

BENCHMARK_MAIN();
