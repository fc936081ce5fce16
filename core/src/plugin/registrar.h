// Internal: the registrar a plugin's init receives. Registrations are staged
// here and committed to the registries only when init succeeds and everything
// the manifest declares was registered, so a failing plugin leaves nothing
// behind.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "handles.h"
#include "weft/frontend.h"
#include "weft/initializer.h"
#include "weft/model.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/plugin_manifest.h"
#include "weft/target.h"

struct weft_registrar_s {
  explicit weft_registrar_s(const weft::PluginManifest& m) : manifest(m) {}

  const weft::PluginManifest& manifest;
  bool open = true;  // registration is allowed only while init runs

  struct StagedPass {
    std::string name;
    weft::PassInfo info;
    weft::Pass::ModuleFn fn;
  };
  std::vector<weft::OpDef> ops;
  std::vector<weft::ModelDef> models;
  std::vector<weft::InitializerDef> initializers;
  std::vector<StagedPass> passes;
  std::vector<weft::TargetDef> targets;
  std::vector<weft::FrontendDef> frontends;

  /// Names registered so far, by ProvidedKind.
  std::array<std::vector<std::string>, 6> names;
};

namespace weft::plugin_host {

/// Checks that everything the manifest declares was registered and no name is
/// taken in any registry, then adds all staged definitions. weft::Error (no
/// partial registration) otherwise.
void commit_registrations(weft_registrar_s& registrar);

}  // namespace weft::plugin_host
