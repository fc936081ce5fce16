// The registry of passes by name, seeded with the core passes.
#include <utility>

#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"

namespace weft {

PassRegistry& PassRegistry::global() {
  // Built on first use with the core passes in it, so "InferType" & co. are
  // always there to be required by name.
  static PassRegistry& registry = *[] {
    auto* r = new PassRegistry();  // never destroyed: plugins' factories may outlive statics
    register_core_passes(*r);
    return r;
  }();
  return registry;
}

void PassRegistry::add(const std::string& name, Factory factory) {
  if (!factory) throw Error("pass '" + name + "' registered without a factory");
  std::lock_guard lock(mutex_);
  if (factories_.count(name)) throw Error("a pass named '" + name + "' is already registered");
  factories_.emplace(name, std::move(factory));
}

Pass PassRegistry::get(std::string_view name) {
  Factory factory;
  Resolver resolver;
  {
    std::lock_guard lock(mutex_);
    if (auto it = factories_.find(name); it != factories_.end()) factory = it->second;
    resolver = resolver_;
  }
  // The resolver (the plugin loader) registers through add(), so it runs unlocked.
  if (!factory && resolver && resolver(name)) {
    std::lock_guard lock(mutex_);
    if (auto it = factories_.find(name); it != factories_.end()) factory = it->second;
  }
  if (!factory) {
    std::string known;
    for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown pass '" + std::string(name) + "'").expected("a registered pass: " + known);
  }
  return factory();
}

bool PassRegistry::contains(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return factories_.find(name) != factories_.end();
}

std::vector<std::string> PassRegistry::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, factory] : factories_) out.push_back(name);
  return out;
}

void PassRegistry::set_resolver(Resolver r) {
  std::lock_guard lock(mutex_);
  resolver_ = std::move(r);
}

}  // namespace weft
