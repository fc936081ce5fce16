// The on-disk record of each layer's chosen implementation (choice_cache.h).
#include "choice_cache.h"

#include <dnnl.hpp>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "openmp_runtime.h"

namespace onednn_target {

namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader = "weft-onednn-choice 1";

/// FNV-1a, 64 bits: a file name for a key (the file holds the key itself,
/// so a collision reads as a foreign file, not a wrong choice).
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

void warn(const std::string& message) { std::fprintf(stderr, "onednn: warning: %s\n", message.c_str()); }

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

std::string ChoiceCache::path_of(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.choice", static_cast<unsigned long long>(fnv1a(key)));
  return (fs::path(dir_) / name).string();
}

std::optional<std::string> ChoiceCache::read(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  const std::string path = path_of(key);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string header, stored_key, choice;
  std::getline(in, header);
  std::getline(in, stored_key);
  std::getline(in, choice);
  if (header != kHeader || stored_key.rfind("key ", 0) != 0 || choice.rfind("choice ", 0) != 0 || choice.size() == 7) {
    warn("ignores the cache file " + path + ": it is not a '" + kHeader + "' record (key, choice); timing again");
    return std::nullopt;
  }
  if (stored_key.substr(4) != key) {
    warn("ignores the cache file " + path + ": it records another layer or CPU; timing again");
    return std::nullopt;
  }
  return choice.substr(7);
}

void ChoiceCache::write(const std::string& key, const std::string& choice) const {
  if (!enabled()) return;
  static std::atomic<unsigned> counter{0};
  const std::string path = path_of(key);
  const std::string temp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  {
    std::ofstream out(temp, std::ios::trunc);
    out << kHeader << "\nkey " << key << "\nchoice " << choice << "\n";
    out.close();
    if (!ec && out) {
      fs::rename(temp, path, ec);
      if (!ec) return;
    }
  }
  fs::remove(temp, ec);
  warn("cannot write the cache file " + path + "; the next build times this layer again");
}

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return (fs::path(xdg) / "weft" / "onednn").string();
  const char* home = std::getenv("HOME");
  if (home && *home) return (fs::path(home) / ".cache" / "weft" / "onednn").string();
  return "";
}

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
