// The registrar a plugin's init receives and the host functions of plugin.h
// that register through it: each checks the name against the manifest,
// stages the definition, and commit_registrations adds them all or none.
#include "registrar.h"

#include <algorithm>

#include "definitions.h"
#include "host_tables.h"
#include "plugin_catalog.h"
#include "plugin_requirements.h"

namespace weft::plugin_host {

namespace {

/// Checks the registrar is open and `name` is declared and not yet registered.
void claim(weft_registrar_t* r, ProvidedKind kind, const std::string& name) {
  if (!r) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "registrar is NULL"};
  if (!r->open) {
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "registration is only allowed inside the plugin's init"};
  }
  std::string key(provided_kind_key(kind));
  if (name.empty()) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string(provided_kind_name(kind)) + " name is empty"};
  const auto& declared = r->manifest.provided(kind);
  if (std::find(declared.begin(), declared.end(), name) == declared.end()) {
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                      "registers " + std::string(provided_kind_name(kind)) + " '" + name +
                          "', which its manifest does not declare (add it under provides." + key + " in " +
                          r->manifest.path.string() + ")"};
  }
  auto& names = r->names[static_cast<int>(kind)];
  if (std::find(names.begin(), names.end(), name) != names.end()) {
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                      "registers " + std::string(provided_kind_name(kind)) + " '" + name + "' twice"};
  }
}

/// Records a registration that succeeded.
void record(weft_registrar_t* r, ProvidedKind kind, const std::string& name) {
  r->names[static_cast<int>(kind)].push_back(name);
}

/// One host register_* function: read the descriptor, make the definition,
/// claim its name, stage it.
template <typename Desc, typename Def>
weft_status_t stage(weft_registrar_t* r, const Desc* desc, const char* what, ProvidedKind kind,
                    std::vector<Def> weft_registrar_s::*staged,
                    Def (*definition)(const Desc&, const std::string& plugin)) {
  return guard([&] {
    Desc d = read_struct(desc, what);
    if (!r) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "registrar is NULL"};
    Def def = definition(d, r->manifest.name);
    claim(r, kind, def.name);
    std::string name = def.name;
    (r->*staged).push_back(std::move(def));
    record(r, kind, name);
  });
}

weft_status_t register_op(weft_registrar_t* r, const weft_op_desc_t* desc) {
  return stage(r, desc, "weft_op_desc_t", ProvidedKind::kOp, &weft_registrar_s::ops, op_definition);
}
weft_status_t register_model(weft_registrar_t* r, const weft_model_desc_t* desc) {
  return stage(r, desc, "weft_model_desc_t", ProvidedKind::kModel, &weft_registrar_s::models, model_definition);
}
weft_status_t register_initializer(weft_registrar_t* r, const weft_initializer_desc_t* desc) {
  return stage(r, desc, "weft_initializer_desc_t", ProvidedKind::kInitializer, &weft_registrar_s::initializers,
               initializer_definition);
}
weft_status_t register_pass(weft_registrar_t* r, const weft_pass_desc_t* desc) {
  return stage(r, desc, "weft_pass_desc_t", ProvidedKind::kPass, &weft_registrar_s::passes, pass_definition);
}
/// The flat target descriptor of ABI 1.0-1.3 (raw memory, synchronous runs)
/// had no users and cannot express a GPU; targets register through the target
/// interface of ABI 1.4 instead.
weft_status_t register_target(weft_registrar_t*, const weft_target_desc_t* desc) {
  return guard([&] {
    std::string name = desc && desc->name ? std::string(" '") + desc->name + "'" : std::string();
    throw StatusError{WEFT_STATUS_UNSUPPORTED,
                      "target" + name + " uses register_target (weft_target_desc_t, ABI 1.0-1.3), which this weft "
                      "no longer accepts: targets register through the target interface of ABI 1.4 (docs/targets.md)"};
  });
}
weft_status_t register_target_interface(weft_registrar_t* r, const weft_target_interface_t* desc) {
  return stage(r, desc, "weft_target_interface_t", ProvidedKind::kTarget, &weft_registrar_s::targets,
               target_definition);
}
weft_status_t register_frontend(weft_registrar_t* r, const weft_frontend_desc_t* desc) {
  return stage(r, desc, "weft_frontend_desc_t", ProvidedKind::kFrontend, &weft_registrar_s::frontends,
               frontend_definition);
}

