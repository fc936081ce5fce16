// The process-wide frontend registry.
#include "weft/frontend.h"

namespace weft {

FrontendRegistry& FrontendRegistry::global() {
  // Leaked on purpose: definitions call into plugins, which stay loaded until exit.
  static auto* registry = new FrontendRegistry();
  return *registry;
}

}  // namespace weft
