// Summaries of a built program (see compiled_summary.h).
#include "compiled_summary.h"

#include <iomanip>
#include <sstream>

namespace weft::cli {

std::map<std::string, size_t> ops_per_target(const CompiledModule& compiled) {
  std::map<std::string, size_t> ops;
  for (const CompiledGroup& g : compiled.groups) ops[g.target] += g.ops.size();
  return ops;
}

std::string target_list(const CompiledModule& compiled) {
  std::string out;
  for (const auto& [name, ops] : ops_per_target(compiled)) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "no target" : out;
}

std::string milliseconds(double ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << ms;
  return out.str();
}

}  // namespace weft::cli
