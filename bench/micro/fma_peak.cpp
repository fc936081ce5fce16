// The CPU's float32 multiply-add ceiling: every thread runs independent
// chains of vector FMAs on registers (no memory traffic), so GFLOP/s here is
// what no kernel can beat. docs/performance.md reads the zoo's convolutions
// against it (mobilenet's pointwise layers, for one).
//
//   build/bin/weft_bench_fma_peak --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <thread>
#include <vector>

namespace {

constexpr int kChains = 12;  // enough independent FMAs in flight to cover the latency on two FMA ports
constexpr long kSteps = 1 << 22;

using Floats16 = float __attribute__((vector_size(64)));
using Floats8 = float __attribute__((vector_size(32)));

// kSteps * kChains multiply-adds of one vector each (fused: the file builds
// with -ffp-contract=fast), inlined into a caller built for the ISA.
template <typename Vec>
[[gnu::always_inline]] inline float fma_chains() {
  Vec acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = Vec{} + static_cast<float>(i);
  const Vec scale = Vec{} + 0.999999f, shift = Vec{} + 1e-7f;
  for (long step = 0; step < kSteps; ++step) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * scale + shift;
  }
  float total = 0;
  for (int i = 0; i < kChains; ++i)
    for (size_t lane = 0; lane < sizeof(Vec) / sizeof(float); ++lane) total += acc[i][lane];
  return total;
}

[[gnu::target("avx512f,fma")]] float chains512() { return fma_chains<Floats16>(); }
[[gnu::target("avx2,fma")]] float chains256() { return fma_chains<Floats8>(); }

void BM_FmaPeak(benchmark::State& state) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !__builtin_cpu_supports("fma")) {
    state.SkipWithError("no FMA on this CPU");
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  const int lanes = avx512 ? 16 : 8;
  for (auto _ : state) {
    std::vector<std::thread> workers;
    std::vector<float> sums(threads);
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] { sums[t] = avx512 ? chains512() : chains256(); });
    for (std::thread& w : workers) w.join();
    benchmark::DoNotOptimize(sums.data());
  }
  const double flops_per_iteration = 2.0 * lanes * kChains * static_cast<double>(kSteps) * threads;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops_per_iteration * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(avx512 ? "AVX-512" : "AVX2");
}
BENCHMARK(BM_FmaPeak)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
