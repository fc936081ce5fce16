// Relay's GraphPartitioner: which nodes of a forward graph fuse into one
// group, from their op patterns and post-dominators.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fusion_graph.h"

namespace weft::fusion {

/// The groups nodes fall into: group[n] is the same number for nodes that fuse
/// together, and result[n] is true for the node whose value its group returns
/// (its last node, which every other one flows into).
struct Partition {
  std::vector<uint32_t> group;
  std::vector<bool> result;
};

/// Fuses in Relay's three phases, each a sweep over the nodes in post-DFS
/// order that merges a node with its post-dominator when every path between
/// them allows it:
///  0. out-elementwise-fusable anchors (convolutions, dense) absorb the
///     elementwise/broadcast ops they flow into, and elementwise/broadcast
///     ops fuse into injective, reduction or anchored consumers;
///  1. injective ops and tuples fuse along injective paths;
///  2. injective ops fuse into a tuple that already joined injective users.
/// At opt_level 0 every node stays alone. No group exceeds max_depth nodes;
/// with max_function_args nonzero, no function takes more arguments than
/// that, its output buffers and `?` extents counted (0: no limit).
Partition partition(const ForwardGraph& graph, int opt_level, uint32_t max_depth, size_t max_function_args);

}  // namespace weft::fusion
