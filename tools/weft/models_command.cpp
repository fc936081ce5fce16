// `weft models [--json]`: every model family, its arguments with defaults and
// its named variants, as `weft show`/`weft run` accept them.
#include <nlohmann/json.hpp>

#include <iostream>

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "commands.h"
#include "json_output.h"
#include "weft/model_spec.h"
#include "weft/passes.h"
#include "weft/testing/count_macs.h"
#include "weft/testing/count_ops.h"

namespace weft::cli {

namespace {

/// A value as it is written on the command line: 3x224x224, true, NCHW.
std::string cli_text(const AttrValue& v) {
  switch (v.type()) {
    case AttrType::kNone: return "None";
    case AttrType::kBool: return v.as_bool() ? "true" : "false";
    case AttrType::kString: return v.as_string();
    case AttrType::kDType: return v.as_dtype().str();
    case AttrType::kIntList: {
      std::string out;
      for (int64_t d : v.as_int_list()) out += (out.empty() ? "" : "x") + std::to_string(d);
      return out;
    }
    default: return v.str();
  }
}

nlohmann::json value_json(const AttrValue& v) {
  switch (v.type()) {
    case AttrType::kNone: return nullptr;
    case AttrType::kInt: return v.as_int();
    case AttrType::kFloat: return v.as_float();
    case AttrType::kBool: return v.as_bool();
    case AttrType::kIntList: return v.as_int_list();
    case AttrType::kFloatList: return v.as_float_list();
    default: return cli_text(v);
  }
}

nlohmann::json to_json(const ModelDef& def) {
  nlohmann::json args = nlohmann::json::array(), variants = nlohmann::json::array();
  for (const AttrField& f : def.params.fields()) {
    args.push_back({{"name", f.name},
                    {"type", std::string(attr_type_name(f.type))},
                    {"required", !f.default_value.has_value()},
                    {"default", f.default_value ? value_json(*f.default_value) : nlohmann::json(nullptr)},
                    {"doc", f.doc},
                    {"expected", f.expected}});
  }
  for (const ModelVariant& v : def.variants) {
    nlohmann::json sets = nlohmann::json::object();
    if (v.fixed)
      for (const auto& [name, value] : v.fixed->entries) sets[name] = value_json(value);
    variants.push_back({{"name", variant_name(def.name, v)}, {"sets", sets}, {"doc", v.doc}});
  }
  return {{"name", def.name},         {"plugin", def.plugin},     {"description", def.description},
          {"arguments", args},        {"variants", variants},     {"initializer", def.initializer}};
}

void print_text(const ModelDef& def) {
  std::cout << def.name << "  (plugin " << def.plugin << ")\n";
  if (!def.description.empty()) std::cout << "  " << def.description << "\n";
  std::cout << "  initializer " << def.initializer << "\n";
  for (const AttrField& f : def.params.fields()) {
    std::cout << "  " << f.name << (f.default_value ? " = " + cli_text(*f.default_value) : " (required)")
              << (f.doc.empty() ? "" : "  " + f.doc) << "\n";
  }
  for (const ModelVariant& v : def.variants) {
    std::cout << "  variant " << variant_name(def.name, v);
    if (v.fixed)
      for (const auto& [name, value] : v.fixed->entries) std::cout << "  " << name << "=" << cli_text(value);
    std::cout << (v.doc.empty() ? "" : "  (" + v.doc + ")") << "\n";
  }
}

std::string shape_text(const TensorTypeNode& t) {
  std::string out;
  for (Dim d : t.shape) out += (out.empty() ? "" : "x") + (d == kAnyDim ? std::string("?") : std::to_string(d));
  return out;
}

/// One markdown row: name, input shape, parameter elements (all of main's
/// parameters but `data`, as create_workload fills them), GMACs, op counts.
std::string table_row(const std::string& name) {
  IRModule mod = infer_type(IRModule::from_function(build_model(parse_model_spec(name))));
  std::string input = "-";
  int64_t params = 0;
  for (const Var& p : mod.main()->params) {
    auto t = p->checked_type().as<TensorTypeNode>();
    if (p->name_hint == "data") input = t ? shape_text(*t) : type_to_text(p->checked_type());
    else if (t) params += t->numel();
  }
  std::vector<std::pair<std::string, int>> ops;
  int total_ops = 0;
  for (const auto& [op, n] : testing::count_ops(mod)) {
    ops.emplace_back(op, n);
    total_ops += n;
  }
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::ostringstream row;
  row << "| `" << name << "` | " << input << " | " << params << " (" << std::fixed << std::setprecision(2)
      << params / 1e6 << "M) | " << std::defaultfloat << std::setprecision(4) << testing::count_macs(mod) / 1e9 << " | " << total_ops << ": ";
  for (size_t i = 0; i < ops.size(); ++i) row << (i ? ", " : "") << ops[i].first << " " << ops[i].second;
  row << " |";
  return row.str();
}

void print_table(const std::vector<std::string>& names) {
  std::cout << "| model | input (data) | parameters | GMACs | ops: count by op |\n"
            << "|---|---|---|---|---|\n";
  for (const std::string& name : names) std::cout << table_row(name) << "\n";
}

}  // namespace

void add_models_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the model zoo: families, their arguments and named variants");
  auto json = std::make_shared<bool>(false);
  auto table = std::make_shared<std::vector<std::string>>();
  cmd->add_flag("--json", *json, "Print one JSON array");
  cmd->add_option("--table", *table,
                  "Instead, build these models (resnet-18 ...) and print a markdown table of their input, "
                  "parameter count, GMACs and op counts (docs/models.md)");
  cmd->callback([json, table] {
    if (!table->empty()) return print_table(*table);
    std::vector<const ModelDef*> defs;
    bool failed = false;
    for (const std::string& name : known_model_families()) {
      try {
        defs.push_back(&ModelRegistry::global().get(name));
      } catch (const Error& e) {
        std::cerr << "warning: skipping model " << name << ": " << e.what() << "\n";
        failed = true;
      }
    }
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const ModelDef* def : defs) out.push_back(to_json(*def));
      print_json(std::cout, out);
    } else {
      for (const ModelDef* def : defs) print_text(*def);
      if (defs.empty()) std::cout << "no models: no model plugin was found (see `weft plugins`)\n";
    }
    if (failed) throw CLI::RuntimeError(1);
  });
}

}  // namespace weft::cli
