// The dataflow analysis FuseOps partitions: a function's expressions as an
// indexed forward graph (each node with the edges to the nodes using it) and
// its post-dominator tree, as Relay's IndexedForwardGraph and DominatorTree.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "weft/expr.h"
#include "weft/op.h"

namespace weft::fusion {

/// The dataflow of one function. Nodes are its Vars, Constants, Calls, Tuples,
/// TupleGetItems, Lets and Ifs (nested closures' included, Primitive and
/// Compiler functions' not), in post-DFS order: every node after its inputs.
struct ForwardGraph {
  static constexpr uint32_t kNone = UINT32_MAX;

  /// An edge from a node to one of its users, with the pattern the user
  /// applies to it (a broadcast op applies kElemWise to an input of its own shape).
  struct Edge {
    uint32_t user;
    OpPattern pattern;
  };
  struct Node {
    const ExprNode* ref;
    /// Used where fusion cannot follow: a function's body or parameter, a
    /// let's parts, an if's parts, a callee, a tuple field that is no tensor.
    bool extern_ref = false;
    OpPattern pattern = OpPattern::kOpaque;
    std::vector<Edge> outputs;
  };

  std::vector<Node> nodes;
  std::unordered_map<const ExprNode*, uint32_t> index;
  /// Primitive and Compiler functions met inside, which fusion leaves as they are.
  std::vector<Expr> opaque_functions;

  /// The graph of `fn`. Every node must have a checked type: a weft::Error
  /// naming `pass` and the untyped expression otherwise.
  static ForwardGraph build(const Function& fn, const char* pass);
  uint32_t find(const ExprNode* e) const {
    auto it = index.find(e);
    return it == index.end() ? kNone : it->second;
  }
};

/// For each node, its immediate post-dominator (the closest node every path
/// from it to the function's result goes through) and the strongest pattern on
/// the way there. Built in one reverse pass: a node's post-dominator is the
/// least common ancestor of its users' nodes, found by binary lifting, so the
/// whole tree takes O(E log N) however deep the graph.
class PostDominatorTree {
 public:
  explicit PostDominatorTree(const ForwardGraph& graph);
  /// ForwardGraph::kNone for a node with no post-dominator (extern_ref, or
  /// users that reach the result by disjoint ways).
  uint32_t parent(uint32_t node) const { return parent_[node]; }
  /// The strongest (largest) pattern of the edges from `node` to its parent.
  OpPattern pattern(uint32_t node) const { return pattern_[node]; }

 private:
  // Ancestor 2^k levels up and the strongest pattern on the way, per level k.
  struct Jump {
    uint32_t to;
    OpPattern pattern;
  };
  uint32_t least_common_ancestor(uint32_t a, uint32_t b, OpPattern& pattern) const;
  Jump lift(uint32_t node, uint32_t levels) const;

  std::vector<uint32_t> parent_;
  std::vector<OpPattern> pattern_;
  std::vector<uint32_t> depth_;           // 1 for a root
  std::vector<std::vector<Jump>> jumps_;  // jumps_[k][node]
};

}  // namespace weft::fusion
