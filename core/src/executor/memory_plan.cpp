// The static memory plan in three steps:
//  1. storage groups: a value and its views and parts share one block, alive
//     from the first definition among them to the last read of any of them;
//  2. in-place: in step order, a value whose candidate's group dies at the
//     value's own step (every read of it done there) joins that group;
//  3. offsets: the groups of each device placed greedily by size, as TFLite's
//     ArenaPlanner and "greedy by size" (Pisarchyk & Lee 2020) do: largest
//     first, each into the smallest gap between the already placed groups
//     whose lifetimes overlap its own that holds it, else above them all.
// Greedy by size beats TVM's GraphPlanMemory (a size-keyed free list of
// blocks reused in step order, each block growing to the largest tensor it
// ever holds) on the -O3 fused zoo models at batch 1, in-place left out:
// resnet-50 7.7 MiB vs 9.4 MiB (the peak of live bytes at any step: 6.9 MiB),
// densenet-121 4.6 MiB, its peak, vs 13.3 MiB; choosing the smallest gap
// rather than the lowest one gives the same on both.
#include "weft/memory_plan.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "weft/error.h"

namespace weft {
namespace {

size_t round_up(size_t n) { return (n + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment; }

Error bad_value(size_t index, const std::string& what) {
  return Error("memory plan: value " + std::to_string(index) + " " + what);
}

void check_values(std::span<const PlannedValue> values) {
  for (size_t i = 0; i < values.size(); ++i) {
    const PlannedValue& v = values[i];
    if (v.device < 0) throw bad_value(i, "is on device " + std::to_string(v.device)).expected("a device index >= 0");
    if (v.last_use < v.defined_at)
      throw bad_value(i, "is last read at step " + std::to_string(v.last_use) + ", before step " +
                             std::to_string(v.defined_at) + " defines it")
          .expected("last_use >= defined_at");
    if (v.alias_of && v.inplace_candidate)
      throw bad_value(i, "is both a view and an in-place result")
          .expected("at most one of alias_of, inplace_candidate");
    if (v.alias_of) {
      if (*v.alias_of >= values.size() || *v.alias_of == i)
        throw bad_value(i, "views value " + std::to_string(*v.alias_of)).expected("another value's index");
      const PlannedValue& viewed = values[*v.alias_of];
      if (viewed.device != v.device)
        throw bad_value(i, "views value " + std::to_string(*v.alias_of) + " on another device")
            .expected("a view on its value's device");
      if (v.alias_offset % MemoryPlan::kAlignment != 0)
        throw bad_value(i, "views value " + std::to_string(*v.alias_of) + " from byte " +
                               std::to_string(v.alias_offset))
            .expected("an alias_offset that is a multiple of " + std::to_string(MemoryPlan::kAlignment));
      if (v.alias_offset > viewed.nbytes || viewed.nbytes - v.alias_offset < v.nbytes)
        throw bad_value(i, "views " + std::to_string(v.nbytes) + " bytes from byte " + std::to_string(v.alias_offset) +
                               " of value " + std::to_string(*v.alias_of) + ", which has " +
                               std::to_string(viewed.nbytes))
            .expected("a view inside the bytes of what it views");
    }
    if (v.inplace_candidate) {
      if (*v.inplace_candidate >= values.size())
        throw bad_value(i, "names in-place candidate " + std::to_string(*v.inplace_candidate))
            .expected("a value's index");
      if (values[*v.inplace_candidate].defined_at >= v.defined_at)
        throw bad_value(i,
                        "names in-place candidate " + std::to_string(*v.inplace_candidate) + ", not defined before it")
            .expected("an input of the value's step");
    }
  }
}

// One block of storage and the values that live in it.
struct Group {
  int device = 0;
  size_t nbytes = 0;
  int64_t start = 0, end = 0;  // steps: first definition, last read
  int64_t last_definition = 0;
  size_t offset = 0;
  size_t joined = SIZE_MAX;  // the group it joined in place, if it did
};

// Where a value's bytes are: the value with storage its chain of views ends
// at, and the offset from that value's first byte.
struct StorageRoot {
  size_t value = 0;
  size_t offset = 0;
};

std::vector<StorageRoot> storage_roots(std::span<const PlannedValue> values) {
  constexpr size_t kUnresolved = SIZE_MAX, kOnChain = SIZE_MAX - 1;
  std::vector<StorageRoot> root(values.size(), {kUnresolved, 0});
  std::vector<size_t> chain;
  for (size_t i = 0; i < values.size(); ++i) {
    chain.clear();
    size_t at = i;
    while (root[at].value == kUnresolved && values[at].alias_of) {
      root[at].value = kOnChain;
      chain.push_back(at);
      at = *values[at].alias_of;
    }
    // Views of one step may name each other: a chain that comes back on itself has no storage.
    if (root[at].value == kOnChain)
      throw bad_value(i, "is a view in a cycle of views").expected("views that end at a value with storage");
    if (root[at].value == kUnresolved) root[at] = {at, 0};
    // Back down the chain: each view's offset is its own plus that of what it views.
    for (auto c = chain.rbegin(); c != chain.rend(); ++c) {
      const StorageRoot& viewed = root[*values[*c].alias_of];
      root[*c] = {viewed.value, viewed.offset + values[*c].alias_offset};
    }
  }
  return root;
}

class Groups {
 public:
  explicit Groups(std::span<const PlannedValue> values)
      : values_(values), roots_(storage_roots(values)), group_of_(values.size()) {
    std::vector<size_t> group_of_root(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].alias_of) continue;
      group_of_root[i] = groups_.size();
      groups_.push_back(
          {values[i].device, values[i].nbytes, values[i].defined_at, values[i].last_use, values[i].defined_at});
    }
    for (size_t i = 0; i < values.size(); ++i) {
      group_of_[i] = group_of_root[roots_[i].value];
      Group& g = groups_[group_of_[i]];
      g.start = std::min(g.start, values[i].defined_at);
      g.end = std::max(g.end, values[i].last_use);
      g.last_definition = std::max(g.last_definition, values[i].defined_at);
    }
  }

