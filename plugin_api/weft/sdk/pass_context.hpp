// weft plugin SDK: the PassContext a pass runs under (ABI 1.6), as a
// non-owning view of the host's. Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/ir.hpp>

#include <string>
#include <vector>

namespace weft::sdk {

/// What the caller of a pass configured: opt level, required and disabled
/// passes, config values, and the statistics table it reads afterwards. A
/// view of the host's context, valid only while the pass that received it
/// runs (PassBuilder::run with a two-argument function).
class PassContext {
 public:
  explicit PassContext(const weft_pass_context_t* context) : context_(context) {}

  int opt_level() const {
    int level = 0;
    check(host().pass_context_opt_level(context_, &level));
    return level;
  }
  std::vector<std::string> required_passes() const { return names(WEFT_PASS_LIST_REQUIRED); }
  std::vector<std::string> disabled_passes() const { return names(WEFT_PASS_LIST_DISABLED); }
  /// Whether a sequence under this context runs the pass `name` of `opt_level`;
  /// a composite pass gates its members by it, as Relay's Sequential does.
  bool pass_enabled(const std::string& name, int opt_level) const {
    int enabled = 0;
    check(host().pass_context_pass_enabled(context_, name.c_str(), opt_level, &enabled));
    return enabled != 0;
  }
  /// The value set for a registered config key, or its default; Error
  /// (NOT_FOUND) for a key nobody registered.
  Value config(const std::string& key) const {
    weft_attr_value_t* out = nullptr;
    check(host().pass_context_get_config(context_, key.c_str(), &out));
    return Handle<weft_attr_value_t>::adopt(out);
  }
  /// Adds delta to the counter `key` of pass `pass` (`weft opt --stats`).
  void add_statistic(const std::string& pass, const std::string& key, int64_t delta) const {
    check(host().pass_context_add_statistic(context_, pass.c_str(), key.c_str(), delta));
  }
  /// The registered pass `name` run on `module` under this context, ungated:
  /// the caller's instruments see it and its statistics reach the caller.
  Module run_pass(const Module& module, const std::string& name) const {
    weft_module_t* out = nullptr;
    check(host().module_run_pass_in_context(module.get(), name.c_str(), context_, &out));
    return Handle<weft_module_t>::adopt(out);
  }

  const weft_pass_context_t* get() const { return context_; }

 private:
  std::vector<std::string> names(weft_pass_list_t list) const {
    weft_attr_value_t* out = nullptr;
    check(host().pass_context_passes(context_, list, &out));
    std::vector<std::string> result;
    for (const Value& v : Value(Handle<weft_attr_value_t>::adopt(out)).as_list()) result.push_back(v.as_string());
    return result;
  }

  const weft_pass_context_t* context_;
};

}  // namespace weft::sdk
