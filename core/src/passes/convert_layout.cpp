// ConvertLayout (Relay's): the ops the user names get the layouts the user
// chose, through each op's convert_layout hook; every other op follows through
// its infer_layout hook, and layout_transforms go only where layouts disagree.
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "layout_rewriter.h"
#include "weft/error.h"
#include "weft/op.h"
#include "weft/passes.h"

namespace weft {
namespace {

constexpr const char* kDesiredLayoutsKey = "relay.ConvertLayout.desired_layouts";
constexpr const char* kSkipLayersKey = "relay.ConvertLayout.skip_layers";

const bool kConfigRegistered = [] {
  PassContext::register_config(kDesiredLayoutsKey, AttrType::kString, AttrValue("{}"));
  PassContext::register_config(kSkipLayersKey, AttrType::kIntList, AttrValue(std::vector<int64_t>{}));
  return true;
}();

Error bad_desired(const std::string& why) {
  return Error("ConvertLayout: " + why)
      .expected("desired layouts as {\"op name\": [\"layout or default\", ...]}, e.g. {\"nn.conv2d\": [\"NHWC\", \"default\"]}");
}

/// Every op named is registered and chooses its layouts, every layout parses.
void check_desired(const DesiredLayouts& desired) {
  for (const auto& [name, layouts] : desired) {
    const OpDef* def = OpRegistry::global().find(name);
    if (!def) throw bad_desired("no op named '" + name + "'");
    if (!def->convert_layout) throw bad_desired("op " + name + " does not choose its layouts (it has no convert_layout hook)");
    if (layouts.empty()) throw bad_desired("no layout given for " + name);
    for (const std::string& l : layouts) {
      if (l != "default") parse_layout(l, "ConvertLayout: the desired layout of " + name);
    }
  }
}

}  // namespace

DesiredLayouts parse_desired_layouts(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw bad_desired(std::string("the desired layouts are not JSON: ") + e.what());
  }
  if (!j.is_object()) throw bad_desired("the desired layouts are not a JSON object");
  DesiredLayouts out;
  for (const auto& [name, layouts] : j.items()) {
    if (!layouts.is_array()) throw bad_desired("the layouts of " + name + " are not a list");
    for (const auto& l : layouts) {
      if (!l.is_string()) throw bad_desired("a layout of " + name + " is not a string: " + l.dump());
      out[name].push_back(l.get<std::string>());
    }
    if (layouts.empty()) throw bad_desired("no layout given for " + name);
  }
  return out;
}

Function convert_layout(const Function& fn, const DesiredLayouts& desired, const std::vector<int64_t>& skip_layers) {
  check_desired(desired);
  for (int64_t layer : skip_layers) {
    if (layer < 0) {
      throw Error("ConvertLayout: skip layer " + std::to_string(layer) + " is not a layer number")
          .expected("layer numbers 0, 1, ... (the layout layers in program order)");
    }
  }
  std::set<int64_t> skipped(skip_layers.begin(), skip_layers.end());
  int64_t layer = 0;  // the rewrite meets the calls in program order
  auto rule = [&](const Call& ref) -> Expr {
    const OpDef& def = *ref->op.as<OpNode>()->def;
    auto it = desired.find(def.name);
    if (it == desired.end()) return Expr();
    // Relay's LayoutConfig.check_skip, which conv2d's and deformable_conv2d's convert hooks call.
    if (def.is_layout_layer && skipped.count(layer++)) return Expr();
    return def.convert_layout(ref, it->second);
  };
  return layout_rewrite::rewrite_layouts(fn, rule, "ConvertLayout");
}

Pass ConvertLayout(DesiredLayouts desired, std::vector<int64_t> skip_layers) {
  return create_function_pass({"ConvertLayout", 3, {"InferType"}},
                              [desired, skip_layers](Function fn, const IRModule&, const PassContext&) {
                                return convert_layout(fn, desired, skip_layers);
                              });
}

Pass ConvertLayout() {
  return create_function_pass(
      {"ConvertLayout", 3, {"InferType"}}, [](Function fn, const IRModule&, const PassContext& ctx) {
        return convert_layout(fn, parse_desired_layouts(ctx.get_config(kDesiredLayoutsKey).as_string()),
                              ctx.get_config(kSkipLayersKey).as_int_list());
      });
}

}  // namespace weft
