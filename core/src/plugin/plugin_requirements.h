// A plugin's `requires:` enforced: the ops its callbacks build calls of
// (gradients, TE computes, model builders, passes, rewrites) must come from
// the plugin itself or from a plugin its manifest requires, so that loading
// it brings in everything it uses. A use of another plugin's op is an error
// naming both plugins and the manifest to fix.
#pragma once

#include <string>

#include "weft/op.h"
#include "weft/plugin_manifest.h"

namespace weft::plugin_host {

/// Records what `manifest`'s plugin may build on: itself and its requires.
void declare_requirements(const PluginManifest& manifest);

/// While alive, op calls built on this thread are checked against
/// `plugin`'s requirements; `during` names the callback for messages ("the
/// gradient of op acme.bias_gelu"). Scopes nest: the innermost one counts.
class PluginCallScope {
 public:
  PluginCallScope(const std::string& plugin, std::string during);
  ~PluginCallScope();
  PluginCallScope(const PluginCallScope&) = delete;
  PluginCallScope& operator=(const PluginCallScope&) = delete;

 private:
  const PluginCallScope* outer_;
  friend void check_op_use(const OpDef& op);
  std::string plugin_, during_;
};

/// Throws when the innermost scope's plugin may not build calls of `op`:
/// `op` comes from a plugin it does not require. Nothing outside a scope, or
/// for ops defined in-process.
void check_op_use(const OpDef& op);

}  // namespace weft::plugin_host
