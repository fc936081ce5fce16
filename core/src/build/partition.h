// The partition step of weft::build: which target runs which fused group.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "weft/expr.h"
#include "weft/target.h"

namespace weft::build_detail {

/// A target of the build, in the config's priority order.
struct BuildTarget {
  std::string name;
  std::shared_ptr<Target> target;
};

/// One group of the partitioned main, in execution order.
struct GroupPlan {
  Call site;           // the call of the Primitive function in main
  Function primitive;  // site's callee
  std::vector<Call> calls;  // the op calls inside, in evaluation order
  /// Indices into the targets of those that support every call, in priority
  /// order; `ref` (the last target) takes a group without calls.
  std::vector<size_t> takers;
  /// Per call: whether some target before `ref` supports it.
  std::vector<bool> listed_support;
};

struct Partition {
  Function main;  // typed; its body calls only Primitive functions
  std::vector<GroupPlan> groups;
};

/// Partitions a typed, optimized main among `targets` (priority order, `ref`
/// last): op calls outside Primitive functions (FuseOps did not run) become
/// groups of one call each, and a group that no target before `ref` takes
/// whole, but that one of them takes a call of, is split into groups of one
/// call each, so those calls run there. Walks main without recursion.
Partition partition(const Function& main, std::span<const BuildTarget> targets);

/// Whether `fn` is a fused group: it has a Primitive attr (0 for a group
/// without calls, as FuseOps marks one).
bool is_group(const FunctionNode& fn);

}  // namespace weft::build_detail
