// The built-in pass instruments: timing, IR dump and well-formedness check.
#include <cstdio>
#include <string>

#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/printer.h"

namespace weft {

void TimingInstrument::run_before_pass(const IRModule&, const PassInfo& info) {
  entries_.push_back({info.name, static_cast<int>(open_.size()), std::chrono::nanoseconds(0)});
  open_.emplace_back(entries_.size() - 1, std::chrono::steady_clock::now());
}

void TimingInstrument::run_after_pass(const IRModule&, const PassInfo& info) {
  WEFT_ICHECK(!open_.empty(), "pass " + info.name + " finished but never started");
  auto [index, start] = open_.back();
  open_.pop_back();
  entries_[index].time = std::chrono::steady_clock::now() - start;
}

std::string TimingInstrument::report() const {
  std::string out;
  std::vector<size_t> parents;  // open ancestors of the entry being written
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    parents.resize(static_cast<size_t>(e.depth));
    char line[64];
    std::snprintf(line, sizeof line, ": %.0f us", std::chrono::duration<double, std::micro>(e.time).count());
    out += std::string(2 * static_cast<size_t>(e.depth), ' ') + e.pass + line;
    if (!parents.empty() && entries_[parents.back()].time.count() > 0) {
      double share = 100.0 * static_cast<double>(e.time.count()) /
                     static_cast<double>(entries_[parents.back()].time.count());
      std::snprintf(line, sizeof line, " (%.1f%%)", share);
      out += line;
    }
    out += '\n';
    parents.push_back(i);
  }
  return out;
}

void IRDumpInstrument::run_after_pass(const IRModule& mod, const PassInfo& info) {
  out_ << "// IR after " << info.name << "\n" << to_text(mod) << "\n";
}

void WellFormedInstrument::run_after_pass(const IRModule& mod, const PassInfo& info) {
  if (auto violation = well_formed_violation(mod))
    throw Error("pass " + info.name + " produced an ill-formed module: " + *violation);
}

}  // namespace weft
