// Passes, Sequential and the PassContext they run under: the scope stack, the
// gating rules and the typed config keys.
#include "weft/pass.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <utility>

#include "weft/error.h"

namespace weft {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The contexts in scope on this thread, innermost last. A deque, because
// current() hands out references that must survive pushes of inner scopes.
std::deque<PassContext>& scope_stack() {
  thread_local std::deque<PassContext> stack;
  return stack;
}

struct ConfigKey {
  AttrType type;
  AttrValue default_value;
};

struct ConfigRegistry {
  std::mutex mutex;
  std::map<std::string, ConfigKey> keys;
};

ConfigRegistry& config_registry() {
  static ConfigRegistry registry;
  return registry;
}

std::optional<AttrValue> fit(const AttrValue& value, AttrType type) {
  if (type == AttrType::kAny || value.type() == type) return value;
  return value.coerce(type);
}

std::string key_list(const std::map<std::string, ConfigKey>& keys) {
  if (keys.empty()) return "none is registered";
  std::string out;
  for (const auto& [name, key] : keys) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

bool has_attr(const Function& fn, std::string_view name) {
  if (!fn->attrs) return false;
  const AttrValue* v = fn->attrs->find(name);
  if (!v) return false;
  switch (v->type()) {
    case AttrType::kInt: return v->as_int() != 0;
    case AttrType::kBool: return v->as_bool();
    case AttrType::kString: return !v->as_string().empty();
    default: return !v->is_none();
  }
}

// ---- Pass --------------------------------------------------------------------

Pass::Pass(PassInfo info, ModuleFn fn) : info_(std::move(info)), fn_(std::move(fn)) {
  if (!fn_) throw Error("pass '" + info_.name + "' has no function to run");
}

IRModule Pass::operator()(IRModule mod) const { return (*this)(std::move(mod), PassContext::current()); }

IRModule Pass::operator()(IRModule mod, const PassContext& ctx) const {
  if (!defined()) throw Error("running an undefined pass (a default-constructed Pass)");
  // Every instrument is asked (as Relay's `&=`), unless the context requires the pass.
  bool run = true;
  if (!contains(ctx.required_passes, info_.name)) {
    for (const auto& inst : ctx.instruments) run = inst->should_run(mod, info_) && run;
  }
  if (!run) return mod;
  const auto& instruments = ctx.instruments;
  // For run_after_pass_failed, and only kept where an instrument may ask for it: holding the
  // module a pass replaces would keep every constant it folds alive until the pass returns (for
  // a Sequential, until the whole pipeline does).
  const IRModule before = instruments.empty() ? IRModule() : mod;
  size_t begun = 0;  // instruments whose run_before_pass returned
  size_t ended = 0;  // instruments whose run_after_pass was called (returned or threw)
  try {
    for (; begun < instruments.size(); ++begun) instruments[begun]->run_before_pass(mod, info_);
    IRModule out = fn_(std::move(mod), ctx);
    while (ended < begun) {
      ++ended;
      instruments[ended - 1]->run_after_pass(out, info_);
    }
    return out;
  } catch (const std::exception& e) {
    for (size_t i = ended; i < begun; ++i) {
      try {
        instruments[i]->run_after_pass_failed(before, info_, e);
      } catch (...) {
        // Documented not to throw; the pass's own failure is what the caller needs.
      }
    }
    throw;
  }
}

Pass create_module_pass(PassInfo info, Pass::ModuleFn fn) { return Pass(std::move(info), std::move(fn)); }

Pass create_function_pass(PassInfo info,
                          std::function<Function(Function, const IRModule&, const PassContext&)> fn) {
  std::string name = info.name;
  return Pass(std::move(info), [fn = std::move(fn), name](IRModule mod, const PassContext& ctx) {
    IRModule out = mod;
    for (const auto& [gv, f] : mod.functions()) {
      if (has_attr(f, "Primitive") || has_attr(f, "Extern") || has_attr(f, "SkipOptimization") ||
          has_attr(f, "Compiler"))
        continue;
      Function updated = fn(f, mod, ctx);
      if (!updated) throw Error("function pass " + name + " returned no function for @" + gv->name);
      out.add(gv, std::move(updated));
    }
    return out;
  });
}

Pass sequential(std::vector<Pass> passes, std::string name, int opt_level) {
  for (size_t i = 0; i < passes.size(); ++i)
    if (!passes[i].defined()) throw Error("pass " + std::to_string(i) + " of sequential '" + name + "' is undefined");
  PassInfo info{std::move(name), opt_level, {}};
  return Pass(std::move(info), [passes = std::move(passes)](IRModule mod, const PassContext& ctx) {
    for (const Pass& pass : passes) {
      if (!ctx.pass_enabled(pass.info())) continue;
      for (const std::string& req : pass.info().required) {
        Pass required;
        try {
          required = PassRegistry::global().create(req);
        } catch (Error& e) {
          e.note("required by pass " + pass.info().name);
          throw;
        }
        mod = required(std::move(mod), ctx);
      }
      mod = pass(std::move(mod), ctx);
    }
    return mod;
  });
}

// ---- PassContext ---------------------------------------------------------------

struct PassContext::Statistics {
  std::mutex mutex;
  std::map<std::string, std::map<std::string, int64_t>> counters;
};

PassContext::PassContext() : statistics_(std::make_shared<Statistics>()) {}

void PassContext::add_statistic(const std::string& pass, const std::string& key, int64_t delta) const {
  std::lock_guard lock(statistics_->mutex);
  statistics_->counters[pass][key] += delta;
}

std::map<std::string, std::map<std::string, int64_t>> PassContext::statistics() const {
  std::lock_guard lock(statistics_->mutex);
  return statistics_->counters;
}

const PassContext& PassContext::current() {
  auto& stack = scope_stack();
  if (!stack.empty()) return stack.back();
  thread_local const PassContext default_context;
  return default_context;
}

PassContext::Scope::Scope(PassContext ctx) {
  auto& stack = scope_stack();
  stack.push_back(std::move(ctx));
  auto& instruments = stack.back().instruments;
  size_t entered = 0;
  try {
    for (; entered < instruments.size(); ++entered) instruments[entered]->enter_context();
  } catch (...) {
    // Leave no half-entered scope behind: undo what was entered, then report.
    for (size_t i = entered; i-- > 0;) instruments[i]->exit_context();
    stack.pop_back();
    throw;
  }
}

PassContext::Scope::~Scope() {
  auto& stack = scope_stack();
  for (const auto& inst : stack.back().instruments) {
    try {
      inst->exit_context();
    } catch (...) {
      // A destructor cannot report; exit_context is documented not to throw.
    }
  }
  stack.pop_back();
}

bool PassContext::pass_enabled(const PassInfo& info) const {
  if (contains(disabled_passes, info.name)) return false;
  if (contains(required_passes, info.name)) return true;
  return info.opt_level <= opt_level;
}

void PassContext::register_config(const std::string& key, AttrType type, AttrValue default_value) {
  auto fitted = fit(default_value, type);
  if (!fitted && !default_value.is_none())
    throw Error("default " + default_value.str() + " of pass config '" + key + "' is not a " +
                std::string(attr_type_name(type)))
        .expected(std::string(attr_type_name(type)));
  auto& reg = config_registry();
  std::lock_guard lock(reg.mutex);
  auto it = reg.keys.find(key);
  if (it != reg.keys.end() && it->second.type != type)
    throw Error("pass config '" + key + "' is already registered as " +
                std::string(attr_type_name(it->second.type)) + ", not " + std::string(attr_type_name(type)));
  reg.keys[key] = ConfigKey{type, fitted ? *fitted : default_value};
}

std::map<std::string, AttrType> PassContext::registered_configs() {
  auto& reg = config_registry();
  std::lock_guard lock(reg.mutex);
  std::map<std::string, AttrType> out;
  for (const auto& [name, key] : reg.keys) out.emplace(name, key.type);
  return out;
}

PassContext& PassContext::set_config(const std::string& key, AttrValue value) {
  ConfigKey spec;
  {
    auto& reg = config_registry();
    std::lock_guard lock(reg.mutex);
    auto it = reg.keys.find(key);
    if (it == reg.keys.end())
      throw Error("unknown pass config '" + key + "'").expected("a registered key: " + key_list(reg.keys));
    spec = it->second;
  }
  auto fitted = fit(value, spec.type);
  if (!fitted)
    throw Error("pass config '" + key + "' set to " + value.str() + " (" + std::string(attr_type_name(value.type())) +
                ")")
        .expected(std::string(attr_type_name(spec.type)));
  config_[key] = std::move(*fitted);
  return *this;
}

AttrValue PassContext::get_config(const std::string& key) const {
  auto& reg = config_registry();
  std::lock_guard lock(reg.mutex);
  auto it = reg.keys.find(key);
  if (it == reg.keys.end())
    throw Error("unknown pass config '" + key + "'").expected("a registered key: " + key_list(reg.keys));
  if (auto set = config_.find(key); set != config_.end()) return set->second;
  return it->second.default_value;
}

}  // namespace weft
