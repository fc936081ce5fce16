// `weft run PROGRAM [--inputs F] [--params F] [--output F] [--seed N]
// [--gradient]`: runs main (or, with --gradient, its first-order gradient) on
// the interpreter with inputs from tensor files (random data for the rest),
// prints a summary and optionally saves the outputs.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "classifier_report.h"
#include "commands.h"
#include "main_arguments.h"
#include "program_source.h"
#include "weft/gradient.h"
#include "weft/interpreter.h"
#include "weft/names.h"
#include "weft/passes.h"

namespace weft::cli {

namespace {

struct RunOptions {
  std::string program, inputs, params, output;
  uint32_t seed = 0;
  bool gradient = false;
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

void run(const RunOptions& o) {
  // A model's weights come from create_workload unless --params brings them.
  Program program = load_program(o.program, ProgramOptions{o.params.empty(), o.seed});
  IRModule mod = infer_type(program.mod);
  std::vector<NamedSource> sources;
  if (!program.params.empty()) sources.push_back({program.origin, program.params});
  for (const auto& [flag, path] : {std::pair{"--params ", o.params}, std::pair{"--inputs ", o.inputs}}) {
    if (path.empty()) continue;
    const std::string label = flag + path;
    sources.push_back({label, load_tensor_file(path, parameter_header_check(mod.main(), label))});
  }
  std::vector<Value> args = bind_main_arguments(mod.main(), sources, o.seed, std::cerr);
  const Function forward = mod.main();
  // The reference's gradient pass seeds the output with ones.
  if (o.gradient) mod.add(mod.global_var("main"), gradient(forward, mod, GradientMode::kFirstOrder));

  Interpreter interpreter(mod);
  auto start = std::chrono::steady_clock::now();
  Value result = interpreter.run_main(args);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  NamedTensors outputs = o.gradient ? name_gradient_outputs(result, forward) : name_outputs(result);
  std::ostringstream time;
  time << std::fixed << std::setprecision(3) << ms;
  std::cout << "ran " << (o.gradient ? "the gradient of main" : "main") << " of " << program.origin
            << " on the interpreter in " << time.str() << " ms\n";
  for (const auto& [name, t] : outputs) std::cout << name << ": " << preview(t) << "\n";
  if (!o.gradient && outputs.size() == 1 && is_classifier(mod)) print_top_classes(std::cout, outputs[0].second, 5);
  if (!o.output.empty()) {
    save_tensor_file(o.output, outputs);
    std::cout << "saved " << outputs.size() << (outputs.size() == 1 ? " output" : " outputs") << " to " << o.output
              << "\n";
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run a program's main on the interpreter");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("program", o->program, "The program: a Relay text file, or a model (resnet-18, `weft models`)")->required();
  cmd->add_option("--inputs", o->inputs, "Tensors for main's parameters, by name (.npz, .safetensors or .npy)");
  cmd->add_option("--params", o->params, "More tensors for main's parameters, e.g. weights (same formats)");
  cmd->add_option("--output", o->output, "Save the outputs here (.npz, .safetensors, or .npy for one output)");
  cmd->add_option("--seed", o->seed, "Seed for the random data of parameters not given (as np.random.seed)")
      ->check(CLI::Range(uint32_t{0}, UINT32_MAX));
  cmd->add_flag("--gradient", o->gradient,
                "Run main's first-order gradient (seeded with ones) instead; outputs are `output` and "
                "grad_<parameter> for each parameter");
  cmd->callback([o] { run(*o); });
}

}  // namespace weft::cli
