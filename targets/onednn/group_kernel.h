// A fused group compiled for oneDNN: a short list of primitives, each an
// anchor (convolution, deconvolution, matrix product), an eltwise, a binary
// op, a pooling, a softmax, a concat or a reorder (layout_transform), with
// the calls that follow it fused as post-ops (eltwise, sum for a residual
// add, binary) and a constant per-channel add folded into its bias.
// Primitives are created and constant weights reordered into the layout
// each primitive asks for once, at compile; a launch only executes.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithm_choice.h"
#include "memory_view.h"

namespace onednn_target {

class GroupKernel {
 public:
  /// Compiles a typed Primitive function; `constants` holds, per parameter,
  /// the tensor it is bound to (read here, not kept); `tuning` says how each
  /// convolution's implementation is chosen. Throws sdk::Unsupported naming
  /// the call oneDNN does not run.
  static std::shared_ptr<const GroupKernel> compile(const dnnl::engine& engine, const weft::sdk::Expr& primitive,
                                                    const std::vector<std::optional<weft::sdk::TensorView>>& constants,
                                                    const TuningOptions& tuning);

  /// How much a launch of the group computes (its anchors' multiply-
  /// accumulates, its other primitives' dst elements), from a plan of it:
  /// no primitive is created.
  static size_t work(const dnnl::engine& engine, const weft::sdk::Expr& primitive,
                     const std::vector<std::optional<weft::sdk::TensorView>>& constants);

  /// Runs the group once on zero-filled arguments, so the first launch pays
  /// no first-touch or first-run costs.
  void warm_up(const dnnl::engine& engine) const;

  /// Plans `call` alone (its arguments as parameters) and creates its
  /// primitive descriptor, but no primitive and no reordered weights (the
  /// group's compile makes those once): throws sdk::Unsupported saying why
  /// when oneDNN does not run it.
  static void check_call(const dnnl::engine& engine, const weft::sdk::Expr& call);

  /// Runs the group on `args` (its parameters, then its outputs, in host
  /// memory). Thread-safe: intermediates and scratchpads are per run.
  void run(const dnnl::engine& engine, const std::vector<weft::sdk::TensorView>& args) const;

  /// The primitives in order with the calls each runs and how each fused
  /// one is fused: "convolution(nn.conv2d, add as bias, add as sum,
  /// nn.relu as eltwise)".
  std::string summary() const;

  size_t num_primitives() const { return steps_.size(); }

  /// Per parameter: whether a launch reads its argument. A constant one it
  /// does not read was packed (reordered weights, folded bias) or is unused.
  std::vector<bool> params_read_at_launch() const;

  /// The parameter the group's one output may be written over: the addend
  /// of the sum post-op of the primitive writing that output, where no other
  /// primitive reads it (oneDNN's sum reads each dst element before the
  /// primitive writes it, so the copy of the addend into the dst goes away).
  std::optional<size_t> inplace_parameter() const;

  /// The bytes of what it holds from constants: reordered weights, folded
  /// biases and the constants of its body.
  size_t constant_bytes() const;

  /// The tensors reordered around the primitives at each run (a src, a
  /// run-time weight or a dst in another layout than oneDNN's kernel reads).
  size_t num_relayouts() const;

 private:
  friend class GroupBuilder;
  /// compile's work; `tuning` null: a plan only (GroupBuilder says what that leaves out).
  static std::shared_ptr<GroupKernel> build(const dnnl::engine& engine, const weft::sdk::Expr& primitive,
                                            const std::vector<std::optional<weft::sdk::TensorView>>& constants,
                                            const TuningOptions* tuning);
  enum class Source { kParam, kConstant, kIntermediate };
  struct Value {
    Source source = Source::kParam;
    size_t index = 0;  // parameter, constants_ entry, or byte offset in a run's scratch
    Shape shape;
    std::optional<size_t> output;  // the output it is written to directly
  };
  /// A primitive argument read from (or written to) a value.
  struct Binding {
    int arg;
    size_t value;
    dnnl::memory::desc desc;
  };
  /// An anchor's src, run-time weight or dst in the layout oneDNN picked for
  /// it (NHWC or blocked), at `offset` in the run's scratch block, reordered
  /// from or to the value's own layout around the primitive.
  struct Relayout {
    int arg = 0;
    size_t value = 0;
    dnnl::memory::desc own, chosen;
    dnnl::primitive to_chosen, to_own;  // to_own only for a dst
    size_t offset = 0;
  };
  /// A concatenation of row-major tensors: along the axis, each source is one
  /// contiguous chunk per index of the axes before it, copied into place.
  struct ConcatCopy {
    size_t outer = 1;                                  // the product of the extents before the axis
    std::vector<std::pair<size_t, size_t>> sources;    // value, floats per chunk
  };
  /// Copies each source's chunks into their place in `dst` (data: per value).
  static void concatenate(const ConcatCopy& copy, const std::vector<float*>& data, float* dst);
  struct Step;
  /// The values `step` reads at a launch, once per read.
  static std::vector<size_t> values_read(const Step& step);
  struct Step {
    dnnl::primitive primitive;
    std::optional<ConcatCopy> concat_copy;  // run by memcpy instead of the primitive
    std::vector<Binding> bindings;
    std::vector<std::pair<int, dnnl::memory>> packed;  // reordered weights, folded bias
    std::optional<size_t> sum_addend;  // copied into the dst first (the sum post-op adds it)
    std::vector<Relayout> input_relayouts;
    std::optional<Relayout> dst_relayout;
    size_t dst = 0;
    dnnl::memory::desc scratchpad;
    std::string summary;
  };

  std::vector<Value> values_;
  std::vector<Step> steps_;
  std::vector<size_t> outputs_;  // value ids
  size_t num_params_ = 0;
  std::vector<std::vector<float>> constants_;
  size_t intermediate_bytes_ = 0, scratchpad_bytes_ = 0;
  size_t work_ = 0;
};

}  // namespace onednn_target
