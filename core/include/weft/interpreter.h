// The interpreter: weft's reference ("debug") executor. It runs any function of
// a module on the ops' reference kernels, including tuples, lets, ifs,
// closures (functions as values) and calls between global functions. It is the
// oracle the compiled targets are checked against, so it favours plain
// correctness over speed.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "weft/expr.h"
#include "weft/module.h"
#include "weft/op.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct ClosureValue;

/// A runtime value: a tensor, a tuple of values, or a closure.
class Value {
 public:
  Value() = default;
  Value(Tensor t);  // NOLINT: a tensor is a value
  static Value tuple(std::vector<Value> fields);
  static Value closure(std::shared_ptr<const ClosureValue> c);

  bool is_tensor() const { return tensor_.defined(); }
  bool is_tuple() const { return fields_ != nullptr; }
  bool is_closure() const { return closure_ != nullptr; }

  /// The tensor; weft::Error if the value is not one (`what` names the use).
  const Tensor& tensor(const char* what = "value") const;
  const std::vector<Value>& fields() const;
  const std::shared_ptr<const ClosureValue>& closure() const { return closure_; }

  /// Tensors in order, tuples flattened depth-first (how outputs are saved).
  std::vector<Tensor> flatten() const;

 private:
  Tensor tensor_;
  std::shared_ptr<const std::vector<Value>> fields_;
  std::shared_ptr<const ClosureValue> closure_;
};

class Interpreter {
 public:
  /// Type-checks `mod` (running InferType); weft::Error if it does not.
  explicit Interpreter(const IRModule& mod);

  /// Calls global function `name` with `args` (one per parameter, in order).
  /// Argument shapes and dtypes must match the parameter types, where a `?`
  /// extent matches any; when a parameter has one, the function is typed again
  /// with the arguments' shapes in its parameter types (type inference re-run
  /// for this call), so every op gets a static output shape. A mismatch, bound
  /// shapes the program does not type-check with, an op without a reference
  /// kernel, or a kernel rejecting its input is a weft::Error naming the op and
  /// the expression.
  Value run(const std::string& name, const std::vector<Value>& args);
  Value run_main(const std::vector<Value>& args) { return run("main", args); }

  const IRModule& module() const { return mod_; }

 private:
  friend class Evaluator;
  /// The kernels of the module's op calls, each prepared on its call's first
  /// run (OpDef::kernel_for); shared by copies, which run the same module.
  struct CallKernels;
  IRModule mod_;
  std::shared_ptr<CallKernels> kernels_;
};

/// Runs one op call on its reference kernel, given its argument values (tuple
/// arguments are passed as their fields) and its output type, whose shapes must
/// be static. What InferType gave the call is not consulted, so a caller that
/// knows the output type (FoldConstant, from the op's relation) needs no typed
/// module. weft::Error naming the op when it has no kernel, the output type is
/// dynamic, or the kernel rejects its input. `kernel`: the one prepared for
/// this call (OpDef::kernel_for) by a caller that runs it again; empty: the
/// op's kernel.
Value run_op(const Call& call, const std::vector<Value>& args, const Type& out_type,
             const ReferenceKernel& kernel = {});

/// Runs op call `call`'s reference kernel on tensors the caller allocated:
/// `inputs` one per argument tensor (a tuple argument's fields in order),
/// `outputs` one per output tensor (a tuple output flattened). The errors are
/// run_op's, naming the op and the call, and `kernel` is as there. The `ref`
/// target runs groups so, with the kernels it prepared when it compiled them.
void run_kernel(const Call& call, std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                const ReferenceKernel& kernel = {});

/// `mod` (type-inferred) with its function `name` re-typed for `args` (one per
/// parameter, in order, already checked against the parameter types): each
/// parameter whose type has a `?` extent takes the argument's type, and a
/// return annotation with `?` is dropped so that inference derives it. Kernels
/// need every output shape, and Relay's output shapes follow from its argument
/// types only; the interpreter runs such a function this way, and a compiler
/// builds it so. The result still needs type inference, which fails with a
/// weft::Error where the bound shapes do not fit the program.
IRModule bind_argument_types(const IRModule& mod, const std::string& name, const std::vector<Value>& args);

/// Evaluates a closed expression (no free variables), e.g. in tests.
Value evaluate(const Expr& expr);

}  // namespace weft

#pragma GCC visibility pop
