// `weft show PROGRAM [--json]`: a program after type inference, as Relay text
// or as a JSON summary of its inputs, parameters, output type and op counts.
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <set>
#include <unordered_set>

#include "commands.h"
#include "json_output.h"
#include "program_source.h"
#include "weft/error.h"
#include "weft/functor.h"
#include "weft/names.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/type.h"
#include "weft/workload.h"

namespace weft::cli {

namespace {

// Keys in the order a reader expects them, not sorted.
using Json = nlohmann::ordered_json;

// {name, shape, dtype} for a tensor (null for a `?` extent), {name, type}
// otherwise; `name` is the parameter's user-facing name.
Json param_json(const Var& p, const std::string& name) {
  Type type = p->type_annotation.defined() ? p->type_annotation : p->checked_type();
  Json j{{"name", name}};
  if (type.defined() && type->kind == TypeKind::kTensor) {
    const auto& t = static_cast<const TensorTypeNode&>(*type);
    Json shape = Json::array();
    for (Dim d : t.shape) shape.push_back(d == kAnyDim ? Json(nullptr) : Json(d));
    j["shape"] = shape;
    j["dtype"] = t.dtype.str();
  } else {
    j["type"] = type.defined() ? type_to_text(type) : "_";
  }
  return j;
}

// Calls of each op over every function of the module, each call node once.
std::map<std::string, int> op_counts(const IRModule& mod) {
  std::map<std::string, int> counts;
  std::unordered_set<const ExprNode*> seen;
  for (const auto& [gv, fn] : mod.functions()) {
    post_order_visit(fn, [&](const Expr& e) {
      if (e->kind != ExprKind::kCall || !seen.insert(e.get()).second) return;
      const Expr& callee = static_cast<const CallNode&>(*e).op;
      if (callee->kind == ExprKind::kOp) ++counts[static_cast<const OpNode&>(*callee).name()];
    });
  }
  return counts;
}

Json summary_json(const Program& program, const IRModule& mod) {
  Function main = mod.main();
  std::set<std::string> given;
  for (const auto& entry : program.params) given.insert(entry.first);
  Json inputs = Json::array(), params = Json::array();
  int64_t param_count = 0;  // elements of the given parameters, as published model sizes count them
  const std::vector<std::string> names = param_names(main);
  for (size_t i = 0; i < names.size(); ++i)
    (given.count(names[i]) ? params : inputs).push_back(param_json(main->params[i], names[i]));
  for (const auto& entry : program.params) param_count += entry.second.numel();
  // infer_type gives every function its return type.
  return {{"inputs", inputs},           {"params", params},
          {"param_count", param_count}, {"output", type_to_text(main->ret_type)},
          {"op_counts", op_counts(mod)}};
}

// The program's workload parameters (its initializer, as tvm.relay.testing's
// get_workload), written by extension.
void write_params(const Program& program, uint64_t seed, const std::string& path) {
  if (!path.ends_with(".npz") && !path.ends_with(".safetensors")) {
    throw Error("--params-out " + path + ": unknown file type").expected("a .npz or .safetensors file");
  }
  save_tensor_file(path, create_workload(program.mod, program.initializer, seed).params);
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Print a program after type inference");
  auto program_arg = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("program", *program_arg, "The program: a Relay text file, or a model (resnet-18, `weft models`)")->required();
  cmd->add_flag("--json", *json, "Print its inputs, parameters, output type and op counts as JSON");
  auto params_out = std::make_shared<std::string>();
  auto seed = std::make_shared<uint64_t>(0);
  cmd->add_option("--params-out", *params_out,
                  "Write the initialized parameters (all but data; the model's initializer, xavier for a file, as "
                  "tvm.relay.testing) to F.npz or "
                  "F.safetensors");
  cmd->add_option("--seed", *seed, "Seed of the parameters' initializer (as np.random.seed)");
  cmd->callback([program_arg, json, params_out, seed] {
    Program program = load_program(*program_arg);
    if (!params_out->empty()) write_params(program, *seed, *params_out);
    IRModule mod = infer_type(program.mod);
    if (*json) print_json(std::cout, summary_json(program, mod));
    else std::cout << to_text(mod);
  });
}

}  // namespace weft::cli
