// The stderr progress bar (see progress_bar.h).
#include "progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace weft::cli {

namespace {
constexpr int kWidth = 30;
}

ProgressBar::ProgressBar(std::string label, size_t total)
    : label_(std::move(label)), total_(total), enabled_(isatty(fileno(stderr)) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::update(size_t done) {
  if (!enabled_ || total_ == 0) return;
  if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
  const int filled = static_cast<int>(kWidth * done / total_);
  std::fprintf(stderr, "\r%s [%s%s] %zu/%zu", label_.c_str(), std::string(filled, '#').c_str(),
               std::string(kWidth - filled, ' ').c_str(), done, total_);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace weft::cli
