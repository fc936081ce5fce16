// A fused group compiled for the null target: its calls in evaluation order
// over numbered values (parameters, constants, intermediates), run with
// plain loops into scratch memory, the outputs copied out at the end.
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
  enum class Source { kParam, kConstant, kIntermediate };
  struct Value {
    Source source;
    size_t index;  // into the parameters, constants_ or a run's scratch
    Shape shape;
    int64_t numel;
  };
  struct Step {
    NullOp op;
    std::vector<size_t> inputs;  // value ids
    size_t output;               // value id
  };

  size_t add_value(Source source, size_t index, Shape shape);
  size_t add_constant(const DLTensor& data, const Shape& shape);

  std::vector<Value> values_;
  std::vector<Step> steps_;
  std::vector<size_t> params_, outputs_;  // value ids
  std::vector<size_t> packed_params_;
  std::vector<std::vector<float>> constants_;
  size_t num_intermediates_ = 0;
};

}  // namespace null_target