  // Joins each value whose candidate qualifies to its candidate's group, in
  // step order, so a chain of in-place kernels keeps one block.
  void take_inplace_candidates() {
    std::vector<size_t> order;
    for (size_t i = 0; i < values_.size(); ++i)
      if (values_[i].inplace_candidate) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return values_[a].defined_at < values_[b].defined_at; });
    for (size_t i : order) {
      const int64_t step = values_[i].defined_at;
      const size_t into = group(*values_[i].inplace_candidate), from = group(i);
      Group& target = groups_[into];
      Group& mine = groups_[from];
      // The candidate's block must be read for the last time at this step and
      // not already written there by another of the step's results; nothing
      // of this value's own block may be written before this step.
      if (into == from || target.device != mine.device || target.end != step || target.last_definition >= step ||
          target.nbytes < mine.nbytes || mine.start != step)
        continue;
      target.end = std::max(target.end, mine.end);
      target.last_definition = step;
      mine.joined = into;
    }
  }

  // Offsets for the groups of `device`, greedily by size; returns the arena size.
  size_t place(int device) {
    std::vector<size_t> order;
    for (size_t g = 0; g < groups_.size(); ++g)
      if (groups_[g].device == device && groups_[g].joined == SIZE_MAX && groups_[g].nbytes > 0) order.push_back(g);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (groups_[a].nbytes != groups_[b].nbytes) return groups_[a].nbytes > groups_[b].nbytes;
      return groups_[a].start < groups_[b].start;
    });
    LiveIndex index(groups_, order);
    size_t arena = 0;
    std::vector<const Group*> live;
    for (size_t g : order) {
      Group& group = groups_[g];
      const size_t need = round_up(group.nbytes);
      index.placed_overlapping(group, live);
      std::sort(live.begin(), live.end(), [](const Group* a, const Group* b) { return a->offset < b->offset; });
      size_t gap_start = 0, best_offset = 0, best_gap = SIZE_MAX;
      for (const Group* l : live) {
        if (l->offset >= gap_start + need && l->offset - gap_start < best_gap) {
          best_gap = l->offset - gap_start;
          best_offset = gap_start;
        }
        gap_start = std::max(gap_start, l->offset + round_up(l->nbytes));
      }
      group.offset = best_gap == SIZE_MAX ? gap_start : best_offset;
      arena = std::max(arena, group.offset + need);
      index.add(g);
    }
    return arena;
  }

  size_t offset_of(size_t value) { return groups_[group(value)].offset + roots_[value].offset; }

 private:
  // The placed groups alive at each step (steps renumbered densely), so that
  // finding a group's neighbours in time costs its lifetime, not the graph.
  class LiveIndex {
   public:
    LiveIndex(const std::vector<Group>& groups, const std::vector<size_t>& members)
        : groups_(groups), seen_(groups.size(), SIZE_MAX) {
      for (size_t g : members) {
        steps_.push_back(groups[g].start);
        steps_.push_back(groups[g].end);
      }
      std::sort(steps_.begin(), steps_.end());
      steps_.erase(std::unique(steps_.begin(), steps_.end()), steps_.end());
      live_at_.resize(steps_.size());
    }
    void add(size_t g) {
      for (size_t s = dense(groups_[g].start); s <= dense(groups_[g].end); ++s) live_at_[s].push_back(g);
    }
    void placed_overlapping(const Group& group, std::vector<const Group*>& out) {
      out.clear();
      ++query_;
      for (size_t s = dense(group.start); s <= dense(group.end); ++s)
        for (size_t g : live_at_[s])
          if (seen_[g] != query_) {
            seen_[g] = query_;
            out.push_back(&groups_[g]);
          }
    }

   private:
    size_t dense(int64_t step) const { return std::lower_bound(steps_.begin(), steps_.end(), step) - steps_.begin(); }
    const std::vector<Group>& groups_;
    std::vector<int64_t> steps_;
    std::vector<std::vector<size_t>> live_at_;
    std::vector<size_t> seen_;  // per group: the last query that listed it
    size_t query_ = 0;
  };

  size_t group(size_t value) {
    size_t g = group_of_[value];
    while (groups_[g].joined != SIZE_MAX) g = groups_[g].joined;
    return group_of_[value] = g;
  }

  std::span<const PlannedValue> values_;
  std::vector<StorageRoot> roots_;
  std::vector<Group> groups_;
  std::vector<size_t> group_of_;  // per value: its group, or one that joined it
};

}  // namespace

size_t MemoryPlan::total_arena_bytes() const {
  return std::accumulate(arena_bytes.begin(), arena_bytes.end(), size_t{0});
}

MemoryPlan plan_memory(std::span<const PlannedValue> values) {
  check_values(values);
  Groups groups(values);
  groups.take_inplace_candidates();
  MemoryPlan plan;
  int devices = 0;
  for (const PlannedValue& v : values) devices = std::max(devices, v.device + 1);
  for (int d = 0; d < devices; ++d) plan.arena_bytes.push_back(groups.place(d));
  for (size_t i = 0; i < values.size(); ++i) {
    plan.placements.push_back({values[i].device, groups.offset_of(i)});
    if (!values[i].alias_of) plan.intermediate_bytes += values[i].nbytes;
  }
  return plan;
}

}  // namespace weft
