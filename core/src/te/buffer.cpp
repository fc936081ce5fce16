#include "weft/te/buffer.h"

namespace weft::te {

int64_t BufferNode::storage_elements() const {
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return 0;
    last += (shape[d] - 1) * strides[d];
  }
  return last + 1;
}

Buffer make_buffer(std::string name, DataType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  if (strides.empty()) {
    strides.assign(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  }
  if (strides.size() != shape.size()) {
    throw Error("buffer '" + name + "' has " + std::to_string(strides.size()) + " strides for rank " +
                std::to_string(shape.size()))
        .expected("one stride per axis");
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0 || strides[d] < 0) {
      throw Error("buffer '" + name + "' has a negative extent or stride on axis " + std::to_string(d));
    }
  }
  return make_ref<BufferNode>(std::move(name), dtype, std::move(shape), std::move(strides));
}

PrimExpr buffer_load(Buffer buffer, std::vector<PrimExpr> indices) {
  if (indices.size() != buffer->shape.size()) {
    throw Error("load from buffer '" + buffer->name + "' with " + std::to_string(indices.size()) + " indices")
        .expected(std::to_string(buffer->shape.size()) + ", its rank");
  }
  for (PrimExpr& i : indices) {
    if (!i || i.dtype().is_float() || i.dtype().is_bool()) {
      throw Error("load from buffer '" + buffer->name + "' with a non-integer index").expected("integer indices");
    }
  }
  return make_ref<BufferLoadNode>(std::move(buffer), std::move(indices));
}

}  // namespace weft::te
