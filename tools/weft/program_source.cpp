// Turning a command's PROGRAM argument into a program (see program_source.h).
#include "program_source.h"

#include <algorithm>
#include <filesystem>

#include "weft/error.h"
#include "weft/frontend.h"
#include "weft/model.h"
#include "weft/model_spec.h"
#include "weft/plugin_loader.h"
#include "weft/text.h"
#include "weft/workload.h"

namespace weft::cli {

namespace {

/// A model family names the argument's start (`resnet` in `resnet-18:...`).
bool names_model_family(const std::string& argument) {
  std::string family = argument.substr(0, argument.find_first_of("-:"));
  auto families = known_model_families();
  return std::find(families.begin(), families.end(), family) != families.end();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

Program load_model(const std::string& argument, const ProgramOptions& options) {
  ModelSpec spec = parse_model_spec(argument);
  Function fn = build_model(spec);
  const std::string initializer = ModelRegistry::global().get(spec.family).initializer;
  if (!options.initialize_params) return Program{IRModule::from_function(fn), {}, argument, spec.family, initializer};
  Workload workload = create_workload(fn, initializer, options.seed);
  return Program{workload.mod, std::move(workload.params), argument, spec.family, initializer};
}

/// The frontend that reads files like `path` (by suffix), loading the
/// plugins that provide frontends to ask them; nullptr for none.
const FrontendDef* frontend_for(const std::filesystem::path& path) {
  const std::string suffix = path.extension().string();
  if (suffix.empty()) return nullptr;
  for (const PluginRecord& record : PluginLoader::global().plugins()) {
    if (!record.manifest || record.state == PluginState::kShadowed) continue;
    for (const std::string& name : record.manifest->provided(ProvidedKind::kFrontend)) {
      const FrontendDef* def = FrontendRegistry::global().find(name);
      if (def && std::find(def->extensions.begin(), def->extensions.end(), suffix) != def->extensions.end()) return def;
    }
  }
  return nullptr;
}

/// main with the constants let-bound at the head of its body (a frontend's
/// named weights) as parameters after its own; their values by name.
Program lift_named_weights(Program program) {
  Function main = program.mod.main();
  std::vector<Var> params = main->params;
  Expr body = main->body;
  while (const auto* let = body.as<LetNode>()) {
    const auto* value = let->value.as<ConstantNode>();
    if (!value) break;
    params.push_back(let->var);
    program.params.emplace_back(let->var->name_hint, value->data);
    body = let->body;
  }
  program.mod = IRModule::from_function(function(params, body));
  return program;
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

/// What the command asks of the import, in the options of `frontend`: a
/// frontend without one the command needs is an error naming it; the input
/// tensors' shapes go only to one that reads them.
Attrs frontend_options(const FrontendDef& frontend, const ProgramOptions& options) {
  std::vector<std::pair<std::string, AttrValue>> given;
  auto ask = [&](const char* option, const std::string& value, bool needed, const char* flag) {
    if (frontend.options.find(option)) given.emplace_back(option, AttrValue(value));
    else if (needed)
      throw Error(std::string(flag) + ": frontend '" + frontend.name + "' has no option '" + option + "'")
          .status(StatusCode::kInvalidArgument);
  };
  ask("shapes", joined(options.shapes, ";"), !options.shapes.empty(), "--shape");
  ask("input_shapes", joined(options.input_shapes, ";"), false, "--inputs");
  ask("initializers", options.weights_as_params ? "let" : "constants", options.weights_as_params, "--params-out");
  return frontend.options.normalize(frontend.name, make_attrs(given));
}

}  // namespace

bool imported_by_frontend(const std::string& argument) {
  std::error_code ec;
  return std::filesystem::is_regular_file(argument, ec) && frontend_for(argument);
}

Program load_program(const std::string& argument, const ProgramOptions& options) {
  std::filesystem::path path(argument);
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    if (const FrontendDef* frontend = frontend_for(path)) {
      Program imported{frontend->import_file(argument, frontend_options(*frontend, options)), {}, argument, "",
                       "xavier", frontend->name};
      return options.weights_as_params ? lift_named_weights(std::move(imported)) : imported;
    }
    if (options.weights_as_params)
      throw Error("--params-out applies to a model a frontend imports (an .onnx file), not to " + argument)
          .status(StatusCode::kInvalidArgument);
    if (!options.shapes.empty())
      throw Error("--shape applies to a model a frontend imports (an .onnx file), not to " + argument)
          .status(StatusCode::kInvalidArgument);
    return Program{parse_module_file(path), {}, argument, ""};
  }
  if (names_model_family(argument)) return load_model(argument, options);
  throw Error("'" + argument + "' is neither a program file nor a model")
      .expected("a Relay text file (#[version = \"0.0.5\"] ...) or a model of the families " +
                join(known_model_families()) + " (`weft models` lists them)")
      .status(StatusCode::kNotFound);
}

}  // namespace weft::cli
