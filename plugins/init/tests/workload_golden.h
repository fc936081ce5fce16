// The golden workloads of golden/gen_workloads.py, by case name.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/tensor.h"

namespace weft {

inline nlohmann::json golden_cases() {
  std::ifstream in(WEFT_PLUGIN_GOLDEN_DIR "/workloads.json");
  return nlohmann::json::parse(in);
}

inline std::vector<std::string> golden_case_names() {
  std::vector<std::string> names;
  for (const auto& c : golden_cases()) names.push_back(c.at("case").get<std::string>());
  return names;
}

inline nlohmann::json golden_case(const std::string& name) {
  for (const auto& c : golden_cases())
    if (c.at("case") == name) return c;
  throw std::runtime_error("no golden workload case " + name);
}

/// Element i's bits, widened to 64.
inline uint64_t element_bits(const Tensor& t, int64_t i) {
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(t.data()) + i * t.dtype().bytes(), t.dtype().bytes());
  return bits;
}

}  // namespace weft
