// TE tensors and the operations that produce them: placeholder (an input),
// compute (each element an expression of its indices, possibly a reduction),
// and pad (compute with a select on the bounds, as topi's pad). A tensor is
// output `value_index` of its operation; shapes are static.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weft/te/expr.h"
#include "weft/te/reduce.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

class OperationNode;
using Operation = Ref<const OperationNode>;

class TensorNode : public Object {
 public:
  TensorNode(Operation op, int value_index, std::vector<int64_t> shape, DataType dtype)
      : op(std::move(op)), value_index(value_index), shape(std::move(shape)), dtype(dtype) {}
  const Operation op;
  const int value_index;
  const std::vector<int64_t> shape;
  const DataType dtype;
};

/// A tensor handle; `x(i, j)` reads element (i, j) inside a compute.
class Tensor : public Ref<const TensorNode> {
 public:
  using Ref::Ref;
  Tensor() = default;

  const std::vector<int64_t>& shape() const { return get()->shape; }
  DataType dtype() const { return get()->dtype; }
  int ndim() const { return static_cast<int>(get()->shape.size()); }
  /// The operation's name, with the output index when it has several ("argmax.1").
  std::string name() const;

  /// A read of one element; Error when the index count is not the rank.
  PrimExpr operator()(std::vector<PrimExpr> indices) const;
  template <typename... Index>
  PrimExpr operator()(Index... indices) const {
    return (*this)(std::vector<PrimExpr>{PrimExpr(indices)...});
  }
};

enum class OpKind : uint8_t { kPlaceholder, kCompute };

class OperationNode : public Object {
 public:
  const OpKind kind;
  const std::string name;
  int num_outputs() const;
  /// Output i as a tensor. Tensors do not keep a list of their operation's
  /// outputs (that would be a reference cycle): two handles of one output
  /// are the same tensor when same_tensor says so.
  Tensor output(int i) const;

 protected:
  OperationNode(OpKind kind, std::string name) : kind(kind), name(std::move(name)) {}
};

/// Whether a and b are one output of one operation.
bool same_tensor(const Tensor& a, const Tensor& b);

class PlaceholderOpNode : public OperationNode {
 public:
  PlaceholderOpNode(std::string name, std::vector<int64_t> shape, DataType dtype)
      : OperationNode(OpKind::kPlaceholder, std::move(name)), shape(std::move(shape)), dtype(dtype) {}
  const std::vector<int64_t> shape;
  const DataType dtype;
};

/// output[value_index](axis...) = body[value_index]. The bodies are all
/// reductions of one combiner over `reduce_axis`, or none is a reduction.
class ComputeOpNode : public OperationNode {
 public:
  ComputeOpNode(std::string name, std::vector<IterVar> axis, std::vector<PrimExpr> body)
      : OperationNode(OpKind::kCompute, std::move(name)), axis(std::move(axis)), body(std::move(body)) {}
  const std::vector<IterVar> axis;
  const std::vector<PrimExpr> body;
  /// The reduction axes (empty for an injective compute).
  const std::vector<IterVar>& reduce_axis() const;
  /// The reduction of the body, or nullptr for an injective compute.
  const ReduceNode* reduction() const;
};

/// A tensor read T(indices) in a compute body.
class TensorReadNode : public PrimExprNode {
 public:
  TensorReadNode(Tensor tensor, std::vector<PrimExpr> indices)
      : PrimExprNode(PrimKind::kTensorRead, tensor.dtype()), tensor(std::move(tensor)), indices(std::move(indices)) {}
  const Tensor tensor;
  const std::vector<PrimExpr> indices;
};

/// An input tensor of shape x dtype. Error on a negative extent.
Tensor placeholder(std::vector<int64_t> shape, DataType dtype = DataType::Float(32), std::string name = "placeholder");

/// The tensor whose element at `indices` (one int32 Var per axis, named i, j for
/// rank <= 2 and i0, i1, ... beyond) is fcompute(indices).
Tensor compute(std::vector<int64_t> shape, const std::function<PrimExpr(const std::vector<Var>&)>& fcompute,
               std::string name = "compute");
/// A compute with several outputs of one shape (a tuple reduction such as argmax).
std::vector<Tensor> compute_multi(std::vector<int64_t> shape,
                                  const std::function<std::vector<PrimExpr>(const std::vector<Var>&)>& fcompute,
                                  std::string name = "compute");

/// The compute of `body` (one tensor per body) over the data-parallel axes
/// `axis` that the bodies index by their vars: what compute_multi builds once
/// it has made the axes, for callers that make them (the plugin boundary).
std::vector<Tensor> compute_over(std::vector<IterVar> axis, std::vector<PrimExpr> body, std::string name = "compute");

/// Every operation the outputs depend on, each once, producers before their
/// consumers (placeholders included), outputs' operations last.
std::vector<Operation> collect_operations(const std::vector<Tensor>& outputs);
/// The tensors an operation's bodies read, each once, in first-read order.
std::vector<Tensor> input_tensors(const Operation& op);

/// x padded by pad_before/pad_after elements per axis with pad_value: topi's
/// pad, a select on the input's bounds so no read leaves x.
Tensor pad(const Tensor& x, const std::vector<int64_t>& pad_before, const std::vector<int64_t>& pad_after,
           PrimExpr pad_value = PrimExpr(0), std::string name = "pad");

}  // namespace weft::te

#pragma GCC visibility pop