/// Checks that everything the manifest declares was registered and no name is
/// taken in any registry, then adds all staged definitions; weft::Error (no
/// partial registration) otherwise.
void commit_registrations(weft_registrar_s& r) {
  for (ProvidedKind kind : kAllProvidedKinds) {
    const auto& registered = r.names[static_cast<int>(kind)];
    std::vector<std::string> missing;
    for (const std::string& name : r.manifest.provided(kind)) {
      if (std::find(registered.begin(), registered.end(), name) == registered.end()) missing.push_back(name);
    }
    if (!missing.empty()) {
      std::string list;
      for (auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      throw Error("its manifest declares " + std::string(provided_kind_key(kind)) + " it did not register: " + list)
          .note("the manifest's provides." + std::string(provided_kind_key(kind)) + " must list exactly what the plugin registers");
    }
  }
  // Every name must be free before anything is added, so a refused plugin leaves nothing behind.
  auto check_free = [](ProvidedKind kind, const auto& registry, const auto& defs) {
    for (const auto& def : defs) {
      if (const auto* other = registry.find_loaded(def.name)) {
        throw Error(std::string(provided_kind_name(kind)) + " '" + def.name + "' is already registered" +
                    (other->plugin.empty() ? std::string() : " by plugin '" + other->plugin + "'"));
      }
    }
  };
  check_free(ProvidedKind::kOp, OpRegistry::global(), r.ops);
  check_free(ProvidedKind::kModel, ModelRegistry::global(), r.models);
  check_free(ProvidedKind::kInitializer, InitializerRegistry::global(), r.initializers);
  check_free(ProvidedKind::kPass, PassRegistry::global(), r.passes);
  check_free(ProvidedKind::kTarget, TargetRegistry::global(), r.targets);
  check_free(ProvidedKind::kFrontend, FrontendRegistry::global(), r.frontends);

  auto add_all = [](auto& registry, auto& defs) {
    for (auto& def : defs) registry.add(std::move(def));
  };
  add_all(OpRegistry::global(), r.ops);
  add_all(ModelRegistry::global(), r.models);
  add_all(InitializerRegistry::global(), r.initializers);
  add_all(PassRegistry::global(), r.passes);
  add_all(TargetRegistry::global(), r.targets);
  add_all(FrontendRegistry::global(), r.frontends);
}

}  // namespace

PerProvidedKind<std::vector<std::string>> register_plugin(const PluginRecord& record,
                                                         const weft_plugin_descriptor_t& descriptor) {
  weft_registrar_s registrar(*record.manifest);
  declare_requirements(*record.manifest);
  weft_status_t status = nullptr;
  try {
    status = descriptor.init(host_api(), &registrar);
  } catch (const std::exception& e) {
    throw plugin_error(record, std::string("init threw a C++ exception across the C boundary: ") + e.what());
  } catch (...) {
    throw plugin_error(record, "init threw an exception across the C boundary");
  }
  registrar.open = false;
  if (auto err = take_error(status)) throw plugin_error(record, "init failed: " + err->message());
  try {
    commit_registrations(registrar);
  } catch (const Error& e) {
    throw plugin_error(record, e.what());
  }
  return registrar.names;
}

void fill_registration_api(weft_host_api_t& api) {
  api.register_op = register_op;
  api.register_model = register_model;
  api.register_initializer = register_initializer;
  api.register_pass = register_pass;
  api.register_target = register_target;
  api.register_frontend = register_frontend;
  api.register_target_interface = register_target_interface;
}

}  // namespace weft::plugin_host
