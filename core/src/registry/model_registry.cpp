// The process-wide model registry and the checked way to build a model.
#include "weft/model.h"

namespace weft {

ModelRegistry& ModelRegistry::global() {
  // Leaked on purpose: definitions call into plugins, which stay loaded until exit.
  static auto* registry = new ModelRegistry();
  return *registry;
}

Function build_model(std::string_view name, const Attrs& params) {
  const ModelDef& def = ModelRegistry::global().get(name);
  // Schemas name the "op" in their errors; for a model that is the model's name.
  return def.build(def.params.normalize("model " + def.name, params));
}

}  // namespace weft
