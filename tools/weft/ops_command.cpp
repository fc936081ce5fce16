// `weft ops`: every op the plugins provide, with inputs, attrs and docs.
#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.h"
#include "json_output.h"
#include "load_providers.h"
#include "weft/op.h"
#include "weft/plugin_loader.h"

namespace weft::cli {

namespace {

nlohmann::json to_json(const OpDef& op) {
  nlohmann::json j;
  j["name"] = op.name;
  j["plugin"] = op.plugin;
  j["description"] = op.description;
  j["support_level"] = op.support_level;
  j["pattern"] = std::string(op_pattern_name(op.pattern));
  j["variadic"] = op.variadic;
  j["has_kernel"] = static_cast<bool>(op.kernel);
  j["has_gradient"] = static_cast<bool>(op.gradient);
  j["has_te_compute"] = static_cast<bool>(op.te_compute);
  j["inputs"] = nlohmann::json::array();
  for (const OpInput& in : op.inputs) j["inputs"].push_back({{"name", in.name}, {"type", in.type_desc}, {"doc", in.doc}});
  j["attrs"] = nlohmann::json::array();
  for (const AttrField& f : op.attrs.fields()) {
    nlohmann::json a{{"name", f.name}, {"type", std::string(attr_type_name(f.type))}, {"doc", f.doc}};
    a["required"] = !f.default_value.has_value();
    a["default"] = f.default_value ? nlohmann::json(f.default_value->str()) : nlohmann::json(nullptr);
    if (f.text_default) a["text_default"] = f.text_default->str();
    // The values it accepts, as its error message says them ("" where any of its type is).
    a["allowed"] = f.expected;
    j["attrs"].push_back(a);
  }
  return j;
}

void print_text(const OpDef& op) {
  std::cout << op.name << "  (plugin " << op.plugin << ", level " << op.support_level << ", "
            << op_pattern_name(op.pattern) << (op.te_compute ? ", TE" : "") << ")\n";
  if (!op.description.empty()) std::cout << "  " << op.description << "\n";
  for (const OpInput& in : op.inputs) {
    std::cout << "  input " << in.name << ": " << in.type_desc << (in.doc.empty() ? "" : "  " + in.doc) << "\n";
  }
  for (const AttrField& f : op.attrs.fields()) {
    std::cout << "  attr " << f.name << ": " << attr_type_name(f.type)
              << (f.default_value ? " = " + f.default_value->str() : " (required)")
              << (f.text_default ? " (read from text: " + f.text_default->str() + ")" : "")
              << (f.doc.empty() ? "" : "  " + f.doc) << "\n";
  }
}

}  // namespace

void add_ops_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ops", "List every operator the plugins provide");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print one JSON array");
  cmd->callback([json] {
    bool failed = false;
    load_providers(ProvidedKind::kOp, [&](const PluginRecord& r, const Error& e) {
      std::cerr << "warning: skipping plugin " << r.display_name() << ": " << e.what() << "\n";
      failed = true;
    });
    auto ops = OpRegistry::global().list();
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const OpDef* op : ops) out.push_back(to_json(*op));
      print_json(std::cout, out);
    } else {
      for (const OpDef* op : ops) print_text(*op);
      if (ops.empty()) std::cout << "no ops: no plugin providing ops was found (see `weft plugins`)\n";
    }
    if (failed) throw CLI::RuntimeError(1);
  });
}

}  // namespace weft::cli
