// A call oneDNN runs as one primitive of its own, with no post-ops: layer
// and local response normalization, prelu. Each mapping says which of the
// call's arguments the primitive reads as which of its arguments, and how
// to create its descriptor; group_kernel.cpp plans and runs it like any other
// primitive. Each throws sdk::Unsupported saying why a call does not map.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace onednn_target {

struct StandaloneSpec {
  std::string what;  // the primitive's name ("layer_normalization"), for summaries and refusals
  /// One per call argument the primitive reads: its DNNL_ARG_* and desc
  /// (an argument the primitive ignores, nn.layer_norm's gamma with
  /// scale=False, is not listed).
  struct Input {
    size_t arg;
    int dnnl_arg;
    dnnl::memory::desc desc;
  };
  std::vector<Input> inputs;
  dnnl::memory::desc dst;
  /// The primitive descriptor with `attr`; throws dnnl::error where oneDNN
  /// has no implementation.
  std::function<dnnl::primitive_desc_base(const dnnl::engine&, const dnnl::primitive_attr&)> make;
};

/// nn.layer_norm over the last axis, nn.lrn across channels (normalization_mapping.cpp).
std::optional<StandaloneSpec> normalization_spec(const weft::sdk::Expr& call);

/// nn.prelu, its alpha along the op's axis (prelu_mapping.cpp).
std::optional<StandaloneSpec> prelu_spec(const weft::sdk::Expr& call);

/// The first of the mappings above that takes `call`'s op, or nullopt.
inline std::optional<StandaloneSpec> standalone_spec(const weft::sdk::Expr& call) {
  if (std::optional<StandaloneSpec> spec = normalization_spec(call)) return spec;
  return prelu_spec(call);
}

}  // namespace onednn_target
