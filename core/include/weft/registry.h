// The one registry template: definitions by name, asking a resolver (the
// plugin loader) to load whatever provides a name it does not know yet. The
// op, pass, model, initializer, target and frontend registries are instances.
//
// Semantics, the same for every kind:
// - add() owns the definition until exit: a removed one is unlisted but kept
//   alive, because handles to it (Op nodes, `const Def*`) may still exist.
// - The resolver is set and read under the lock, and called outside it (it
//   loads a plugin, which calls add()).
// - Thread-safe: every member may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Def must have `std::string name` and `std::string plugin` members.
template <typename Def>
class NamedRegistry {
 public:
  /// `kind` names what is registered, for messages: "op", "model", ...
  explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}
  virtual ~NamedRegistry() = default;
  NamedRegistry(const NamedRegistry&) = delete;
  NamedRegistry& operator=(const NamedRegistry&) = delete;

  /// Registers a definition. weft::Error if it has no name, check() refuses
  /// it, or the name is taken (naming who has it).
  const Def& add(Def def) {
    if (def.name.empty()) throw Error("a " + kind_ + " needs a name");
    check(def);
    std::lock_guard lock(mutex_);
    if (auto it = defs_.find(def.name); it != defs_.end()) {
      const std::string& owner = it->second->plugin;
      throw located(Error(kind_ + " '" + def.name + "' is already registered" +
                          (owner.empty() ? std::string(" in-process") : " by plugin '" + owner + "'") +
                          (def.plugin.empty() ? std::string() : "; plugin '" + def.plugin + "' registers it again")),
                    def.name);
    }
    auto owned = std::make_unique<Def>(std::move(def));
    adopted(*owned);
    const Def& ref = *owned;
    defs_.emplace(ref.name, std::move(owned));
    return ref;
  }

  /// The definition named `name`, asking the resolver on a miss; nullptr if
  /// nobody provides it. The resolver throws weft::Error when the plugin that
  /// provides the name fails to load.
  const Def* find(std::string_view name) {
    if (const Def* def = find_loaded(name)) return def;
    Resolver asked = resolver();
    if (!asked || !asked(name)) return nullptr;
    return find_loaded(name);
  }

  /// Like find, but an unknown name is a weft::Error.
  const Def& get(std::string_view name) {
    if (const Def* def = find(name)) return *def;
    throw unknown(name);
  }

  /// Only what is registered now; loads nothing.
  const Def* find_loaded(std::string_view name) const {
    std::lock_guard lock(mutex_);
    auto it = defs_.find(name);
    return it == defs_.end() ? nullptr : it->second.get();
  }
  bool contains(std::string_view name) const { return find_loaded(name) != nullptr; }

  /// Everything registered now, by name.
  std::vector<const Def*> list() const {
    std::lock_guard lock(mutex_);
    std::vector<const Def*> out;
    out.reserve(defs_.size());
    for (const auto& [name, def] : defs_) out.push_back(def.get());
    return out;
  }
  /// The names registered now, sorted.
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    out.reserve(defs_.size());
    for (const auto& [name, def] : defs_) out.push_back(name);
    return out;
  }

  /// Unlists a definition (tests, and a plugin whose load is rolled back); it
  /// stays alive, since handles to it may still exist.
  void remove(std::string_view name) {
    std::lock_guard lock(mutex_);
    auto it = defs_.find(name);
    if (it == defs_.end()) return;
    retired_.push_back(std::move(it->second));
    defs_.erase(it);
  }

  /// Called with an unknown name; returns true if it registered it.
  using Resolver = std::function<bool(std::string_view name)>;
  void set_resolver(Resolver resolver) {
    std::lock_guard lock(mutex_);
    resolver_ = std::move(resolver);
  }
  /// The resolver in use (a copy, so a test can put it back after replacing it).
  Resolver resolver() const {
    std::lock_guard lock(mutex_);
    return resolver_;
  }

 protected:
  const std::string& kind() const { return kind_; }
  /// Refuses an incomplete definition with a weft::Error (called unlocked).
  virtual void check(const Def&) const {}
  /// Runs once on the owned definition, under the lock: it must not call back
  /// into the registry.
  virtual void adopted(Def&) {}
  /// `error` about the definition `name`, with what locates it (ops: the op).
  virtual Error located(Error error, std::string_view) const { return error; }
  /// The error for a name nobody provides.
  virtual Error unknown(std::string_view name) const {
    return Error("unknown " + kind_ + " '" + std::string(name) + "'")
        .note("no loaded plugin registers it and no plugin manifest declares it; `weft plugins` lists them")
        .status(StatusCode::kNotFound);
  }

 private:
  std::string kind_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Def>, std::less<>> defs_;
  std::vector<std::unique_ptr<Def>> retired_;
  Resolver resolver_;
};

}  // namespace weft

#pragma GCC visibility pop
