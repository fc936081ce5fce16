// Helpers shared by the tensor-file readers and writers: errors that name the
// file, whole-file reads and writes, and shape arithmetic that cannot overflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/error.h"
#include "weft/tensor_io.h"

namespace weft::io {

/// "SOURCE: message"; `source` is a path or a name for bytes held in memory.
Error file_error(std::string_view source, std::string message);

/// A file opened for reading, which must be a regular file: a device, FIFO or
/// directory is a weft::Error naming it (an endless stream such as /dev/zero
/// would be read forever). Its size is known before anything is read, so a
/// reader checks what a header declares against it first.
class RegularFile {
 public:
  explicit RegularFile(const std::filesystem::path& path);
  uint64_t size() const { return size_; }
  /// The next `n` bytes, appended to `out`; a weft::Error naming the file if
  /// it ends (or fails) first.
  void read(size_t n, std::vector<std::byte>& out);

 private:
  std::string name_;
  std::ifstream in_;
  uint64_t size_ = 0;
};

/// The whole (regular) file; a weft::Error naming it when it cannot be read.
std::vector<std::byte> read_file_bytes(const std::filesystem::path& path);
/// Creates or replaces `path` with `bytes`; a weft::Error naming it on failure.
void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes);

/// The byte size of a tensor of `shape` with `itemsize`-byte elements, checked:
/// a negative dimension or a size that overflows 64 bits is a weft::Error
/// naming `source`. Readers compare it with the bytes they hold before
/// allocating, so a corrupt header cannot make them allocate or read past it.
uint64_t checked_nbytes(std::span<const int64_t> shape, size_t itemsize, std::string_view source);

/// The readers behind load_tensor_file(path, check): `check` (may be empty)
/// sees each tensor's header before its data is read or inflated.
Tensor load_npy_checked(const std::filesystem::path& path, const TensorHeaderCheck& check);
NamedTensors parse_npz_checked(std::span<const std::byte> bytes, std::string_view source_name,
                               const TensorHeaderCheck& check);

/// Writers take CPU tensors with unique names; anything else is a weft::Error.
void check_writable(const NamedTensors& tensors, std::string_view source);
void check_writable(const Tensor& tensor, std::string_view what, std::string_view source);

/// Makes every byte of a bool tensor 0 or 1 (files may hold any nonzero byte
/// for True; weft's kernels expect 1).
void normalize_bools(Tensor& tensor);

/// "(2, 3)": a shape for messages.
std::string shape_text(std::span<const int64_t> shape);

}  // namespace weft::io
