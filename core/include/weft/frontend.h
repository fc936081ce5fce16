// Frontends: readers of models in other formats (ONNX, ...), chosen by file
// suffix. Frontend plugins register them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "weft/attrs.h"
#include "weft/module.h"
#include "weft/registry.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct FrontendDef {
  std::string name;
  std::string description;
  std::vector<std::string> extensions;  // ".onnx", with the dot
  AttrSchema options;
  /// Reads a file, with options normalized against `options`.
  std::function<IRModule(const std::string& path, const Attrs& options)> import_file;
  std::string plugin;
};

class FrontendRegistry : public NamedRegistry<FrontendDef> {
 public:
  FrontendRegistry() : NamedRegistry("frontend") {}
  static FrontendRegistry& global();
};

}  // namespace weft

#pragma GCC visibility pop
