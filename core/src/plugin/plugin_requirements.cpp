#include "plugin_requirements.h"

#include <map>
#include <mutex>
#include <set>

#include "host_tables.h"

namespace weft::plugin_host {
namespace {

struct Requirements {
  std::set<std::string> allowed;  // the plugin and those it requires
  std::string manifest;
};

std::mutex& requirements_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, Requirements>& requirements() {
  static std::map<std::string, Requirements> table;
  return table;
}

thread_local const PluginCallScope* innermost = nullptr;

}  // namespace

void declare_requirements(const PluginManifest& manifest) {
  Requirements r;
  r.allowed.insert(manifest.name);
  r.allowed.insert(manifest.requires_.begin(), manifest.requires_.end());
  r.manifest = manifest.path.string();
  std::lock_guard<std::mutex> lock(requirements_mutex());
  requirements()[manifest.name] = std::move(r);
}

PluginCallScope::PluginCallScope(const std::string& plugin, std::string during)
    : outer_(innermost), plugin_(plugin), during_(std::move(during)) {
  innermost = this;
}

PluginCallScope::~PluginCallScope() { innermost = outer_; }

void check_op_use(const OpDef& op) {
  const PluginCallScope* scope = innermost;
  if (!scope || op.plugin.empty() || op.plugin == scope->plugin_) return;
  std::lock_guard<std::mutex> lock(requirements_mutex());
  auto found = requirements().find(scope->plugin_);
  if (found == requirements().end() || found->second.allowed.count(op.plugin)) return;
  throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                    "plugin '" + scope->plugin_ + "' builds a call of op '" + op.name + "' in " + scope->during_ +
                        ", but that op comes from plugin '" + op.plugin + "', which its manifest does not require (add '" +
                        op.plugin + "' to requires: in " + found->second.manifest + ")"};
}

}  // namespace weft::plugin_host
