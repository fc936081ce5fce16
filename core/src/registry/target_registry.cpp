// The process-wide target registry.
#include "weft/target.h"

namespace weft {

TargetRegistry& TargetRegistry::global() {
  // Leaked on purpose: definitions call into plugins, which stay loaded until exit.
  static auto* registry = new TargetRegistry();
  return *registry;
}

}  // namespace weft
