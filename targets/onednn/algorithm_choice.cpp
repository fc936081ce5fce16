// Timing a layer's candidate implementations at build (algorithm_choice.h).
#include "algorithm_choice.h"

#include <weft/plugin.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace onednn_target {

namespace {

using dnnl::memory;

/// How far a candidate's output may stray from the first candidate's, as the
/// largest difference over the largest magnitude of the first's output.
constexpr double kAgreement = 1e-5;

/// Deterministic values in [-1, 1): the same inputs for every candidate.
void fill(const memory& m, uint32_t seed) {
  float* data = static_cast<float*>(m.get_data_handle());
  const size_t n = m.get_desc().get_size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    data[i] = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.f;
  }
}

/// A tensor in its own layout and, where the primitive wants another, in that
/// one, with the reorder between them.
struct Placed {
  memory own, chosen;
  std::optional<dnnl::reorder> to_chosen, to_own;
};

/// `bound`: reordered once, by pack_weights, so no reorder is made here.
Placed place(const dnnl::engine& engine, const memory::desc& own, const memory::desc& chosen, bool dst,
             bool bound = false) {
  Placed p{memory(own, engine), memory(own, engine), std::nullopt, std::nullopt};
  if (own == chosen) {
    p.chosen = p.own;
    return p;
  }
  p.chosen = memory(chosen, engine);
  if (bound) return p;
  p.to_chosen.emplace(p.own, p.chosen);
  if (dst) p.to_own.emplace(p.chosen, p.own);
  return p;
}

/// One candidate's run: the median of `runs` timed runs (after one untimed),
/// each as its step runs at launch, and the output in its own layout.
struct Trial {
  double ms = 0;
  std::vector<float> output;
};

Trial run_trial(const dnnl::engine& engine, const Candidate& c, const TrialData& d, int runs) {
  const dnnl::primitive primitive(c.pd.get());
  dnnl::stream stream(engine);
  Placed src = place(engine, d.src, c.pd.src_desc(), false);
  fill(src.own, 1);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src.chosen}};
  // A bound weight is reordered once, at compile; a run-time one at each run.
  Placed weights = place(engine, d.weights, c.pd.weights_desc(), false, d.constant_weights != nullptr);
  if (d.constant_weights) {
    std::memcpy(weights.own.get_data_handle(), d.constant_weights, d.weights.get_size());
    pack_weights(engine, stream, weights.own, weights.chosen);
  } else {
    fill(weights.own, 2);
  }
  args.emplace(DNNL_ARG_WEIGHTS, weights.chosen);
  if (d.bias) {
    memory bias(c.pd.weights_desc(1), engine);
    std::memcpy(bias.get_data_handle(), d.bias->data(), d.bias->size() * sizeof(float));
    args.emplace(DNNL_ARG_BIAS, bias);
  }
  for (size_t i = 0; i < d.binary_operands.size(); ++i) {
    memory operand(d.binary_operands[i].second, engine);
    fill(operand, 3 + static_cast<uint32_t>(i));
    args.emplace(d.binary_operands[i].first, operand);
  }
  Placed dst = place(engine, d.dst, c.pd.dst_desc(), true);
  args.emplace(DNNL_ARG_DST, dst.chosen);
  memory addend(d.dst, engine);
  std::optional<dnnl::reorder> load_addend;  // as the step copies a residual into the dst
  if (d.sum) {
    fill(addend, 99);
    load_addend.emplace(addend, dst.chosen);
  }
  if (c.pd.scratchpad_desc().get_size()) args.emplace(DNNL_ARG_SCRATCHPAD, memory(c.pd.scratchpad_desc(), engine));
  std::vector<double> times;
  for (int r = 0; r <= runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (src.to_chosen) src.to_chosen->execute(stream, src.own, src.chosen);
    if (weights.to_chosen) weights.to_chosen->execute(stream, weights.own, weights.chosen);
    if (load_addend) load_addend->execute(stream, addend, dst.chosen);
    primitive.execute(stream, args);
    if (dst.to_own) dst.to_own->execute(stream, dst.chosen, dst.own);
    stream.wait();
    if (r) times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  const float* out = static_cast<const float*>(dst.own.get_data_handle());
  return {times[times.size() / 2], std::vector<float>(out, out + d.dst.get_size() / sizeof(float))};
}

/// The largest difference from `want` over its largest magnitude.
double disagreement(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::abs(static_cast<double>(want[i])));
  }
  if (std::isnan(diff)) return INFINITY;
  return scale > 0 ? diff / scale : diff;
}

char letter(int dim, bool upper) { return static_cast<char>((upper ? 'A' : 'a') + dim); }

}  // namespace

