// Parameter initializers (xavier, constant, normal, ...). One instance fills
// every parameter of a workload in parameter order, so that a random
// initializer draws from a single stream seeded once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "weft/attrs.h"
#include "weft/registry.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Fills the CPU tensor `out` for the parameter called `name`.
using InitializerFill = std::function<void(std::string_view name, const Tensor& out)>;

struct InitializerDef {
  std::string name;
  std::string description;
  AttrSchema params;
  /// A fresh instance for one workload, from normalized params and a seed.
  std::function<InitializerFill(const Attrs& params, uint64_t seed)> create;
  std::string plugin;
};

class InitializerRegistry : public NamedRegistry<InitializerDef> {
 public:
  InitializerRegistry() : NamedRegistry("initializer") {}
  static InitializerRegistry& global();
};

/// An instance of initializer `name` (loading its plugin if needed) with
/// `params` validated and defaulted against its schema.
InitializerFill make_initializer(std::string_view name, uint64_t seed, const Attrs& params = nullptr);

}  // namespace weft

#pragma GCC visibility pop
