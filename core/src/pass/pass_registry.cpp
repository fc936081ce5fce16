// The registry of passes by name, seeded with the core passes.
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

void PassRegistry::check(const PassDef& def) const {
  if (!def.create) throw Error("pass '" + def.name + "' registered without a factory");
}

Error PassRegistry::unknown(std::string_view name) const {
  std::string known;
  for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
  return Error("unknown pass '" + std::string(name) + "'").expected("a registered pass: " + known);
}

}  // namespace weft
