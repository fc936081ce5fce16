// Choosing among the implementations oneDNN offers for one convolution
// (direct with the forward_inference or forward_training propagation kind,
// Winograd for 3x3 stride-1 ones, which convolution_auto never picks at
// batch 1): each candidate runs a few times at build on the layer's real
// shapes, as its step would at launch (with the reorders around it), and the
// fastest whose output agrees with the first candidate's is kept. The choice
// is recorded per layer and CPU (cpu_identity.h) in a DiskCache, so a later build does no
// timing.
#pragma once

#include <dnnl.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <weft/plugin.hpp>

namespace onednn_target {

/// The target options that steer the choice.
struct TuningOptions {
  bool tune = true;  // time the candidates; false: the first one
  int runs = 3;      // timed runs per candidate, of which the median counts
  bool direct = true, winograd = true;  // the algorithms considered
  weft::sdk::DiskCache cache{"", "onednn-choice"};
  bool verbose = false;  // report each choice on stderr
};

/// One implementation of a layer: `label` names it in the cache and reports
/// ("direct forward_inference brgconv:avx512_core src acdb wei Acdb16a dst acdb").
struct Candidate {
  std::string label;
  dnnl::primitive_desc_base pd;
};

/// What a trial run of a convolution reads beside its primitive descriptor.
struct TrialData {
  dnnl::memory::desc src, weights, dst;  // the tensors' own layouts, as the step reads and writes them
  const float* constant_weights = nullptr;  // the bound weight in its own layout; null: a run-time one
  const std::vector<float>* bias = nullptr;
  std::vector<std::pair<int, dnnl::memory::desc>> binary_operands;  // post-op arguments
  bool sum = false;  // a sum post-op: the dst holds the addend before each run
};

/// The index of the candidate to run: the one labelled `cached` (what the
/// cache holds for `key`) where there is one, else the fastest that agrees with candidates[0] (then recorded);
/// candidates[0] without timing where tuning is off or there is one
/// candidate. `layer` names the layer in the verbose report.
size_t choose_candidate(const dnnl::engine& engine, const std::string& key, const std::string& layer,
                        const std::vector<Candidate>& candidates, const TrialData& data, const TuningOptions& options,
                        const std::optional<std::string>& cached);

/// Reorders a weight into the layout a primitive chose; through the plain
/// layout where oneDNN has no direct reorder (blocked into Winograd's).
void pack_weights(const dnnl::engine& engine, dnnl::stream& stream, dnnl::memory from, dnnl::memory to);

/// A memory desc's layout in oneDNN's letters: "abcd" plain, "acdb" channels
/// last, "Acdb16a" blocked by 16 output channels.
std::string layout_name(const dnnl::memory::desc& desc);

/// A memory desc as text for a cache key: dims, then the layout.
std::string desc_key(const dnnl::memory::desc& desc);

}  // namespace onednn_target
