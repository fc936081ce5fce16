// A progress bar on stderr for long CLI loops (`weft bench`'s runs): drawn
// only when stderr is a terminal and once the loop has run for a second, so
// short runs and redirected output stay clean; erased when done.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace weft::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, size_t total);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// `done` of the total finished.
  void update(size_t done);

 private:
  std::string label_;
  size_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace weft::cli
