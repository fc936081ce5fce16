// The host functions of plugin.h that read the PassContext a plugin's pass
// runs under (ABI 1.6). A context handle is the core PassContext itself,
// borrowed for the duration of the pass, so nothing is boxed or counted.
#include "host_tables.h"
#include "weft/pass.h"

namespace weft::plugin_host {

namespace {

const PassContext& context_of(const weft_pass_context_t* c) {
  if (!c) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "the pass context is NULL"};
  return *reinterpret_cast<const PassContext*>(c);
}

weft_status_t pass_context_opt_level(const weft_pass_context_t* c, int* out) {
  return guard([&] { *out_param(out, "out_level") = context_of(c).opt_level; });
}

weft_status_t pass_context_passes(const weft_pass_context_t* c, weft_pass_list_t list, weft_attr_value_t** out) {
  return guard([&] {
    const PassContext& ctx = context_of(c);
    if (list != WEFT_PASS_LIST_REQUIRED && list != WEFT_PASS_LIST_DISABLED)
      throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "pass list " + std::to_string(static_cast<int>(list)) +
                                                          " is neither WEFT_PASS_LIST_REQUIRED nor _DISABLED"};
    const auto& names = list == WEFT_PASS_LIST_REQUIRED ? ctx.required_passes : ctx.disabled_passes;
    *out_param(out, "out_names") = new_value_handle(AttrValue(std::vector<AttrValue>(names.begin(), names.end())));
  });
}

weft_status_t pass_context_pass_enabled(const weft_pass_context_t* c, const char* name, int opt_level, int* out) {
  return guard([&] {
    PassInfo info{require_string(name, "pass name"), opt_level, {}};
    *out_param(out, "out_enabled") = context_of(c).pass_enabled(info) ? 1 : 0;
  });
}

weft_status_t pass_context_get_config(const weft_pass_context_t* c, const char* key, weft_attr_value_t** out) {
  return guard([&] {
    const PassContext& ctx = context_of(c);
    std::string k = require_string(key, "config key");
    if (!PassContext::registered_configs().count(k)) {
      std::string known;
      for (const auto& [name, type] : PassContext::registered_configs()) known += (known.empty() ? "" : ", ") + name;
      throw StatusError{WEFT_STATUS_NOT_FOUND, "unknown pass config '" + k + "' (registered: " + known + ")"};
    }
    *out_param(out, "out_value") = new_value_handle(ctx.get_config(k));
  });
}

weft_status_t pass_context_add_statistic(const weft_pass_context_t* c, const char* pass, const char* key,
                                         int64_t delta) {
  return guard([&] {
    context_of(c).add_statistic(require_string(pass, "pass name"), require_string(key, "statistic key"), delta);
  });
}

weft_status_t module_run_pass_in_context(weft_module_t* m, const char* name, const weft_pass_context_t* c,
                                         weft_module_t** out) {
  return guard([&] {
    const PassContext& ctx = context_of(c);
    Pass pass = PassRegistry::global().create(require_string(name, "module_run_pass_in_context: name"));
    *out_param(out, "out_module") = new_module_handle(pass(module_of(m), ctx));
  });
}

}  // namespace

void fill_pass_context_api(weft_host_api_t& api) {
  api.pass_context_opt_level = pass_context_opt_level;
  api.pass_context_passes = pass_context_passes;
  api.pass_context_pass_enabled = pass_context_pass_enabled;
  api.pass_context_get_config = pass_context_get_config;
  api.pass_context_add_statistic = pass_context_add_statistic;
  api.module_run_pass_in_context = module_run_pass_in_context;
}

}  // namespace weft::plugin_host
