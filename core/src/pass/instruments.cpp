// The built-in pass instruments: timing, IR dump and well-formedness check.
#include <cstdio>
#include <string>
#include <utility>

#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"

namespace weft {

void TimingInstrument::run_before_pass(const IRModule&, const PassInfo& info) {
  entries_.push_back({info.name, static_cast<int>(open_.size()), std::chrono::nanoseconds(0)});
  open_.emplace_back(entries_.size() - 1, std::chrono::steady_clock::now());
}

void TimingInstrument::run_after_pass(const IRModule&, const PassInfo& info) { close(info, false); }

void TimingInstrument::run_after_pass_failed(const IRModule&, const PassInfo& info, const std::exception&) {
  close(info, true);
}

void TimingInstrument::close(const PassInfo& info, bool failed) {
  WEFT_ICHECK(!open_.empty(), "pass " + info.name + " finished but never started");
  auto [index, start] = open_.back();
  open_.pop_back();
  entries_[index].time = std::chrono::steady_clock::now() - start;
  entries_[index].failed = failed;
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
    if (e.failed) out += " (failed)";
    out += '\n';
    parents.push_back(i);
  }
  return out;
}

namespace {

// The same functions under the same names, node for node: no change, and no
// structural walk needed.
bool same_nodes(const IRModule& a, const IRModule& b) {
  const auto& x = a.functions();
  const auto& y = b.functions();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].first->name != y[i].first->name || x[i].second.get() != y[i].second.get()) return false;
  return true;
}

}  // namespace

void IRDumpInstrument::run_before_pass(const IRModule& mod, const PassInfo&) {
  if (mode_ == Mode::kAfterChange) before_.push_back(mod);
}

void IRDumpInstrument::run_after_pass(const IRModule& mod, const PassInfo& info) {
  if (mode_ == Mode::kAfterChange) {
    WEFT_ICHECK(!before_.empty(), "pass " + info.name + " finished but never started");
    IRModule before = std::move(before_.back());
    before_.pop_back();
    if (same_nodes(before, mod)) return;
    // Structural equality does not see sharing, which EliminateCommonSubexpr
    // changes: equal programs are also compared as printed.
    std::string text = to_text(mod);
    if (structural_equal(before, mod) && text == to_text(before)) return;
    out_ << "// IR after " << info.name << "\n" << text << "\n";
    return;
  }
  out_ << "// IR after " << info.name << "\n" << to_text(mod) << "\n";
}

void IRDumpInstrument::run_after_pass_failed(const IRModule&, const PassInfo&, const std::exception&) {
  if (mode_ == Mode::kAfterChange) before_.pop_back();  // its run_before_pass pushed it
}

void WellFormedInstrument::run_after_pass(const IRModule& mod, const PassInfo& info) {
  if (auto violation = well_formed_violation(mod))
    throw Error("pass " + info.name + " produced an ill-formed module: " + *violation);
}

}  // namespace weft