void pack_weights(const dnnl::engine& engine, dnnl::stream& stream, memory from, memory to) {
  if (from.get_desc() == to.get_desc()) {
    std::memcpy(to.get_data_handle(), from.get_data_handle(), from.get_desc().get_size());
    return;
  }
  std::optional<dnnl::reorder> direct;
  try {
    direct.emplace(dnnl::reorder::primitive_desc(engine, from.get_desc(), engine, to.get_desc()));
  } catch (const dnnl::error&) {
  }
  if (direct) {
    direct->execute(stream, from, to);
    return;
  }
  const memory::dims dims = from.get_desc().dims();
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  memory plain(memory::desc(dims, memory::data_type::f32, strides), engine);
  dnnl::reorder(from, plain).execute(stream, from, plain);
  dnnl::reorder(plain, to).execute(stream, plain, to);
  stream.wait();
}

std::string layout_name(const memory::desc& desc) {
  const dnnl_memory_desc_t& md = desc.data;
  if (md.format_kind == dnnl_format_kind_wino) return "wino";
  if (md.format_kind != dnnl_blocked) return "opaque";
  const dnnl_blocking_desc_t& b = md.format_desc.blocking;
  std::vector<int> order(md.ndims);
  for (int i = 0; i < md.ndims; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  std::string name;
  for (int dim : order) {
    const bool blocked = std::find(b.inner_idxs, b.inner_idxs + b.inner_nblks, dim) != b.inner_idxs + b.inner_nblks;
    name += letter(dim, blocked);
  }
  for (int k = 0; k < b.inner_nblks; ++k) name += std::to_string(b.inner_blks[k]) + letter(b.inner_idxs[k], false);
  return name;
}

std::string desc_key(const memory::desc& desc) {
  std::string key;
  for (int64_t d : desc.dims()) key += std::to_string(d) + "x";
  if (!key.empty()) key.pop_back();
  const dnnl_memory_desc_t& md = desc.data;
  if (md.format_kind != dnnl_blocked) return key + ":" + layout_name(desc);
  key += ":";
  for (int i = 0; i < md.ndims; ++i) key += std::to_string(md.format_desc.blocking.strides[i]) + ",";
  return key + layout_name(desc);
}

size_t choose_candidate(const dnnl::engine& engine, const std::string& key, const std::string& layer,
                        const std::vector<Candidate>& candidates, const TrialData& data, const TuningOptions& options,
                        const std::optional<std::string>& cached) {
  if (options.tune && cached) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].label != *cached) continue;
      if (options.verbose) std::fprintf(stderr, "onednn: %s runs %s (cached)\n", layer.c_str(), cached->c_str());
      return i;
    }
    std::fprintf(stderr, "onednn: warning: the cache file %s names '%s', which oneDNN does not offer for %s; "
                 "timing again\n", options.cache.path_of(key).c_str(), cached->c_str(), layer.c_str());
  }
  if (!options.tune || candidates.size() < 2) {
    if (options.verbose) std::fprintf(stderr, "onednn: %s runs %s (untimed)\n", layer.c_str(), candidates[0].label.c_str());
    return 0;
  }
  std::optional<Trial> reference;  // the first candidate that runs
  std::optional<size_t> best;
  double best_ms = 0;
  std::string report;
  for (size_t i = 0; i < candidates.size(); ++i) {
    char line[96];
    std::optional<Trial> trial;
    try {
      trial = run_trial(engine, candidates[i], data, options.runs);
    } catch (const dnnl::error& e) {
      // Such as a weight layout no reorder reaches from the tensor's own.
      std::snprintf(line, sizeof line, " (dropped: %s)", e.what());
    }
    if (trial && reference && disagreement(trial->output, reference->output) > kAgreement) {
      std::snprintf(line, sizeof line, " (dropped: off by %.2g)", disagreement(trial->output, reference->output));
    } else if (trial) {
      std::snprintf(line, sizeof line, " %.3f ms", trial->ms);
      if (!best || trial->ms < best_ms) {
        best = i;
        best_ms = trial->ms;
      }
      if (!reference) reference = std::move(trial);
    }
    report += "\n  " + candidates[i].label + line;
  }
  if (!best) throw weft::sdk::Unsupported("oneDNN runs no implementation of the " + layer + ":" + report);
  options.cache.write(key, candidates[*best].label);
  if (options.verbose) {
    std::fprintf(stderr, "onednn: %s runs %s (timed %zu candidates:%s)\n", layer.c_str(),
                 candidates[*best].label.c_str(), candidates.size(), report.c_str());
  }
  return *best;
}

}  // namespace onednn_target
