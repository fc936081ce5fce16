// The implementation the build chose for each layer (algorithm_choice.h),
// kept on disk so a later build of the same layer on the same CPU and oneDNN
// does no timing. One small file per layer, named by a hash of its key and
// holding the key itself, written atomically (a temporary file renamed), so
// concurrent builds never read half a file. A file that does not parse or
// belongs to another key is ignored with a warning, never trusted.
#pragma once

#include <optional>
#include <string>

namespace onednn_target {

class ChoiceCache {
 public:
  /// `dir`: the folder (created on the first write); "" keeps nothing.
  explicit ChoiceCache(std::string dir) : dir_(std::move(dir)) {}

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  /// The choice recorded for `key`, or nullopt (none recorded, caching off,
  /// or a file that does not hold `key`'s record: a warning says which).
  std::optional<std::string> read(const std::string& key) const;

  /// Records `choice` for `key`; a failure to write is a warning, not an error.
  void write(const std::string& key, const std::string& choice) const;

  /// The file that holds `key`'s record.
  std::string path_of(const std::string& key) const;

 private:
  std::string dir_;
};

/// The folder option cache_dir "auto" stands for: $XDG_CACHE_HOME/weft/onednn,
/// else ~/.cache/weft/onednn; "" where neither variable is set.
std::string default_cache_dir();

/// What a choice depends on besides the layer: oneDNN's version, the ISA it
/// dispatches to, the CPU model and the OpenMP thread count.
std::string cpu_identity();

}  // namespace onednn_target
