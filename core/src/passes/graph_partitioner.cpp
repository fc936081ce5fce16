// The fusion phases over a union-find of groups, after Relay's
// GraphPartitioner. The path walks are iterative and reuse one visited mark
// per node (an epoch counter), and a group's size is counted only up to the
// depth limit, so each node's step touches at most max_depth nodes.
#include "graph_partitioner.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "weft/error.h"

namespace weft::fusion {

namespace {

constexpr uint32_t kNone = ForwardGraph::kNone;

class Partitioner {
 public:
  Partitioner(const ForwardGraph& graph, uint32_t max_depth, size_t max_function_args)
      : graph_(graph), max_depth_(max_depth), max_function_args_(max_function_args), visited_(graph.nodes.size(), 0) {
    groups_.reserve(graph.nodes.size());
    for (uint32_t i = 0; i < graph.nodes.size(); ++i) {
      OpPattern p = graph.nodes[i].pattern;
      groups_.push_back(Group{kNone, p, i, p == OpPattern::kOutEWiseFusable ? i : kNone, 1, initial_args(i)});
    }
  }

  void run(const PostDominatorTree& tree, int phase) {
    for (uint32_t n = 0; n < graph_.nodes.size(); ++n) step(tree, n, phase);
  }

  Partition result() {
    Partition p;
    for (uint32_t n = 0; n < groups_.size(); ++n) {
      uint32_t root = find_root(n);
      p.group.push_back(root);
      p.result.push_back(groups_[root].root_node == n);
    }
    return p;
  }

 private:
  struct Group {
    uint32_t parent;     // union-find link, kNone for a root
    OpPattern pattern;   // the group's, on its root
    uint32_t root_node;  // the node whose value the group returns
    uint32_t anchor;     // its out-elementwise-fusable node, if any
    uint32_t num_nodes;
    size_t args_num;     // the arguments its function takes, as far as counted
  };
  using Condition = std::function<bool(OpPattern kind, bool is_sink)>;

  void step(const PostDominatorTree& tree, uint32_t n, int phase) {
    postpone_node_ = kNone;
    fuse_postponed(tree, n);
    const Group& group = groups_[n];
    if (group.pattern == OpPattern::kOpaque) return;
    uint32_t dom = tree.parent(n);
    if (dom == kNone) return;
    if (fused_size_with(n, dom) > max_depth_) return;
    if (max_function_args_ > 0) {
      size_t limit = args_limit(n);
      if (limit > 0 && fused_args(n) > limit) return;
    }
    auto up_to = [](OpPattern limit) { return [limit](OpPattern kind, bool) { return kind <= limit; }; };
    if (phase == 2) {
      // Injective ops join an intermediate tuple that already fused into
      // injective consumers (never a group whose result is the tuple itself).
      if (group.pattern > OpPattern::kInjective) return;
      OpPattern dom_root = groups_[find_root(dom)].pattern;
      if (dom_root == OpPattern::kTuple) return;
      if (groups_[dom].pattern == OpPattern::kTuple && dom_root <= OpPattern::kInjective &&
          check_path(n, dom, up_to(OpPattern::kInjective)))
        commit_fuse(n, dom);
      return;
    }
    if (find_root(n) == find_root(dom)) return;
    if (groups_[dom].pattern == OpPattern::kTuple) return;  // tuples take fields in phase 2
    if (group.pattern == OpPattern::kOutEWiseFusable) {
      if (phase != 0) return;
      if (tree.pattern(n) == OpPattern::kElemWise && check_path(n, dom, up_to(OpPattern::kBroadcast)))
        commit_fuse(n, dom);
    } else if (group.pattern <= OpPattern::kBroadcast) {
      OpPattern via = tree.pattern(n);
      if (via > OpPattern::kInjective && via != OpPattern::kCommReduce) return;
      // Parallel branches may be injective; the sink may also be a reduction
      // or already anchored by a convolution.
      Condition cond = [](OpPattern kind, bool is_sink) {
        if (!is_sink) return kind <= OpPattern::kInjective;
        return kind <= OpPattern::kInjective || kind == OpPattern::kCommReduce || kind == OpPattern::kOutEWiseFusable;
      };
      if (check_path(n, dom, cond)) commit_fuse(n, dom);
    } else if (group.pattern == OpPattern::kInjective || group.pattern == OpPattern::kTuple) {
      // After phase 0, so that anchors finish absorbing first.
      if (phase == 1 && check_path(n, dom, up_to(OpPattern::kInjective))) commit_fuse(n, dom);
    }
    // A reduction fuses only as the sink of its inputs.
  }

