// `weft bench PROGRAM [--config F] [--target T[,T2]] [--fallback warn|error]
// [-O N] [--inputs F] [--params F] [--seed N] [--warmup N] [--repeat N]
// [--threads N] [--json] [--profile]`: builds main once for a run config's
// targets, runs it on the graph executor `warmup` times untimed and `repeat`
// times timed, and reports the build time, the latency, the memory plan and
// the ops each target runs; --profile adds each kernel's share and, for
// convolutions and matrix products, its GFLOP/s. The JSON also
// gives the program's multiply-accumulates (`macs`, as `weft models --table`
// counts them), so a latency can be compared with another framework's on a
// differently shaped network per unit of compute (bench/peers).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>

#include "build_flags.h"
#include "commands.h"
#include "compiled_summary.h"
#include "json_output.h"
#include "program_run.h"
#include "progress_bar.h"
#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/testing/count_macs.h"

namespace weft::cli {

namespace {

struct BenchOptions {
  ProgramRunOptions source;
  BuildFlags build;
  int warmup = 3;
  int repeat = 10;
  std::optional<int> threads;
  bool json = false;
  bool profile = false;
};

struct Latency {
  double min = 0, median = 0, p90 = 0, mean = 0;
};

/// Over `ms` (not empty): the median of an even count is the mean of the two
/// middle values; p90 is the nearest rank, the smallest value at least 90% of
/// the runs took no longer than.
Latency latency_of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  Latency l;
  l.min = ms.front();
  l.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  l.p90 = ms[static_cast<size_t>(std::ceil(0.9 * n)) - 1];
  l.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / n;
  return l;
}

/// One group's mean time over the profiled runs.
struct GroupTime {
  size_t group = 0;
  double ms = 0;
};

/// The groups by mean time, slowest first.
std::vector<GroupTime> profile_groups(const GraphExecutor& executor, const std::vector<Value>& inputs, int runs) {
  std::vector<GroupTime> times;
  std::vector<KernelProfile> profile;
  for (int r = 0; r < runs; ++r) {
    executor.run_profiled(inputs, profile);
    if (times.empty())
      for (const KernelProfile& k : profile) times.push_back({k.group, 0});
    for (size_t i = 0; i < profile.size(); ++i) times[i].ms += profile[i].ms / runs;
  }
  std::stable_sort(times.begin(), times.end(), [](const GroupTime& a, const GroupTime& b) { return a.ms > b.ms; });
  return times;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

/// Two floating-point operations per multiply-accumulate.
double gflops_per_second(int64_t macs, double ms) { return 2.0 * static_cast<double>(macs) / (ms * 1e6); }

std::string mebibytes(size_t bytes) {
  return milliseconds(static_cast<double>(bytes) / (1024.0 * 1024.0)) + " MiB";
}

void print_text(const BenchOptions& o, const ProgramRun& loaded, const GraphExecutor& executor, const Latency& l,
                const std::vector<GroupTime>& profile) {
  const CompiledModule& compiled = executor.compiled();
  const MemoryStats& m = executor.memory();
  std::cout << "bench " << loaded.program.origin << ": " << executor.num_launches() << " launches, " << o.warmup
            << " warmup and " << o.repeat << " timed runs\n";
  std::cout << "build:        " << milliseconds(compiled.build_ms) << " ms (passes, partition, compile)\n";
  std::cout << "latency (ms): min " << milliseconds(l.min) << ", median " << milliseconds(l.median) << ", p90 "
            << milliseconds(l.p90) << ", mean " << milliseconds(l.mean) << "\n";
  std::cout << "memory:       arena " << mebibytes(m.arena_bytes) << ", parameters " << mebibytes(m.param_bytes)
            << ", intermediates " << mebibytes(m.intermediate_bytes) << "\n";
  std::cout << "targets:     ";
  for (const auto& [name, ops] : ops_per_target(compiled)) std::cout << " " << name << " " << ops << " ops;";
  std::cout << "\n";
  int fallback = 0;
  for (const FallbackOp& op : compiled.fallback_ops) fallback += op.count;
  std::cout << "fallback:     " << fallback << " ops on ref that no listed target supports\n";
  for (const FallbackOp& op : compiled.fallback_ops)
    std::cout << "  " << op.op << (op.attrs.empty() ? "" : "(" + op.attrs + ")") << " x " << op.count << "\n";
  if (!o.profile) return;
  double total = 0;
  for (const GroupTime& t : profile) total += t.ms;
  std::cout << "\ngroup  target      time ms   share  GFLOP/s  ops\n";
  for (const GroupTime& t : profile) {
    const CompiledGroup& g = compiled.groups[t.group];
    const int64_t macs = testing::count_macs(g.primitive);
    const std::string rate = macs > 0 && t.ms > 0 ? milliseconds(gflops_per_second(macs, t.ms)) : "-";
    std::printf("%5zu  %-10s %8s  %5.1f%%  %7s  %s\n", t.group, g.target.c_str(), milliseconds(t.ms).c_str(),
                total > 0 ? 100 * t.ms / total : 0.0, rate.c_str(), join(g.ops).c_str());
  }
}

void print_json_report(const BenchOptions& o, const ProgramRun& loaded, const GraphExecutor& executor,
                       const Latency& l, const std::vector<GroupTime>& profile) {
  const CompiledModule& compiled = executor.compiled();
  const MemoryStats& m = executor.memory();
  nlohmann::json j;
  j["program"] = loaded.program.origin;
  j["build_ms"] = compiled.build_ms;
  j["latency_ms"] = {{"min", l.min}, {"median", l.median}, {"p90", l.p90}, {"mean", l.mean}};
  j["warmup"] = o.warmup;
  j["repeat"] = o.repeat;
  j["threads"] = compiled.config.threads;
  j["launches"] = executor.num_launches();
  j["macs"] = testing::count_macs(loaded.mod);
  j["arena_bytes"] = m.arena_bytes;
  j["arena_bytes_by_target"] = m.arena_bytes_by_target;
  j["param_bytes"] = m.param_bytes;
  j["intermediate_bytes"] = m.intermediate_bytes;
  j["targets"] = ops_per_target(compiled);
  j["fallback_ops"] = nlohmann::json::array();
  for (const FallbackOp& op : compiled.fallback_ops)
    j["fallback_ops"].push_back({{"op", op.op}, {"attrs", op.attrs}, {"count", op.count}});
  if (o.profile) {
    double total = 0;
    for (const GroupTime& t : profile) total += t.ms;
    j["profile"] = nlohmann::json::array();
    for (const GroupTime& t : profile) {
      const CompiledGroup& g = compiled.groups[t.group];
      j["profile"].push_back({{"group", t.group},
                              {"target", g.target},
                              {"ops", g.ops},
                              {"ms", t.ms},
                              {"share", total > 0 ? t.ms / total : 0.0},
                              {"macs", testing::count_macs(g.primitive)}});
    }
  }
  print_json(std::cout, j);
}

void bench(const BenchOptions& o) {
  ProgramRun loaded = load_program_run(o.source, std::cerr);
  BuildInput input = bind_weights(loaded);
  release_weights(loaded);  // the bound module holds them now, as constants, and the build consumes it
  RunConfig config = run_config_from(o.build);
  if (o.threads) config.threads = *o.threads;
  GraphExecutor executor(build(std::move(input.mod), config));

  std::vector<double> ms;
  {
    ProgressBar bar("bench", static_cast<size_t>(o.warmup + o.repeat));
    for (int r = 0; r < o.warmup + o.repeat; ++r) {
      auto start = std::chrono::steady_clock::now();
      executor.run(input.inputs);
      if (r >= o.warmup) ms.push_back(since(start));
      bar.update(r + 1);
    }
  }
  std::vector<GroupTime> profile;
  if (o.profile) profile = profile_groups(executor, input.inputs, o.repeat);
  const Latency l = latency_of(ms);
  if (o.json)
    print_json_report(o, loaded, executor, l, profile);
  else
    print_text(o, loaded, executor, l, profile);
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Build a program once and time its runs on the graph executor");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("program", o->source.program, "The program: a Relay text file, or a model (resnet-18, `weft models`)")
      ->required();
  cmd->add_option("--inputs", o->source.inputs, "Tensors for main's parameters, by name (.npz, .safetensors or .npy)");
  cmd->add_option("--shape", o->source.shapes,
                  "NAME=DIMS (data=1x3x224x224): the shape of an imported model's input with symbolic dimensions");
  cmd->add_option("--params", o->source.params, "Weights for main's parameters, bound as constants (same formats)");
  cmd->add_option("--seed", o->source.seed, "Seed for the random data of parameters not given (as np.random.seed)")
      ->check(CLI::Range(uint32_t{0}, UINT32_MAX));
  add_build_flags(*cmd, o->build);
  cmd->add_option("--warmup", o->warmup, "Untimed runs first (default 3)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeat", o->repeat, "Timed runs (default 10)")->check(CLI::PositiveNumber);
  cmd->add_option("--threads", o->threads, "Threads the targets may use, instead of the config's (0: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", o->json, "Print one JSON object instead");
  cmd->add_flag("--profile", o->profile,
                "Also time each kernel over `repeat` more runs, synchronizing after each, and list the groups by time");
  cmd->callback([o] { bench(*o); });
}

}  // namespace weft::cli
