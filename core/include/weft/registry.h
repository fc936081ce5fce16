// A name -> definition registry that can ask a resolver (the plugin loader) to
// load whatever provides a name it does not know yet. The model, initializer,
// target and frontend registries are instances of it; ops and passes have
// registries of their own (op.h, pass.h) with the same resolver contract.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"

namespace weft {

/// Def must have `std::string name` and `std::string plugin` members.
template <typename Def>
class NamedRegistry {
 public:
  /// `kind` names what is registered, for messages: "model", "target", ...
  explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}

  /// Registers a definition; a taken name is a weft::Error naming who has it.
  const Def& add(Def def) {
    std::lock_guard lock(mutex_);
    if (auto it = defs_.find(def.name); it != defs_.end()) {
      throw Error(kind_ + " '" + def.name + "' is already registered" +
                  (it->second->plugin.empty() ? std::string() : " by plugin '" + it->second->plugin + "'"));
    }
    auto owned = std::make_unique<Def>(std::move(def));
    const Def& ref = *owned;
    defs_.emplace(ref.name, std::move(owned));
    return ref;
  }

  /// The definition named `name`, asking the resolver on a miss; nullptr if
  /// nobody provides it. The resolver throws weft::Error when the plugin that
  /// provides the name fails to load.
  const Def* find(std::string_view name) {
    if (const Def* def = find_loaded(name)) return def;
    Resolver resolver;
    {
      std::lock_guard lock(mutex_);
      resolver = resolver_;
    }
    if (!resolver || !resolver(name)) return nullptr;
    return find_loaded(name);
  }

  /// Like find, but an unknown name is a weft::Error.
  const Def& get(std::string_view name) {
    if (const Def* def = find(name)) return *def;
    throw Error("unknown " + kind_ + " '" + std::string(name) + "'")
        .note("no loaded plugin registers it and no plugin manifest declares it; `weft plugins` lists them");
  }

  /// Only what is registered now; loads nothing.
  const Def* find_loaded(std::string_view name) const {
    std::lock_guard lock(mutex_);
    auto it = defs_.find(name);
    return it == defs_.end() ? nullptr : it->second.get();
  }

  /// Everything registered now, by name.
  std::vector<const Def*> list() const {
    std::lock_guard lock(mutex_);
    std::vector<const Def*> out;
    for (auto& [name, def] : defs_) out.push_back(def.get());
    return out;
  }

  /// Drops a definition (tests, and a plugin whose load is rolled back).
  void remove(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (auto it = defs_.find(name); it != defs_.end()) defs_.erase(it);
  }

  /// Called with an unknown name; returns true if it registered it.
  using Resolver = std::function<bool(std::string_view name)>;
  void set_resolver(Resolver resolver) {
    std::lock_guard lock(mutex_);
    resolver_ = std::move(resolver);
  }

 private:
  std::string kind_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Def>, std::less<>> defs_;
  Resolver resolver_;
};

}  // namespace weft
