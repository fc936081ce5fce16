// weft plugin SDK: a folder of records kept between builds, for what a target
// works out once per layer and machine (a tuning choice, compiled code).
//
//   sdk::DiskCache cache(sdk::DiskCache::default_dir("mytarget"), "mytarget-kernel");
//   if (std::optional<std::string> code = cache.read(key)) ... else cache.write(key, compile());
//
// One file per key, named by a hash of the key and holding the key itself, so
// a hash collision reads as a foreign record, never as a wrong one. Files are
// written to a temporary name and renamed: concurrent builds never read half
// a record. A file that does not parse or holds another key is ignored with a
// warning on stderr; a failure to write is a warning too: a cache never fails
// a build.
//
// Part of plugin.hpp; include that.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

namespace weft::sdk {

class DiskCache {
 public:
  /// Records of `kind` (a word: "onednn-choice") in `dir`, created on the
  /// first write; `dir` "" keeps nothing.
  DiskCache(std::string dir, std::string kind) : dir_(std::move(dir)), kind_(std::move(kind)) {}

  /// The folder a target's option cache_dir "auto" stands for:
  /// $XDG_CACHE_HOME/weft/<target>, else ~/.cache/weft/<target>; "" where
  /// neither variable is set.
  static std::string default_dir(const std::string& target) {
    namespace fs = std::filesystem;
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg) return (fs::path(xdg) / "weft" / target).string();
    const char* home = std::getenv("HOME");
    if (home && *home) return (fs::path(home) / ".cache" / "weft" / target).string();
    return "";
  }

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  /// The file that holds `key`'s record.
  std::string path_of(const std::string& key) const {
    return (std::filesystem::path(dir_) / (hex(fnv1a(key)) + "." + kind_)).string();
  }

  /// The value recorded for `key`, or nullopt: caching off, no record, or a
  /// file that is not a record of this kind or holds another key (a warning
  /// says which).
  std::optional<std::string> read(const std::string& key) const {
    if (!enabled()) return std::nullopt;
    const std::string path = path_of(key);
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // header "\n" "key " N "\n" key "\n" "value " M " " hash "\n" value
    std::istringstream record(bytes);
    std::string header, stored_key, value, value_hash;
    if (!std::getline(record, header) || header != this->header() || !field(record, "key", stored_key) ||
        !field(record, "value", value, &value_hash) || record.peek() != std::char_traits<char>::eof() ||
        value_hash != hex(fnv1a(value))) {
      warn("ignores " + path + ": it is not a '" + this->header() + "' record; computing it again");
      return std::nullopt;
    }
    if (stored_key != key) {
      warn("ignores " + path + ": it records another key (another layer, machine or version); computing it again");
      return std::nullopt;
    }
    return value;
  }

  /// Records `value` for `key`, replacing what was there.
  void write(const std::string& key, const std::string& value) const {
    if (!enabled()) return;
    namespace fs = std::filesystem;
    static std::atomic<unsigned> counter{0};
    const std::string path = path_of(key);
    const std::string temp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
    std::error_code ec;
    fs::create_directories(dir_, ec);
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << header() << "\nkey " << key.size() << "\n" << key << "\nvalue " << value.size() << " " << hex(fnv1a(value))
          << "\n" << value;
      out.close();
      if (!ec && out) {
        fs::rename(temp, path, ec);
        if (!ec) return;
      }
    }
    fs::remove(temp, ec);
    warn("cannot write " + path + "; the next build computes this again");
  }

  /// A record's first line: "weft-<kind> 1".
  std::string header() const { return "weft-" + kind_ + " 1"; }

 private:
  /// FNV-1a, 64 bits: names a key's file, and checks a value was read whole.
  static uint64_t fnv1a(const std::string& text) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return h;
  }

  static std::string hex(uint64_t value) {
    char digits[17];
    std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(value));
    return digits;
  }

  /// Reads "<name> <size>\n" (with `hash`: "<name> <size> <hash>\n") then
  /// that many bytes (and, for the key, "\n").
  static bool field(std::istringstream& in, const char* name, std::string& out, std::string* hash = nullptr) {
    std::string line;
    if (!std::getline(in, line) || line.rfind(std::string(name) + " ", 0) != 0) return false;
    std::string digits = line.substr(std::char_traits<char>::length(name) + 1);
    if (hash) {
      const size_t space = digits.find(' ');
      if (space == std::string::npos) return false;
      *hash = digits.substr(space + 1);
      digits.resize(space);
    }
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const auto size = static_cast<size_t>(std::stoull(digits));
    const auto left = static_cast<size_t>(in.rdbuf()->in_avail());
    if (size > left) return false;
    out.assign(size, '\0');
    in.read(out.data(), static_cast<std::streamsize>(size));
    if (std::string(name) == "key") return in.get() == '\n';
    return true;
  }

  void warn(const std::string& message) const {
    std::fprintf(stderr, "weft: warning: the %s cache %s\n", kind_.c_str(), message.c_str());
  }

  std::string dir_;
  std::string kind_;
};

}  // namespace weft::sdk
