// Model builders (resnet, mobilenet, ...): a parameter schema and a function
// from normalized parameters to a Relay Function. Model plugins register them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "weft/attrs.h"
#include "weft/expr.h"
#include "weft/registry.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// A named variant of a family, `<family>-<suffix>` on the command line: the
/// suffix is literal text with at most one `{param}` placeholder whose text
/// becomes that parameter's value, plus parameters the variant fixes
/// (`vgg-16-bn`: suffix "{num_layers}-bn", fixed batch_norm=true).
struct ModelVariant {
  std::string suffix;
  Attrs fixed;
  std::string doc;
};

struct ModelDef {
  std::string name;
  std::string description;
  AttrSchema params;
  /// Builds from parameters already normalized against `params`.
  std::function<Function(const Attrs& params)> build;
  std::string plugin;  // who registered it ("" for in-process definitions)
  std::vector<ModelVariant> variants;
  /// The initializer its workload uses (the reference's get_workload: xavier
  /// unless the model names another, as synthetic does with constant).
  std::string initializer = "xavier";
};

class ModelRegistry : public NamedRegistry<ModelDef> {
 public:
  ModelRegistry() : NamedRegistry("model") {}
  static ModelRegistry& global();
};

/// Builds model `name` (loading its plugin if needed) with `params` validated
/// and defaulted against its schema; weft::Error naming the model and the
/// parameter on a bad one.
Function build_model(std::string_view name, const Attrs& params = nullptr);

}  // namespace weft

#pragma GCC visibility pop
