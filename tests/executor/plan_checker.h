// An oracle for memory plans, written from the plan's contract and not from
// the planner: it lists every way a plan lets one tensor's bytes be
// overwritten while somebody may still read them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/memory_plan.h"

namespace weft::testing {

/// What is wrong with `plan` for `values`; empty when it is sound:
///  - every offset a multiple of 64 and inside its device's arena, on the
///    value's device; a view at the offset of the value it views plus its
///    alias_offset;
///  - two parts of one storage (views defined no later than what they view:
///    each written by its own step) never overlap;
///  - for two storages (a value with storage and its views and parts) whose
///    bytes overlap, the one written later (the first step defining any of
///    its values) is written after the last read of the earlier one, or at
///    that last read when it is the in-place result of a value of the earlier
///    storage;
///  - intermediate_bytes is the bytes of the values with storage of their own.
inline std::vector<std::string> plan_problems(std::span<const PlannedValue> values, const MemoryPlan& plan) {
  std::vector<std::string> problems;
  auto name = [](size_t i) { return "value " + std::to_string(i); };
  if (plan.placements.size() != values.size())
    return {"plan has " + std::to_string(plan.placements.size()) + " placements for " + std::to_string(values.size()) +
            " values"};
  // storage[i]: the value with storage that i's chain of views ends at.
  std::vector<size_t> storage(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    size_t at = i;
    for (size_t hops = 0; values[at].alias_of && hops <= values.size(); ++hops) at = *values[at].alias_of;
    storage[i] = at;
  }
  std::vector<int64_t> last_read(values.size(), INT64_MIN), first_write(values.size(), INT64_MAX);
  size_t own_bytes = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    last_read[storage[i]] = std::max(last_read[storage[i]], values[i].last_use);
    first_write[storage[i]] = std::min(first_write[storage[i]], values[i].defined_at);
    if (!values[i].alias_of) own_bytes += values[i].nbytes;
    const MemoryPlan::Placement& p = plan.placements[i];
    if (p.device != values[i].device) problems.push_back(name(i) + " placed on another device");
    if (p.offset % 64 != 0) problems.push_back(name(i) + " at unaligned offset " + std::to_string(p.offset));
    if (p.device < 0 || static_cast<size_t>(p.device) >= plan.arena_bytes.size() ||
        p.offset + values[i].nbytes > plan.arena_bytes[p.device])
      problems.push_back(name(i) + " outside its device's arena");
    if (values[i].alias_of &&
        p.offset != plan.placements[*values[i].alias_of].offset + values[i].alias_offset)
      problems.push_back(name(i) + " is a view away from the bytes it views");
  }
  for (size_t arena : plan.arena_bytes)
    if (arena % 64 != 0) problems.push_back("arena of " + std::to_string(arena) + " bytes, not a multiple of 64");
  if (plan.intermediate_bytes != own_bytes)
    problems.push_back("intermediate_bytes " + std::to_string(plan.intermediate_bytes) + ", want " +
                       std::to_string(own_bytes));

  auto is_part = [&](size_t i) {
    return values[i].alias_of && values[i].defined_at <= values[*values[i].alias_of].defined_at;
  };
  auto within = [&](size_t inner, size_t outer) {  // outer is on inner's chain of views
    for (size_t at = inner, hops = 0; values[at].alias_of && hops <= values.size(); ++hops)
      if ((at = *values[at].alias_of) == outer) return true;
    return false;
  };
  for (size_t a = 0; a < values.size(); ++a) {
    for (size_t b = a + 1; b < values.size(); ++b) {
      const PlannedValue &va = values[a], &vb = values[b];
      if (va.device != vb.device || va.nbytes == 0 || vb.nbytes == 0) continue;
      const size_t oa = plan.placements[a].offset, ob = plan.placements[b].offset;
      if (oa + va.nbytes <= ob || ob + vb.nbytes <= oa) continue;
      if (storage[a] == storage[b]) {
        if (is_part(a) && is_part(b) && !within(a, b) && !within(b, a)) problems.push_back(name(a) + " and " + name(b) + " are overlapping parts");
        continue;
      }
      // Order the two storages by when their bytes are written.
      size_t first = storage[a], second = storage[b];
      if (first_write[second] < first_write[first]) std::swap(first, second);
      const int64_t written = first_write[second];
      if (last_read[first] < written) continue;
      const auto& candidate = values[second].inplace_candidate;
      if (last_read[first] == written && values[first].defined_at < written && candidate &&
          storage[*candidate] == first)
        continue;
      problems.push_back(name(a) + " and " + name(b) + " share bytes while both are alive");
    }
  }
  return problems;
}

/// The most bytes (rounded up to 64 each) that values with storage of their
/// own hold at one step: no plan without in-place sharing needs less.
inline size_t peak_live_bytes(std::span<const PlannedValue> values) {
  std::vector<int64_t> steps;
  for (const PlannedValue& v : values) steps.push_back(v.defined_at);
  size_t peak = 0;
  for (int64_t step : steps) {
    size_t live = 0;
    for (const PlannedValue& v : values)
      if (!v.alias_of && v.defined_at <= step && step <= v.last_use) live += (v.nbytes + 63) / 64 * 64;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace weft::testing
