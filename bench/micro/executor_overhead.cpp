// Per-launch overhead of the graph executor on `ref`, against the reference
// interpreter on the same kernels (issue 13's goal: <= 1 us per launch).
//
// Two programs: the zoo's mlp, its weights bound as constants as `weft run`
// binds them, and a chain of 1,000 elementwise ops on a 4-element tensor,
// built at -O0 so that each op is its own group (one launch each) and the
// kernels' own work is a few nanoseconds. "per_launch" is a run's CPU time
// divided by its launches (Google Benchmark's rates count CPU time).
// Run: build/bin/weft_bench_executor_overhead.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/functor.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/model.h"
#include "weft/model_spec.h"
#include "weft/passes.h"
#include "weft/workload.h"

namespace weft {
namespace {

constexpr int kChainLength = 1000;

/// One program to time: the unbuilt module and its arguments (the
/// interpreter's input), and the module with its weights bound as constants
/// and main's remaining inputs (the build's input).
struct Program {
  IRModule unbound;
  std::vector<Value> all_args;
  IRModule bound;
  std::vector<Value> inputs;
  int opt_level = 3;
};

Tensor filled(const std::vector<int64_t>& shape, float value) {
  Tensor t = Tensor::empty(shape, DataType::Float(32));
  std::fill(t.data_as<float>(), t.data_as<float>() + t.numel(), value);
  return t;
}

Program mlp() {
  Function fn = build_model(parse_model_spec("mlp"));
  Workload w = create_workload(fn, ModelRegistry::global().get("mlp").initializer);
  Program p;
  p.unbound = infer_type(w.mod);
  std::map<std::string, Tensor> weights(w.params.begin(), w.params.end());
  for (const Var& param : p.unbound.main()->params) {
    auto it = weights.find(param->name_hint);
    if (it != weights.end()) {
      p.all_args.emplace_back(it->second);
      continue;
    }
    auto type = param->checked_type().as<TensorTypeNode>();
    Tensor data = filled(type->shape, 0.5f);
    p.all_args.emplace_back(data);
    p.inputs.emplace_back(data);
  }
  p.bound = infer_type(bind_params(p.unbound, weights));
  return p;
}

/// x -> negative(x) -> ... 1,000 times: negative is elementwise and exact.
Program elementwise_chain() {
  Var x = var("x", tensor_type({4}));
  Expr body = x;
  for (int i = 0; i < kChainLength; ++i) body = call("negative", {body});
  Program p;
  p.unbound = infer_type(IRModule::from_function(function({x}, body)));
  p.bound = p.unbound;
  p.all_args = p.inputs = {Value(filled({4}, 1.5f))};
  p.opt_level = 0;
  return p;
}

std::shared_ptr<const CompiledModule> build_for_ref(const Program& p) {
  RunConfig config;
  config.opt_level = p.opt_level;
  return build(p.bound, config);
}

void report_per_launch(benchmark::State& state, size_t launches) {
  state.counters["launches"] = static_cast<double>(launches);
  state.counters["per_launch"] = benchmark::Counter(static_cast<double>(launches),
                                                    benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}

void executor_run(benchmark::State& state, Program (*make)()) {
  const Program p = make();
  GraphExecutor executor(build_for_ref(p));
  for (auto _ : state) benchmark::DoNotOptimize(executor.run(p.inputs));
  report_per_launch(state, executor.num_launches());
}

/// The interpreter runs the program as built, op by op: the same calls, one
/// kernel each, as the executor's launches at -O0. For the mlp it runs the
/// unbuilt module, whose ops are the calls the reference evaluates.
void interpreter_run(benchmark::State& state, Program (*make)()) {
  const Program p = make();
  Interpreter interpreter(p.unbound);
  size_t calls = 0;
  post_order_visit(p.unbound.main()->body, [&](const Expr& e) { calls += e->kind == ExprKind::kCall; });
  for (auto _ : state) benchmark::DoNotOptimize(interpreter.run_main(p.all_args));
  report_per_launch(state, calls);
}

BENCHMARK_CAPTURE(executor_run, mlp, mlp);
BENCHMARK_CAPTURE(interpreter_run, mlp, mlp);
BENCHMARK_CAPTURE(executor_run, elementwise_chain_1000, elementwise_chain);
BENCHMARK_CAPTURE(interpreter_run, elementwise_chain_1000, elementwise_chain);

}  // namespace
}  // namespace weft

BENCHMARK_MAIN();
