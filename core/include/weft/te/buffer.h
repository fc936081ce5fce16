// Buffers of lowered code: flat storage of one dtype with a shape and element
// strides (row-major unless given), and the expression that loads from one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/te/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

class BufferNode : public Object {
 public:
  BufferNode(std::string name, DataType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides)
      : name(std::move(name)), dtype(dtype), shape(std::move(shape)), strides(std::move(strides)) {}
  const std::string name;
  const DataType dtype;
  const std::vector<int64_t> shape;
  const std::vector<int64_t> strides;  // in elements, one per axis
  /// Elements the storage holds: 1 + sum((shape[d] - 1) * strides[d]) (0 when empty).
  int64_t storage_elements() const;
};
using Buffer = Ref<const BufferNode>;

/// A buffer of `shape`, row-major unless `strides` are given (one per axis).
Buffer make_buffer(std::string name, DataType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {});

/// buffer[indices]: the element at sum(indices[d] * strides[d]).
class BufferLoadNode : public PrimExprNode {
 public:
  BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices)
      : PrimExprNode(PrimKind::kBufferLoad, buffer->dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}
  const Buffer buffer;
  const std::vector<PrimExpr> indices;
};

PrimExpr buffer_load(Buffer buffer, std::vector<PrimExpr> indices);

}  // namespace weft::te

#pragma GCC visibility pop
