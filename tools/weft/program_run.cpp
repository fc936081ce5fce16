// Loading a program with its arguments (see program_run.h).
#include "program_run.h"

#include <map>

#include "main_arguments.h"
#include "weft/names.h"
#include "weft/passes.h"

namespace weft::cli {

ProgramRun load_program_run(const ProgramRunOptions& o, std::ostream& notes) {
  ProgramRun run;
  // A model's weights come from create_workload unless --params brings them.
  ProgramOptions options{o.params.empty(), o.seed, o.shapes};
  // An imported model's symbolic input dimensions may come from the tensors
  // given: read once here for their shapes (inputs are small), only then.
  if (!o.inputs.empty() && imported_by_frontend(o.program))
    for (const auto& [name, tensor] : load_tensor_file(o.inputs)) {
      std::string dims;
      for (int64_t d : tensor.shape()) dims += (dims.empty() ? "" : "x") + std::to_string(d);
      if (!dims.empty() && name.find_first_of("=;") == std::string::npos)  // what NAME=DIMS;... can say
        options.input_shapes.push_back(name + "=" + dims);
    }
  run.program = load_program(o.program, options);
  run.mod = infer_type(run.program.mod);
  std::vector<NamedSource> sources;
  if (!run.program.params.empty()) sources.push_back({run.program.origin, run.program.params});
  for (const auto& [flag, path] : {std::pair{"--params ", o.params}, std::pair{"--inputs ", o.inputs}}) {
    if (path.empty()) continue;
    const std::string label = flag + path;
    sources.push_back({label, load_tensor_file(path, parameter_header_check(run.mod.main(), label))});
  }
  run.args = bind_main_arguments(run.mod.main(), sources, o.seed, notes);
  for (const NamedSource& source : sources) {
    if (source.label.starts_with("--inputs ")) continue;
    for (const auto& [name, tensor] : source.tensors) run.weights.insert(name);
  }
  return run;
}

BuildInput bind_weights(const ProgramRun& run) {
  const Function main = run.mod.main();
  const std::vector<std::string> names = param_names(main);
  std::map<std::string, Tensor> bound;
  BuildInput input;
  for (size_t i = 0; i < names.size(); ++i) {
    if (run.weights.count(names[i]))
      bound.emplace(names[i], run.args[i].tensor());
    else
      input.inputs.push_back(run.args[i]);
  }
  input.mod = specialize_to_inputs(infer_type(bind_params(run.mod, bound)), input.inputs);
  return input;
}

void release_weights(ProgramRun& run) {
  run.program.params.clear();
  const std::vector<std::string> names = param_names(run.mod.main());
  for (size_t i = 0; i < names.size(); ++i)
    if (run.weights.count(names[i])) run.args[i] = Value();
}

IRModule specialize_to_inputs(const IRModule& mod, const std::vector<Value>& inputs) {
  for (const Var& p : mod.main()->params) {
    auto tensor = p->checked_type().as<TensorTypeNode>();
    if (!tensor || !tensor->is_static()) return bind_argument_types(mod, "main", inputs);
  }
  return mod;
}

}  // namespace weft::cli
