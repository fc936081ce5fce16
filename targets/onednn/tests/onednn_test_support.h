// What the onednn target's tests share: a program with some parameters bound
// as weights, a build for onednn that captures the target's verbose report,
// and the error measure the values are checked with.
#pragma once

#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "weft/build.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/testing/random_data.h"
#include "weft/text.h"

namespace weft::onednn_test {

/// Whether oneDNN runs AVX-512 kernels here: its convolutions then block
/// channels by 16, else (AVX2) by 8.
inline bool has_avx512() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & avx512) == avx512;
}

struct Built {
  std::shared_ptr<const CompiledModule> compiled;
  std::string report;  // the target's verbose lines
};

/// Builds `mod` for onednn, verbose, with `options` besides: by default one
/// timed run per candidate implementation and no cache on disk (a test that
/// wants one names its folder); the pipeline without `disabled_passes`.
inline Built build_for_onednn(const IRModule& mod, std::vector<std::pair<std::string, AttrValue>> options = {},
                              const std::vector<std::string>& disabled_passes = {}) {
  std::vector<std::pair<std::string, AttrValue>> all = {
      {"verbose", true}, {"tune_runs", int64_t{1}}, {"cache_dir", std::string()}};
  for (auto& option : options) {
    auto same = std::find_if(all.begin(), all.end(), [&](const auto& entry) { return entry.first == option.first; });
    if (same != all.end()) same->second = option.second;
    else all.push_back(option);
  }
  RunConfig config;
  config.targets = {"onednn"};
  config.target_options["onednn"] = make_attrs(all);
  config.disabled_passes = disabled_passes;
  ::testing::internal::CaptureStderr();
  Built built;
  try {
    built.compiled = build(mod, config);
  } catch (...) {
    ::testing::internal::GetCapturedStderr();
    throw;
  }
  built.report = ::testing::internal::GetCapturedStderr();
  return built;
}

/// `text`'s main with the parameters named in `bound` bound to random data
/// (seed 1), and random arguments (seed 2) for the rest.
struct Program {
  IRModule mod;
  std::vector<Value> args;
};

inline Program program(const std::string& text, const std::vector<std::string>& bound) {
  IRModule mod = infer_type(parse_module(text));
  std::map<std::string, Tensor> params;
  std::vector<Value> args;
  for (const auto& [name, tensor] : testing::random_inputs(mod.main(), 1, -1.0, 1.0)) {
    if (std::find(bound.begin(), bound.end(), name) != bound.end()) params.emplace(name, tensor);
  }
  mod = infer_type(bind_params(mod, params));
  for (const auto& [name, tensor] : testing::random_inputs(mod.main(), 2, -1.0, 1.0)) args.push_back(Value(tensor));
  return {mod, args};
}

/// The largest |got - want| over max(1, |want|), element by element.
inline double max_error(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.numel(), want.numel());
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(i), w = want.element_as_double(i);
    worst = std::max(worst, std::abs(g - w) / std::max(1.0, std::abs(w)));
  }
  return worst;
}

}  // namespace weft::onednn_test