  uint32_t find_root(uint32_t g) {
    uint32_t root = g;
    while (groups_[root].parent != kNone) root = groups_[root].parent;
    while (g != root) g = std::exchange(groups_[g].parent, root);
    return root;
  }

  void merge(uint32_t child, uint32_t parent) {
    child = find_root(child);
    parent = find_root(parent);
    if (child == parent) return;
    Group& c = groups_[child];
    Group& p = groups_[parent];
    p.num_nodes += c.num_nodes;
    p.args_num += c.args_num;
    c.parent = parent;
    if (c.anchor != kNone) {
      WEFT_ICHECK(p.anchor == kNone, "FuseOps merged two anchored groups");
      WEFT_ICHECK(c.pattern <= OpPattern::kBroadcast || p.pattern <= OpPattern::kBroadcast,
                  "FuseOps merged two complex groups");
      p.anchor = c.anchor;
      p.pattern = std::max(c.pattern, p.pattern);
    }
  }

  // Calls visit(node) for each node reachable from the users of `src` up to
  // and including `sink`, each once; stops early when visit returns false.
  template <typename F>
  bool walk_to(uint32_t src, uint32_t sink, F&& visit) {
    ++epoch_;
    stack_.clear();
    for (const auto& e : graph_.nodes[src].outputs) stack_.push_back(e.user);
    while (!stack_.empty()) {
      uint32_t n = stack_.back();
      stack_.pop_back();
      if (visited_[n] == epoch_) continue;
      visited_[n] = epoch_;
      if (!visit(n)) return false;
      if (n == sink) continue;
      for (const auto& e : graph_.nodes[n].outputs) stack_.push_back(e.user);
    }
    return true;
  }

  // Whether every node between src (excluded) and sink satisfies cond.
  bool check_path(uint32_t src, uint32_t sink, const Condition& cond) {
    return walk_to(src, sink, [&](uint32_t n) { return cond(groups_[find_root(n)].pattern, n == sink); });
  }

  // Merges src and everything between it and sink into sink's group, or, when
  // counting arguments met a group not counted yet, defers that to the step
  // of the node being counted.
  void commit_fuse(uint32_t src, uint32_t sink) {
    if (postpone_node_ != kNone) {
      postponed_.emplace(postpone_node_, src);
      return;
    }
    merge(src, sink);
    walk_to(src, sink, [&](uint32_t n) {
      if (n != sink) merge(n, sink);
      return true;
    });
  }

  // The size of sink's group once src and the nodes between join it, as
  // Relay counts it (each node brings its own group's count); counting stops
  // once it passes the limit.
  uint32_t fused_size_with(uint32_t src, uint32_t sink) {
    uint64_t total = groups_[find_root(sink)].num_nodes + groups_[src].num_nodes;
    walk_to(src, sink, [&](uint32_t n) {
      if (n != sink) total += groups_[n].num_nodes;
      return total <= max_depth_;
    });
    return static_cast<uint32_t>(std::min<uint64_t>(total, UINT32_MAX));
  }

  // ---- Relay's limit on a fused function's arguments (max_function_args) ----

  static const std::vector<Expr>& inputs_of(const ExprNode& e) {
    static const std::vector<Expr> none;
    if (e.kind == ExprKind::kCall) return static_cast<const CallNode&>(e).args;
    if (e.kind == ExprKind::kTuple) return static_cast<const TupleNode&>(e).fields;
    return none;
  }

  // The extra arguments a tensor with `?` extents takes: each extent, and
  // with strides as many again as it has dimensions.
  static size_t dynamic_args(const Type& type, bool with_strides) {
    if (!type || type->kind != TypeKind::kTensor) return 0;
    const auto& shape = static_cast<const TensorTypeNode&>(*type).shape;
    size_t any = static_cast<size_t>(std::count(shape.begin(), shape.end(), kAnyDim));
    return with_strides && any > 0 ? any + shape.size() : any;
  }

