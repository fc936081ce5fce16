// What `weft run` and `weft bench` say about a built program: which targets
// run it and how many ops each runs, and times in milliseconds.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "weft/build.h"

namespace weft::cli {

/// Target name -> the number of op calls in the groups it runs.
std::map<std::string, size_t> ops_per_target(const CompiledModule& compiled);
/// The targets that run groups, "null, ref" (or "no target" for a main without any).
std::string target_list(const CompiledModule& compiled);

/// "12.345": three decimals.
std::string milliseconds(double ms);
/// Milliseconds since `start`.
inline double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace weft::cli
