// The operator registry.
#include "weft/op.h"

#include "weft/error.h"

namespace weft {

std::string_view op_pattern_name(OpPattern p) {
  switch (p) {
    case OpPattern::kElemWise: return "elemwise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kCommReduce: return "comm_reduce";
    case OpPattern::kOutEWiseFusable: return "out_elemwise_fusable";
    case OpPattern::kTuple: return "tuple";
    case OpPattern::kOpaque: return "opaque";
  }
  return "?";
}

const Op& OpDef::expr() const {
  WEFT_ICHECK(expr_.defined(), "op '" + name + "' was not registered through OpRegistry::add");
  return expr_;
}

OpRegistry& OpRegistry::global() {
  // Leaked on purpose: Op nodes held by other statics point at its definitions.
  static OpRegistry* registry = new OpRegistry();
  return *registry;
}

const OpDef& OpRegistry::add(OpDef def) {
  if (def.name.empty()) throw Error("an op needs a name");
  if (!def.relation) throw Error("op has no type relation").op(def.name).expected("a TypeRelation");
  std::lock_guard lock(mu_);
  if (auto it = ops_.find(def.name); it != ops_.end()) {
    const std::string& owner = it->second->plugin;
    throw Error("op is already registered" + (owner.empty() ? std::string(" in-process") : " by plugin '" + owner + "'") +
                (def.plugin.empty() ? std::string() : "; plugin '" + def.plugin + "' registers it again"))
        .op(def.name);
  }
  auto owned = std::make_unique<OpDef>(std::move(def));
  owned->expr_ = make_ref<OpNode>(owned.get());
  const OpDef& ref = *owned;
  ops_.emplace(ref.name, std::move(owned));
  return ref;
}

const OpDef* OpRegistry::find(std::string_view name) {
  if (const OpDef* def = find_loaded(name)) return def;
  // Not under the lock: the resolver loads a plugin, which calls add().
  if (resolver_ && resolver_(name)) return find_loaded(name);
  return nullptr;
}

const OpDef& OpRegistry::get(std::string_view name) {
  if (const OpDef* def = find(name)) return *def;
  throw Error("unknown operator '" + std::string(name) + "'")
      .op(std::string(name))
      .note("no registered op or plugin manifest provides it");
}

const OpDef* OpRegistry::find_loaded(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<const OpDef*> OpRegistry::list() const {
  std::lock_guard lock(mu_);
  std::vector<const OpDef*> out;
  out.reserve(ops_.size());
  for (const auto& [name, def] : ops_) out.push_back(def.get());
  return out;
}

void OpRegistry::remove(std::string_view name) {
  std::lock_guard lock(mu_);
  auto it = ops_.find(name);
  if (it == ops_.end()) return;
  // Op nodes may still point at the definition: keep it alive, unlisted.
  retired_.push_back(std::move(it->second));
  ops_.erase(it);
}

}  // namespace weft
