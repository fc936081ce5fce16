// A fused group compiled for the null target: its steps (sdk::GroupSteps,
// the calls in evaluation order over numbered values), run with plain loops
// into scratch memory, the outputs copied out at the end.
#pragma once

#include <weft/plugin.hpp>

#include <optional>
#include <string>
#include <vector>

#include "loops.h"

namespace null_target {

/// The ops the null target runs.
enum class NullOp { kAdd, kRelu, kDense };

/// The op of `call` when the null target runs it: add, nn.relu or nn.dense
/// with float32 arguments and result of static shapes; nullopt otherwise.
std::optional<NullOp> runnable_op(const weft::sdk::Expr& call);

class GroupProgram {
 public:
  /// Compiles a typed Primitive function; `constants` holds, per parameter,
  /// the tensor it is bound to (copied), if any. Throws sdk::Unsupported,
  /// naming what it met, for anything but its parameters, float32 constants,
  /// runnable calls and a tuple of outputs at the root.
  static GroupProgram compile(const weft::sdk::Expr& primitive,
                              const std::vector<std::optional<weft::sdk::TensorView>>& constants);

  /// The parameters bound to constants, which compile copied: a launch
  /// passes them with data null and run does not read them.
  const std::vector<size_t>& packed_params() const { return packed_params_; }

  /// Runs the group: `args` are its parameters, then its outputs, in host
  /// memory. Thread-safe (scratch memory is per run).
  void run(const std::vector<weft::sdk::TensorView>& args) const;

  /// The ops of its calls in order, for messages: "add, nn.relu".
  std::string summary() const;

 private:
  explicit GroupProgram(weft::sdk::GroupSteps steps) : steps_(std::move(steps)) {}

  /// Where a run finds each value: its launch argument, a copied constant or
  /// its step's scratch.
  struct Place {
    weft::sdk::GroupValue::Source source;
    size_t index;  // the argument, into constants_, or into the run's scratch
    Shape shape;
    int64_t numel;
  };

  weft::sdk::GroupSteps steps_;
  std::vector<NullOp> ops_;  // per step
  std::vector<Place> places_;  // per value
  std::vector<size_t> packed_params_;
  std::vector<std::vector<float>> constants_;
};

}  // namespace null_target
