// Internal: registration. The registrar a plugin's init receives stages what
// it registers; everything is committed to the registries only when init
// succeeds and everything the manifest declares was registered, so a failing
// plugin leaves nothing behind.
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
#include "weft/plugin_loader.h"
#include "weft/plugin_manifest.h"
#include "weft/target.h"

struct weft_registrar_s {
  explicit weft_registrar_s(const weft::PluginManifest& m) : manifest(m) {}

  const weft::PluginManifest& manifest;
  bool open = true;  // registration is allowed only while init runs

  std::vector<weft::OpDef> ops;
  std::vector<weft::ModelDef> models;
  std::vector<weft::InitializerDef> initializers;
  std::vector<weft::PassDef> passes;
  std::vector<weft::TargetDef> targets;
  std::vector<weft::FrontendDef> frontends;

  /// Names registered so far, by ProvidedKind.
  weft::PerProvidedKind<std::vector<std::string>> names;
};

namespace weft::plugin_host {

/// Runs the plugin's init with a fresh registrar, then checks that everything
/// its manifest declares was registered and no name is taken in any registry,
/// and adds all of it; returns the names registered, by kind. weft::Error
/// naming the plugin otherwise, with nothing registered.
weft::PerProvidedKind<std::vector<std::string>> register_plugin(const weft::PluginRecord& record,
                                                               const weft_plugin_descriptor_t& descriptor);

}  // namespace weft::plugin_host
