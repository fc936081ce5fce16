// Run buffers placed by the static memory plan (see buffer_assignment.h).
#include "buffer_assignment.h"

#include <algorithm>
#include <map>
#include <optional>

#include "weft/memory_plan.h"

namespace weft::executor {
namespace {

void output_slots(const SlotTree& tree, std::vector<size_t>& out) {
  if (tree.slot) out.push_back(*tree.slot);
  for (const SlotTree& f : tree.fields) output_slots(f, out);
}

}  // namespace

size_t BufferAssignment::total_bytes() const {
  size_t total = 0;
  for (const Allocation& a : allocations) total += a.nbytes;
  return total;
}

BufferAssignment assign_buffers(const Schedule& schedule) {
  const size_t n = schedule.run_buffers.size();
  auto buffer_of = [&](size_t slot) -> std::optional<size_t> {
    const Slot& s = schedule.slots[slot];
    return s.source == Slot::Source::kRunBuffer ? std::optional<size_t>(s.index) : std::nullopt;
  };
  std::vector<PlannedValue> values(n);
  std::vector<int> writer(n, kHost);  // the stream of the step that writes each buffer
  // Per stream, the buffers it read that another stream wrote since it was
  // last synchronized: nothing orders those reads before a later write on the
  // writer's stream until the host has waited for the reader.
  std::map<int, std::vector<size_t>> unsynchronized_reads;
  for (size_t b = 0; b < n; ++b) {
    values[b].nbytes = schedule.run_buffers[b].nbytes;
    values[b].alias_of = schedule.run_buffers[b].part_of;
    values[b].alias_offset = schedule.run_buffers[b].part_offset;
  }
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    const Step& step = schedule.steps[i];
    const auto at = static_cast<int64_t>(i);
    auto define = [&](size_t slot) {
      auto b = buffer_of(slot);
      if (!b) return;
      values[*b].defined_at = values[*b].last_use = at;
      writer[*b] = step.target;
      // The wholes this buffer is part of are complete once their last part is.
      for (auto whole = schedule.run_buffers[*b].part_of; whole; whole = schedule.run_buffers[*whole].part_of) {
        values[*whole].defined_at = values[*whole].last_use = at;
        writer[*whole] = step.target;
      }
    };
    auto read = [&](size_t slot) {
      if (auto b = buffer_of(slot)) {
        values[*b].last_use = std::max(values[*b].last_use, at);
        if (step.target != writer[*b]) unsynchronized_reads[step.target].push_back(*b);
      }
    };
    switch (step.kind) {
      case Step::Kind::kLaunch: {
        const size_t first_output = step.first_arg + step.num_args - step.num_outputs;
        for (size_t a = step.first_arg; a < first_output; ++a) read(schedule.arg_slots[a]);
        for (size_t a = first_output; a < step.first_arg + step.num_args; ++a) define(schedule.arg_slots[a]);
        if (step.inplace_arg) {
          auto in = buffer_of(schedule.arg_slots[step.first_arg + *step.inplace_arg]);
          auto out = buffer_of(schedule.arg_slots[first_output]);
          if (in && out && !schedule.run_buffers[*out].part_of) values[*out].inplace_candidate = *in;
        }
        break;
      }
      case Step::Kind::kUpload:
      case Step::Kind::kDownload:
        read(step.src);
        define(step.dst);
        break;
      case Step::Kind::kSynchronize:
        for (size_t b : unsynchronized_reads[step.target]) values[b].last_use = std::max(values[b].last_use, at);
        unsynchronized_reads[step.target].clear();
        break;
    }
  }
  std::vector<size_t> outputs;
  output_slots(schedule.output, outputs);
  for (size_t s : outputs)
    if (auto b = buffer_of(s)) values[*b].last_use = PlannedValue::kLiveToEnd;
  // Read on a stream no step synchronizes later: only the run's end waits for it.
  for (const auto& [stream, reads] : unsynchronized_reads)
    for (size_t b : reads) values[b].last_use = PlannedValue::kLiveToEnd;
  // An arena per (owner, writing stream), numbered in order of first use.
  std::map<std::pair<int, int>, int> arena_of;
  BufferAssignment assignment;
  for (size_t b = 0; b < n; ++b) {
    auto key = std::make_pair(schedule.run_buffers[b].target, writer[b]);
    auto [it, fresh] = arena_of.try_emplace(key, static_cast<int>(arena_of.size()));
    if (fresh) assignment.allocations.push_back({key.first, 0});
    values[b].device = it->second;
  }
  const MemoryPlan plan = plan_memory(values);
  for (size_t a = 0; a < assignment.allocations.size(); ++a) assignment.allocations[a].nbytes = plan.arena_bytes[a];
  for (size_t b = 0; b < n; ++b)
    assignment.places.push_back({static_cast<size_t>(plan.placements[b].device), plan.placements[b].offset});
  return assignment;
}

}  // namespace weft::executor
