// Runtime tensors: aligned storage, element conversion and DLPack views.
#include "weft/tensor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "weft/error.h"
#include "weft/limits.h"

namespace weft {

namespace {

// What every copy of a tensor shares: the bytes, the owner of foreign memory,
// and the shape the DLPack view points at (so a view outlives the Tensor it came
// from as long as any copy lives).
struct Storage {
  void* buffer = nullptr;  // owned when keep_alive is empty
  /// What holds the buffer when this storage does not: a DLPack owner, or
  /// the storage a reshaped view shares.
  std::shared_ptr<void> keep_alive;
  std::vector<int64_t> shape;
  /// weft allocated the buffer (here, or in the storage a view shares).
  bool weft_allocated = false;
  ~Storage() {
    if (!keep_alive) std::free(buffer);
  }
};

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    // Zero or subnormal: value = mant * 2^-24.
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return sign;
    // Subnormal: shift the implicit-one mantissa, rounding to nearest even.
    mant |= 0x800000;
    int shift = 14 - e;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(sign | half);
}

uint16_t float_to_bfloat(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

Error not_cpu(const char* what) {
  return Error(std::string(what) + " needs a tensor in CPU memory").expected("a tensor on device kDLCPU");
}

}  // namespace

Tensor Tensor::empty(std::vector<int64_t> shape, DataType dtype) {
  for (int64_t d : shape)
    if (d < 0) throw Error("negative dimension " + std::to_string(d) + " in a tensor shape");
  const auto checked_bytes = static_cast<size_t>(checked_tensor_bytes(shape, dtype));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  auto storage = std::make_shared<Storage>();
  // aligned_alloc wants a multiple of the alignment; a 0-byte tensor still gets
  // a block so data() is a valid, aligned pointer.
  size_t bytes = (checked_bytes + kAlignment - 1) / kAlignment * kAlignment;
  storage->buffer = std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes);
  if (!storage->buffer) {
    t.storage_ = storage;  // defined, so describe() shows its shape
    throw Error("out of memory: cannot allocate " + std::to_string(checked_bytes) + " bytes for " + describe(t));
  }
  storage->shape = t.shape_;
  storage->weft_allocated = true;
  t.data_ = storage->buffer;
  t.storage_ = std::move(storage);
  return t;
}

Tensor Tensor::zeros(std::vector<int64_t> shape, DataType dtype) {
  Tensor t = empty(std::move(shape), dtype);
  std::memset(t.data_, 0, t.nbytes());
  return t;
}

Tensor Tensor::from_bytes(std::vector<int64_t> shape, DataType dtype, std::span<const std::byte> bytes) {
  Tensor t = empty(std::move(shape), dtype);
  if (bytes.size() != t.nbytes())
    throw Error("got " + std::to_string(bytes.size()) + " bytes for " + describe(t))
        .expected(std::to_string(t.nbytes()) + " bytes");
  std::memcpy(t.data_, bytes.data(), bytes.size());
  return t;
}

Tensor Tensor::scalar(double value, DataType dtype) {
  if (dtype.lanes != 1) throw Error("a scalar cannot have vector dtype " + dtype.str());
  Tensor t = empty({}, dtype);
  void* p = t.data_;
  switch (dtype.code) {
    case DataType::kFloat:
      if (dtype.bits == 16) *static_cast<uint16_t*>(p) = float_to_half(static_cast<float>(value));
      else if (dtype.bits == 32) *static_cast<float*>(p) = static_cast<float>(value);
      else *static_cast<double*>(p) = value;
      return t;
    case DataType::kBFloat:
      *static_cast<uint16_t*>(p) = float_to_bfloat(static_cast<float>(value));
      return t;
    case DataType::kInt:
      switch (dtype.bits) {
        case 8: *static_cast<int8_t*>(p) = static_cast<int8_t>(value); return t;
        case 16: *static_cast<int16_t*>(p) = static_cast<int16_t>(value); return t;
        case 32: *static_cast<int32_t*>(p) = static_cast<int32_t>(value); return t;
        case 64: *static_cast<int64_t*>(p) = static_cast<int64_t>(value); return t;
      }
      break;
    case DataType::kUInt:
      switch (dtype.bits) {
        case 1: *static_cast<uint8_t*>(p) = value != 0 ? 1 : 0; return t;
        case 8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(value); return t;
        case 16: *static_cast<uint16_t*>(p) = static_cast<uint16_t>(value); return t;
        case 32: *static_cast<uint32_t*>(p) = static_cast<uint32_t>(value); return t;
        case 64: *static_cast<uint64_t*>(p) = static_cast<uint64_t>(value); return t;
      }
      break;
  }
  throw Error("cannot hold a number in dtype " + dtype.str()).expected("a float, int, uint or bool dtype");
}

