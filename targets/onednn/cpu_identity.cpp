// The machine a recorded choice belongs to (cpu_identity.h).
#include "cpu_identity.h"

#include <dnnl.hpp>

#include <fstream>
#include <sstream>

#include "openmp_runtime.h"

namespace onednn_target {

namespace {

/// The first "model name" line of /proc/cpuinfo, or "unknown".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "unknown";
}

}  // namespace

std::string cpu_identity() {
  static const std::string fixed = [] {
    const dnnl_version_t* v = dnnl_version();
    std::ostringstream out;
    out << "onednn " << v->major << "." << v->minor << "." << v->patch << " " << v->hash << ", isa "
        << static_cast<int>(dnnl::get_effective_cpu_isa()) << ", cpu " << cpu_model();
    return out.str();
  }();
  return fixed + ", threads " + std::to_string(omp_get_max_threads());
}

}  // namespace onednn_target
