// Runtime tensors: dtype, shape, device and 64-byte aligned, reference-counted
// storage, with DLPack views for crossing the plugin boundary.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "weft/dtype.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct Device {
  DLDeviceType type = kDLCPU;
  int id = 0;
  friend bool operator==(const Device&, const Device&) = default;
};

/// A dense, C-ordered tensor. Copies share storage (like a numpy view of the
/// whole array); use clone() for a deep copy.
class Tensor {
 public:
  static constexpr size_t kAlignment = 64;

  Tensor() = default;
  /// Allocates uninitialized storage for shape x dtype on the CPU.
  static Tensor empty(std::vector<int64_t> shape, DataType dtype);
  static Tensor zeros(std::vector<int64_t> shape, DataType dtype);
  /// Copies `bytes` into a new tensor; bytes.size() must equal the tensor's size.
  static Tensor from_bytes(std::vector<int64_t> shape, DataType dtype, std::span<const std::byte> bytes);
  /// A 0-d tensor holding one value (converted to dtype).
  static Tensor scalar(double value, DataType dtype);

  /// Wraps DLPack memory without copying; `keep_alive` owns it and is released
  /// with the last copy of this tensor. The tensor must be compact and C-ordered.
  static Tensor from_dlpack(const DLTensor& view, std::shared_ptr<void> keep_alive);

  bool defined() const { return storage_ != nullptr; }
  /// How many handles share this tensor's storage (copies, views, DLPack
  /// exports): with 1, nothing else can read a write into it.
  long use_count() const { return storage_.use_count(); }
  /// Whether weft allocated this storage (empty, zeros, from_bytes, clone):
  /// memory wrapped from DLPack is the caller's, maybe read-only, and is never
  /// written behind its back.
  bool owns_memory() const;
  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_.bytes(); }
  Device device() const { return device_; }

  void* data() const { return data_; }
  template <typename T>
  T* data_as() const { return static_cast<T*>(data_); }

  /// The same bytes under `shape`, which must have as many elements: a view,
  /// so a write through either shows in both, that keeps this storage alive
  /// and is weft's own memory exactly when this tensor is.
  Tensor reshaped(std::vector<int64_t> shape) const;
  /// A DLTensor describing this tensor; valid while this Tensor (or a copy) lives.
  DLTensor dlpack_view() const;
  Tensor clone() const;
  /// Element i (flat, C order) converted to double; for tests and printing.
  double element_as_double(int64_t i) const;
  /// Byte-wise equality of dtype, shape and contents.
  bool bitwise_equal(const Tensor& other) const;

 private:
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
  DataType dtype_;
  std::vector<int64_t> shape_;
  Device device_;
};

/// "Tensor[(1, 3), float32]"-style description, for messages.
std::string describe(const Tensor& t);

}  // namespace weft

#pragma GCC visibility pop
