// Schedules: how the stages of a TE graph become loops, as TVM's te.Schedule.
// A stage starts with one loop per axis of its operation (data axes, then
// reduce axes) and is reshaped by the primitives: split, fuse and reorder
// change the loop nest, vectorize/unroll/parallel mark loops, compute_inline
// substitutes an injective stage into its consumers. Every primitive keeps
// what the stage computes; lower() turns the result into loop IR.
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/te/loop_ir.h"
#include "weft/te/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// How a derived loop relates to the ones it came from.
struct IterRelation {
  enum Kind : uint8_t { kSplit, kFuse } kind;
  IterVar parent;  // split: the loop split; fuse: the fused result
  IterVar outer, inner;
  int64_t factor = 0;     // split only: inner's extent
  bool predicated = true;  // split only: guarded where factor does not divide
};

/// Whether a split that does not divide its loop guards the body (TVM's
/// disable_predication). Without the guard the last outer iteration runs past
/// the loop's end: for a writer who knows better, and the bounds check holds
/// them to it.
enum class Predication : uint8_t { kGuarded, kDisabled };

class Stage {
 public:
  explicit Stage(Operation op);

  const Operation& op() const { return op_; }
  /// The loops from outermost to innermost.
  const std::vector<IterVar>& leaf_iter_vars() const { return leaves_; }
  const std::vector<IterRelation>& relations() const { return relations_; }
  /// The kind of loop `iv` lowers to (serial unless marked).
  ForKind for_kind(const IterVar& iv) const;
  bool inlined() const { return inlined_; }
  /// What the stage computes per element: its operation's bodies, or after
  /// Schedule::cache_write a copy from the cache stage.
  const std::vector<PrimExpr>& body() const { return body_; }
  /// The reduction of body(), or nullptr; and its axes (empty when none).
  const ReduceNode* reduction() const;
  const std::vector<IterVar>& reduce_axis() const;

  /// Splits loop `parent` into outer (extent ceil(n / factor)) and inner
  /// (extent factor); where factor does not divide n the body is guarded.
  std::pair<IterVar, IterVar> split(const IterVar& parent, int64_t factor,
                                    Predication predication = Predication::kGuarded);
  /// split() into `nparts` outer iterations (inner extent ceil(n / nparts)).
  std::pair<IterVar, IterVar> split_by_nparts(const IterVar& parent, int64_t nparts,
                                              Predication predication = Predication::kGuarded);
  /// Fuses adjacent loops outer and inner (outer just outside inner, both data
  /// or both reduce) into one of their extents' product.
  IterVar fuse(const IterVar& outer, const IterVar& inner);
  /// Puts the given loops in this order, in the positions they hold now.
  void reorder(const std::vector<IterVar>& order);
  /// Marks a data-parallel loop as the lanes of a vector.
  void vectorize(const IterVar& iv);
  void unroll(const IterVar& iv);
  /// Marks a data-parallel loop to run on several cores.
  void parallel(const IterVar& iv);
  /// Computes this injective stage inside its consumers instead of into a buffer.
  void compute_inline();
  /// Computes this stage inside loop `at` of `consumer`: at each iteration
  /// of the loops down to `at`, the part of this stage that the consumer reads
  /// under `at` (all of it where the reads' indices are not affine in the
  /// inner loops). The stage's loops are then one per axis over that part:
  /// reorder, vectorize, unroll and parallel apply to them, split and fuse do
  /// not. Error for an output stage or a consumer that is itself attached.
  void compute_at(const Stage& consumer, const IterVar& at);
  /// The consumer and loop of compute_at (null when not attached).
  const Operation& attached_to() const { return attach_op_; }
  const IterVar& attach_loop() const { return attach_loop_; }

 private:
  size_t leaf_position(const IterVar& iv, const char* primitive) const;
  void mark(const IterVar& iv, ForKind kind, const char* primitive);
  void require_unattached(const char* primitive) const;

  Operation op_;
  std::vector<IterVar> leaves_;
  std::vector<IterRelation> relations_;
  std::unordered_map<const IterVarNode*, ForKind> kinds_;
  bool inlined_ = false;
  Operation attach_op_;
  IterVar attach_loop_;
  std::vector<PrimExpr> body_;
  bool cached_ = false;  // cache_write made body_ a copy
  friend class Schedule;  // cache_write rewrites a stage's body and loops
};

class Schedule {
 public:
  /// The default schedule of the graph computing `outputs`: every stage its
  /// own loop nest, loops in axis order, all serial.
  explicit Schedule(std::vector<Tensor> outputs);

  const std::vector<Tensor>& outputs() const { return outputs_; }
  /// The stages, producers before consumers (placeholders included).
  const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }
  /// The stage of t's operation; Error when t is not in the graph.
  Stage& operator[](const Tensor& t);
  const Stage& stage(const Operation& op) const;
  bool is_output(const Operation& op) const;
  /// TVM's cache_write: a new stage `NAME.local` computes t's operation into a
  /// scratch buffer, and t's stage becomes a copy of it (one loop per axis).
  /// Returns the cache tensor (output 0 of the cache stage), to schedule, e.g.
  /// compute_at into t's stage so a tile accumulates locally. Error when t's
  /// stage was already scheduled (loops changed, inlined, attached).
  std::vector<Tensor> cache_write(const Tensor& t);

 private:
  std::vector<Tensor> outputs_;
  std::vector<std::unique_ptr<Stage>> stages_;
};

}  // namespace weft::te

#pragma GCC visibility pop
