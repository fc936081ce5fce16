// Model names as users write them: `resnet-18`, `vgg-16-bn`, `squeezenet-1.1`,
// `mobilenet`, or `NAME:key=value,...` (`resnet:num_layers=20,image_shape=3x32x32`),
// resolved against the families the model plugins register. How a family's
// named variants read (`-18` sets num_layers, `-bn` sets batch_norm) is data
// in its registration (ModelVariant), not a table here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "weft/attrs.h"
#include "weft/expr.h"
#include "weft/model.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// A model family and every one of its parameters, normalized against its
/// schema (defaults filled).
struct ModelSpec {
  std::string family;
  Attrs params;
};

/// Parses `FAMILY`, `FAMILY-VARIANT` or either followed by `:key=value,...`.
/// Values are read as the parameter's type: ints, floats, bools as true/false,
/// tuples as `3x224x224`, strings and dtypes as written. weft::Error for an
/// unknown family (listing the known ones), a variant the family does not
/// have (listing its variants), an unknown or repeated argument, a malformed
/// value, a missing required argument (naming it) or one the schema rejects.
/// Loads the family's plugin.
ModelSpec parse_model_spec(std::string_view text);

/// Builds the function a spec names.
Function build_model(const ModelSpec& spec);

/// Every model family: those registered and those plugin manifests declare,
/// sorted.
std::vector<std::string> known_model_families();

/// The spelling of variant `v` of `family`: "resnet-{num_layers}".
std::string variant_name(std::string_view family, const ModelVariant& v);

}  // namespace weft

#pragma GCC visibility pop