Tensor Tensor::from_dlpack(const DLTensor& view, std::shared_ptr<void> keep_alive) {
  DataType dtype{view.dtype.code, view.dtype.bits, view.dtype.lanes};
  std::vector<int64_t> shape(view.shape, view.shape + view.ndim);
  for (int64_t d : shape)
    if (d < 0) throw Error("negative dimension " + std::to_string(d) + " in a DLPack tensor");
  checked_tensor_bytes(shape, dtype);  // nbytes() and numel() below must not overflow
  if (view.strides) {
    // Compact C order: the innermost stride is 1, each outer one the product of
    // the extents inside it (extent-1 dims may carry any stride).
    int64_t expected = 1;
    for (int i = view.ndim - 1; i >= 0; --i) {
      if (shape[i] != 1 && view.strides[i] != expected)
        throw Error("DLPack tensor is not compact and C-ordered (dim " + std::to_string(i) + " has stride " +
                    std::to_string(view.strides[i]) + ")")
            .expected("stride " + std::to_string(expected));
      expected *= shape[i];
    }
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.device_ = Device{view.device.device_type, view.device.device_id};
  auto storage = std::make_shared<Storage>();
  storage->buffer = static_cast<char*>(view.data) + view.byte_offset;
  // Without an owner the caller guarantees the memory outlives every copy; an
  // empty-deleter owner marks the buffer as not ours to free.
  storage->keep_alive = keep_alive ? std::move(keep_alive) : std::shared_ptr<void>(view.data, [](void*) {});
  storage->shape = std::move(shape);
  t.data_ = storage->buffer;
  t.storage_ = std::move(storage);
  return t;
}

bool Tensor::owns_memory() const { return storage_ && static_cast<const Storage*>(storage_.get())->weft_allocated; }

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  WEFT_ICHECK(defined(), "reshaped view of an undefined tensor");
  for (int64_t d : shape)
    if (d < 0) throw Error("negative dimension " + std::to_string(d) + " in a tensor shape");
  if (static_cast<size_t>(checked_tensor_bytes(shape, dtype_)) != nbytes()) {
    std::string text;
    for (int64_t d : shape) text += (text.empty() ? "" : ", ") + std::to_string(d);
    throw Error("cannot view " + describe(*this) + " as shape (" + text + ")")
        .expected("a shape of " + std::to_string(numel()) + " elements");
  }
  Tensor t;
  t.dtype_ = dtype_;
  t.shape_ = std::move(shape);
  t.device_ = device_;
  // Its own storage record, for the shape DLPack views point at; the buffer
  // stays the original's, which this keeps alive.
  auto storage = std::make_shared<Storage>();
  storage->buffer = data_;
  storage->keep_alive = storage_;
  storage->shape = t.shape_;
  storage->weft_allocated = static_cast<const Storage*>(storage_.get())->weft_allocated;
  t.data_ = data_;
  t.storage_ = std::move(storage);
  return t;
}

int64_t Tensor::numel() const {
  // The shape was checked when the tensor was made; see TensorTypeNode::numel.
  if (std::find(shape_.begin(), shape_.end(), 0) != shape_.end()) return 0;
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

DLTensor Tensor::dlpack_view() const {
  WEFT_ICHECK(defined(), "dlpack_view of an undefined tensor");
  auto* storage = static_cast<Storage*>(storage_.get());
  DLTensor v{};
  v.data = data_;
  v.device = DLDevice{device_.type, device_.id};
  v.ndim = ndim();
  v.dtype = DLDataType{dtype_.code, dtype_.bits, dtype_.lanes};
  v.shape = storage->shape.data();
  v.strides = nullptr;  // compact, C order
  v.byte_offset = 0;
  return v;
}

Tensor Tensor::clone() const {
  if (!defined()) return {};
  if (device_.type != kDLCPU) throw not_cpu("clone");
  Tensor t = empty(shape_, dtype_);
  if (nbytes()) std::memcpy(t.data_, data_, nbytes());  // an empty tensor may hold no buffer
  return t;
}

double Tensor::element_as_double(int64_t i) const {
  if (device_.type != kDLCPU) throw not_cpu("element_as_double");
  WEFT_ICHECK(i >= 0 && i < numel(), "element index " + std::to_string(i) + " out of range");
  WEFT_ICHECK(dtype_.lanes == 1, "element_as_double on a vector dtype");
  const char* p = static_cast<const char*>(data_) + static_cast<size_t>(i) * dtype_.bytes();
  auto load = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (dtype_.code) {
    case DataType::kFloat:
      if (dtype_.bits == 16) return half_to_float(load(uint16_t{}));
      if (dtype_.bits == 32) return load(float{});
      if (dtype_.bits == 64) return load(double{});
      break;
    case DataType::kBFloat:
      return std::bit_cast<float>(static_cast<uint32_t>(load(uint16_t{})) << 16);
    case DataType::kInt:
      switch (dtype_.bits) {
        case 8: return load(int8_t{});
        case 16: return load(int16_t{});
        case 32: return load(int32_t{});
        case 64: return static_cast<double>(load(int64_t{}));
      }
      break;
    case DataType::kUInt:
      switch (dtype_.bits) {
        case 1:
        case 8: return load(uint8_t{});
        case 16: return load(uint16_t{});
        case 32: return load(uint32_t{});
        case 64: return static_cast<double>(load(uint64_t{}));
      }
      break;
  }
  throw Error("cannot read elements of dtype " + dtype_.str() + " as numbers");
}

bool Tensor::bitwise_equal(const Tensor& other) const {
  if (defined() != other.defined()) return false;
  if (!defined()) return true;
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (device_.type != kDLCPU || other.device_.type != kDLCPU) throw not_cpu("bitwise_equal");
  return data_ == other.data_ || std::memcmp(data_, other.data_, nbytes()) == 0;
}

std::string describe(const Tensor& t) {
  if (!t.defined()) return "Tensor[undefined]";
  std::string out = "Tensor[(";
  for (int i = 0; i < t.ndim(); ++i) {
    if (i) out += ", ";
    out += std::to_string(t.shape()[i]);
  }
  return out + "), " + t.dtype().str() + "]";
}

}  // namespace weft
