// `weft run PROGRAM [--config F] [--target T[,T2]] [--fallback warn|error]
// [-O N] [--inputs F] [--params F] [--output F] [--seed N] [--gradient]
// [--interpreter]`: builds main (or, with --gradient, its first-order
// gradient) for a run config's targets and runs it on the graph executor, or
// on the interpreter unbuilt, with inputs from tensor files (random data for
// the rest); prints a summary and optionally saves the outputs.
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "build_flags.h"
#include "classifier_report.h"
#include "commands.h"
#include "compiled_summary.h"
#include "program_run.h"
#include "weft/build.h"
#include "weft/gradient.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/names.h"
#include "weft/passes.h"

namespace weft::cli {

namespace {

struct RunOptions {
  ProgramRunOptions source;
  std::string output;
  bool gradient = false;
  bool interpreter = false;
  BuildFlags build;
};

/// Tuples are flattened in order; one tensor is "output", several "output_N".
NamedTensors name_outputs(const Value& result) {
  std::vector<Tensor> tensors = result.flatten();
  NamedTensors outputs;
  for (size_t i = 0; i < tensors.size(); ++i)
    outputs.emplace_back(tensors.size() == 1 ? "output" : "output_" + std::to_string(i), tensors[i]);
  return outputs;
}

/// A gradient's result (output, (gradients)): the output as above, then
/// grad_<parameter> for each parameter of `fn`, by its user-facing name.
NamedTensors name_gradient_outputs(const Value& result, const Function& fn) {
  NamedTensors outputs = name_outputs(result.fields().at(0));
  const auto& grads = result.fields().at(1).fields();
  const std::vector<std::string> names = param_names(fn);
  for (size_t i = 0; i < grads.size(); ++i) outputs.emplace_back("grad_" + names[i], grads[i].tensor());
  return outputs;
}

// "Tensor[(2, 3), float32] [0.5, -1, 2, ...]": the type and the first values.
std::string preview(const Tensor& t) {
  constexpr int64_t kShown = 6;
  std::ostringstream out;
  out << describe(t) << " [";
  for (int64_t i = 0; i < std::min(t.numel(), kShown); ++i) out << (i ? ", " : "") << t.element_as_double(i);
  out << (t.numel() > kShown ? ", ...]" : "]");
  return out.str();
}

/// Builds `mod` (loaded's module, or its gradient) for the config the flags
/// name (saying so, and how long it took) and runs its main on the graph
/// executor; `how` says where it ran. Nothing when the executor cannot run the built main
/// (control flow: calls of global functions, ifs, closures), which is said on
/// stderr. Unless `gradient`, the build consumes loaded's weights.
std::optional<Value> run_built(ProgramRun& loaded, const IRModule& mod, bool gradient,
                               const BuildFlags& flags, std::string& how) {
  // The weights become constants, as relay.build(params=...) binds them; not for a gradient, which
  // differentiates with respect to them.
  BuildInput input = gradient ? BuildInput{specialize_to_inputs(infer_type(mod), loaded.args), loaded.args}
                              : bind_weights(loaded);
  if (!gradient) release_weights(loaded);  // the bound module holds them now, as constants
  std::shared_ptr<const CompiledModule> compiled = build(std::move(input.mod), run_config_from(flags));
  std::unique_ptr<GraphExecutor> executor;
  try {
    executor = std::make_unique<GraphExecutor>(compiled);
  } catch (const Error& e) {
    if (e.status() != StatusCode::kUnsupported) throw;
    std::cerr << "weft: " << e.message() << "; running main on the interpreter\n";
    return std::nullopt;
  }
  auto start = std::chrono::steady_clock::now();
  Value result = executor->run(input.inputs);
  std::cout << "built main of " << loaded.program.origin << " for " << target_list(*compiled) << " in "
            << milliseconds(compiled->build_ms) << " ms\n";
  how = "on " + target_list(*compiled) + " in " + milliseconds(since(start)) + " ms";
  return result;
}

void run(const RunOptions& o) {
  ProgramRun loaded = load_program_run(o.source, std::cerr);
  IRModule mod = loaded.mod;
  const Function forward = mod.main();
  // The reference's gradient pass seeds the output with ones.
  if (o.gradient) mod.add(mod.global_var("main"), gradient(forward, mod, GradientMode::kFirstOrder));

  std::string how;
  std::optional<Value> result;
  if (!o.interpreter) result = run_built(loaded, mod, o.gradient, o.build, how);
  if (!result) {
    // The build consumed the weights; loading again draws the same ones (the same seed and files).
    if (!o.interpreter && !o.gradient) {
      std::ostringstream said_already;
      loaded = load_program_run(o.source, said_already);
    }
    Interpreter interpreter(mod);
    auto start = std::chrono::steady_clock::now();
    result = interpreter.run_main(loaded.args);
    how = "on the interpreter in " + milliseconds(since(start)) + " ms";
  }

  NamedTensors outputs = o.gradient ? name_gradient_outputs(*result, forward) : name_outputs(*result);
  std::cout << "ran " << (o.gradient ? "the gradient of main" : "main") << " of " << loaded.program.origin << " "
            << how << "\n";
  for (const auto& [name, t] : outputs) std::cout << name << ": " << preview(t) << "\n";
  if (!o.gradient && outputs.size() == 1 && is_classifier(loaded.mod)) print_top_classes(std::cout, outputs[0].second, 5);
  if (!o.output.empty()) {
    save_tensor_file(o.output, outputs);
    std::cout << "saved " << outputs.size() << (outputs.size() == 1 ? " output" : " outputs") << " to " << o.output
              << "\n";
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Build a program's main for a run config's targets and run it");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("program", o->source.program, "The program: a Relay text file, or a model (resnet-18, `weft models`)")->required();
  cmd->add_option("--inputs", o->source.inputs, "Tensors for main's parameters, by name (.npz, .safetensors or .npy)");
  cmd->add_option("--shape", o->source.shapes,
                  "NAME=DIMS (data=1x3x224x224): the shape of an imported model's input with symbolic dimensions");
  cmd->add_option("--params", o->source.params, "More tensors for main's parameters, e.g. weights (same formats)");
  cmd->add_option("--output", o->output, "Save the outputs here (.npz, .safetensors, or .npy for one output)");
  cmd->add_option("--seed", o->source.seed, "Seed for the random data of parameters not given (as np.random.seed)")
      ->check(CLI::Range(uint32_t{0}, UINT32_MAX));
  cmd->add_flag("--gradient", o->gradient,
                "Run main's first-order gradient (seeded with ones) instead; outputs are `output` and "
                "grad_<parameter> for each parameter");
  add_build_flags(*cmd, o->build);
  cmd->add_flag("--interpreter", o->interpreter,
                "Run on the reference interpreter instead, unbuilt (the oracle the built program is checked against)");
  cmd->callback([o] { run(*o); });
}

}  // namespace weft::cli
