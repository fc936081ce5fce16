// The process-wide target registry.
#include "../targets/loops_target.h"
#include "../targets/ref_target.h"
#include "weft/target.h"

namespace weft {

TargetRegistry& TargetRegistry::global() {
  // Leaked on purpose: definitions call into plugins, which stay loaded until exit.
  static auto* registry = [] {
    auto* r = new TargetRegistry();
    r->add(targets::reference_target_def());
    r->add(targets::loops_target_def());
    return r;
  }();
  return *registry;
}

}  // namespace weft
