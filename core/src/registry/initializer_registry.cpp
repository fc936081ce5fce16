// The process-wide initializer registry and the checked way to make one.
#include "weft/initializer.h"

namespace weft {

InitializerRegistry& InitializerRegistry::global() {
  // Leaked on purpose: definitions call into plugins, which stay loaded until exit.
  static auto* registry = new InitializerRegistry();
  return *registry;
}

InitializerFill make_initializer(std::string_view name, uint64_t seed, const Attrs& params) {
  const InitializerDef& def = InitializerRegistry::global().get(name);
  return def.create(def.params.normalize("initializer " + def.name, params), seed);
}

}  // namespace weft
