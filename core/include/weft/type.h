// Relay types: TensorType (static or dynamic `?` dims, dtype), TupleType,
// FuncType and IncompleteType (a hole type inference fills in).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/dtype.h"
#include "weft/object.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

enum class TypeKind : uint8_t { kTensor, kTuple, kFunc, kIncomplete };

class TypeNode : public Object {
 public:
  const TypeKind kind;

 protected:
  explicit TypeNode(TypeKind k) : kind(k) {}
};
using Type = Ref<const TypeNode>;

/// A dimension: a non-negative extent, or kAnyDim for Relay's `?`.
using Dim = int64_t;
inline constexpr Dim kAnyDim = -1;

class TensorTypeNode : public TypeNode {
 public:
  TensorTypeNode(std::vector<Dim> shape, DataType dtype)
      : TypeNode(TypeKind::kTensor), shape(std::move(shape)), dtype(dtype) {}
  const std::vector<Dim> shape;
  const DataType dtype;

  int ndim() const { return static_cast<int>(shape.size()); }
  bool is_static() const;
  /// Product of the dims; kAnyDim if any is dynamic.
  int64_t numel() const;
};
using TensorType = Ref<const TensorTypeNode>;

class TupleTypeNode : public TypeNode {
 public:
  explicit TupleTypeNode(std::vector<Type> fields) : TypeNode(TypeKind::kTuple), fields(std::move(fields)) {}
  const std::vector<Type> fields;
};
using TupleType = Ref<const TupleTypeNode>;

class FuncTypeNode : public TypeNode {
 public:
  FuncTypeNode(std::vector<Type> params, Type ret)
      : TypeNode(TypeKind::kFunc), params(std::move(params)), ret(std::move(ret)) {}
  const std::vector<Type> params;
  const Type ret;
};
using FuncType = Ref<const FuncTypeNode>;

/// An unknown type. Each one is distinct (identity matters), as in Relay.
class IncompleteTypeNode : public TypeNode {
 public:
  IncompleteTypeNode() : TypeNode(TypeKind::kIncomplete) {}
};
using IncompleteType = Ref<const IncompleteTypeNode>;

// Builders.
TensorType tensor_type(std::vector<Dim> shape, DataType dtype = DataType::Float(32));
/// A 0-d tensor type: Relay's scalar.
TensorType scalar_type(DataType dtype);
TupleType tuple_type(std::vector<Type> fields);
FuncType func_type(std::vector<Type> params, Type ret);
IncompleteType incomplete_type();

/// Structural type equality (IncompleteTypes compare by identity).
bool type_equal(const Type& a, const Type& b);
size_t type_hash(const Type& t);
/// True when the type contains no IncompleteType.
bool is_complete(const Type& t);
/// The tensor types of a value of type t, tuples flattened depth-first (how
/// kernels get a tuple's tensors); empty for any other type.
std::vector<TensorType> flat_tensor_types(const Type& t);
/// flat_tensor_types(t).size().
size_t flat_tensor_count(const Type& t);
/// Relay text: "Tensor[(1, 3, ?), float32]", "(Tensor[...], Tensor[...])",
/// "fn (Tensor[...]) -> Tensor[...]", "_" for an incomplete type.
std::string type_to_text(const Type& t);

}  // namespace weft

#pragma GCC visibility pop