  // As Relay's InitGroups: a variable is an argument, and so is each variable
  // or projection a call or tuple takes.
  size_t initial_args(uint32_t n) const {
    const ExprNode& e = *graph_.nodes[n].ref;
    if (e.kind == ExprKind::kVar) return 1 + dynamic_args(e.checked_type(), true);
    size_t args = 0;
    for (const Expr& in : inputs_of(e))
      if (in->kind == ExprKind::kVar || in->kind == ExprKind::kTupleGetItem) args += 1 + dynamic_args(in->checked_type(), true);
    return args;
  }

  // Relay's CountArgs_: the arguments of src's group with the groups of its
  // inputs. An input group not counted yet postpones the fusion being
  // considered (update_postpone) or is counted from its node's own inputs, as
  // Relay's recursion does, here with an explicit stack.
  size_t count_args(uint32_t src, bool update_postpone) {
    struct Frame {
      uint32_t node;
      size_t next = 0;
      size_t sum;
      std::unordered_set<uint32_t> seen;  // root groups counted at this level
    };
    auto frame = [&](uint32_t n) { return Frame{n, 0, groups_[n].args_num, {find_root(n)}}; };
    std::vector<Frame> stack;
    stack.push_back(frame(src));
    while (true) {
      Frame& f = stack.back();
      const std::vector<Expr>& inputs = inputs_of(*graph_.nodes[f.node].ref);
      if (f.next == inputs.size()) {
        size_t sum = f.sum;
        stack.pop_back();
        if (stack.empty()) return sum;
        stack.back().sum += sum;
        continue;
      }
      const Expr& in = inputs[f.next++];
      uint32_t j = graph_.find(in.get());
      if (in->kind == ExprKind::kVar || j == kNone) continue;
      uint32_t prev = find_root(j);
      if (!f.seen.insert(prev).second) continue;
      if (groups_[prev].args_num > 0) f.sum += groups_[prev].args_num;
      else if (update_postpone) postpone_node_ = src;
      else stack.push_back(frame(j));
    }
  }

  // The arguments a function ending at `n` may take: the target's limit less
  // one output buffer per user (and its dynamic extents).
  size_t args_limit(uint32_t n) const {
    size_t outputs = 0;
    for (const auto& e : graph_.nodes[n].outputs) {
      const ExprNode& user = *graph_.nodes[e.user].ref;
      outputs += 1 + (user.kind == ExprKind::kCall ? dynamic_args(user.checked_type(), false) : 0);
    }
    return max_function_args_ > outputs ? max_function_args_ - outputs : 0;
  }

  size_t fused_args(uint32_t n) {
    size_t most = 0;
    for (const auto& e : graph_.nodes[n].outputs) most = std::max(most, count_args(e.user, true));
    return most;
  }

  // Fusions deferred to n's step, now that n's inputs are counted.
  void fuse_postponed(const PostDominatorTree& tree, uint32_t n) {
    auto [begin, end] = postponed_.equal_range(n);
    if (begin == end) return;
    std::vector<uint32_t> sources;
    for (auto it = begin; it != end; ++it) sources.push_back(it->second);
    postponed_.erase(n);
    for (uint32_t src : sources) {
      if (count_args(n, false) > args_limit(n)) continue;
      uint32_t sink = tree.parent(src);
      if (groups_[sink].anchor != kNone) continue;
      commit_fuse(src, sink);
    }
  }

  const ForwardGraph& graph_;
  uint32_t max_depth_;
  size_t max_function_args_;
  std::unordered_multimap<uint32_t, uint32_t> postponed_;  // node -> sources waiting for its step
  uint32_t postpone_node_ = kNone;
  std::vector<Group> groups_;
  std::vector<uint32_t> visited_;
  uint32_t epoch_ = 0;
  std::vector<uint32_t> stack_;
};

}  // namespace

Partition partition(const ForwardGraph& graph, int opt_level, uint32_t max_depth, size_t max_function_args) {
  Partitioner p(graph, max_depth, max_function_args);
  if (opt_level > 0) {
    PostDominatorTree tree(graph);
    for (int phase = 0; phase < 3; ++phase) p.run(tree, phase);
  }
  return p.result();
}

}  // namespace weft::fusion
