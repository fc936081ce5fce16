// Print -> parse -> structurally equal, for every op of the tensor and nn
// plugins, driven by the plugins' own golden cases (real attrs, shapes and
// dtypes): once over typed parameters after type inference (the text carries
// `/* ty=... */`), once with the golden inputs as constants (the text carries
// a `#[metadata]` section, or inline scalars).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "support/op_test.h"
#include "weft/plugin_loader.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

namespace fs = std::filesystem;

const fs::path kPluginsDir = fs::path(WEFT_GOLDEN_DIR) / ".." / ".." / "plugins";

struct GoldenCall {
  std::string name, op;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<Tensor> inputs;
  bool tuple_input = false;  // the inputs travel as one tuple (concatenate, stack)
};

std::vector<GoldenCall> golden_calls(const std::string& plugin) {
  std::vector<GoldenCall> out;
  for (const auto& entry : fs::directory_iterator(kPluginsDir / plugin / "tests" / "golden")) {
    if (entry.path().extension() != ".json") continue;
    nlohmann::json doc = testing::read_json(entry.path().string());
    const nlohmann::json& cases = doc.is_object() ? doc.at("cases") : doc;
    for (const auto& c : cases) {
      if (!c.contains("op")) continue;
      GoldenCall g{c.at("name").get<std::string>(), c.at("op").get<std::string>(),
                   testing::attrs_from_json(c.value("attrs", nlohmann::json::object())), {}};
      for (const auto& t : c.at("inputs")) g.inputs.push_back(testing::tensor_from_json(t));
      g.tuple_input = c.value("tuple_input", false);
      out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<std::string> plugin_ops(const std::string& plugin) {
  PluginLoader::global().load(plugin);
  std::vector<std::string> out;
  for (const OpDef* def : OpRegistry::global().list())
    if (def->plugin == plugin) out.push_back(def->name);
  return out;
}

// print -> parse gives the same module, and printing the parsed module after
// inference gives the same text again.
void expect_round_trip(const IRModule& mod, const std::string& what) {
  SCOPED_TRACE(what);
  std::string text = to_text(mod);
  IRModule parsed;
  try {
    parsed = parse_module(text, what);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what() << "\n" << text;
    return;
  }
  EXPECT_TRUE(structural_equal(mod, parsed)) << text << "\nreads back as\n" << to_text(parsed);
  EXPECT_EQ(to_text(infer_type(parsed)), text);
}

class OpRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(OpRoundTrip, EveryGoldenCallRoundTripsTypedAndAsConstants) {
  std::set<std::string> covered;
  int calls = 0;
  for (const GoldenCall& g : golden_calls(GetParam())) {
    std::vector<Var> params;
    std::vector<Expr> args, constants;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      params.push_back(var("in" + std::to_string(i), tensor_type(g.inputs[i].shape(), g.inputs[i].dtype())));
      args.push_back(params.back());
      constants.push_back(constant(g.inputs[i]));
    }
    if (g.tuple_input) {
      args = {tuple(args)};
      constants = {tuple(constants)};
    }
    expect_round_trip(infer_type(IRModule::from_function(function(params, call(g.op, args, g.attrs)))),
                      g.name + " (typed)");
    expect_round_trip(infer_type(IRModule::from_function(function({}, call(g.op, constants, g.attrs)))),
                      g.name + " (constants)");
    covered.insert(g.op);
    ++calls;
  }
  EXPECT_GT(calls, 0) << "no golden cases found for " << GetParam();
  int defaults = 0;
  for (const std::string& op : plugin_ops(GetParam())) {
    if (covered.count(op)) continue;
    ++defaults;
    // An op without golden cases: its schema defaults over untyped inputs.
    const OpDef& def = OpRegistry::global().get(op);
    std::vector<Var> params;
    std::vector<Expr> args;
    for (size_t i = 0; i < def.inputs.size(); ++i) {
      params.push_back(var(def.inputs[i].name));
      args.push_back(params.back());
    }
    std::string text;
    try {
      Expr c = call(op, args);
      text = to_text(IRModule::from_function(function(params, c)));
      EXPECT_TRUE(structural_equal(IRModule::from_function(function(params, c)), parse_module(text))) << text;
    } catch (const Error& e) {
      ADD_FAILURE() << op << " has no golden case and no default call: " << e.what() << "\n" << text;
    }
  }
  RecordProperty("golden_calls", calls);
  RecordProperty("default_calls", defaults);
}

INSTANTIATE_TEST_SUITE_P(Plugins, OpRoundTrip, ::testing::Values("tensor", "nn"));

}  // namespace
}  // namespace weft
