// The .npy header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// read with a small parser for exactly the literals NumPy writes (strings,
// True/False, tuples of ints), and written byte for byte as NumPy writes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/dtype.h"

namespace weft::io {

struct NpyHeader {
  DataType dtype;
  /// The data is big-endian ('>' in descr) and must be byte-swapped.
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

/// Parses the dict text. `allow_long_suffix`: versions 1.0 and 2.0 may come
/// from Python 2, whose ints print as `3L`. Errors name `source`.
NpyHeader parse_npy_header(std::string_view text, bool allow_long_suffix, std::string_view source);

/// Where a .npy's data starts and how many bytes its header declares.
struct NpyLayout {
  NpyHeader header;
  size_t data_offset = 0;
  uint64_t nbytes = 0;
};

/// The most bytes a .npy can have before its data: the magic, version, header
/// length and the longest header NumPy accepts.
inline constexpr size_t kNpyMaxPrefix = 8 + 4 + 10000;

/// Reads the magic, version, header length and header from the start of a
/// .npy of `total_size` bytes; `bytes` needs to hold only the first
/// min(total_size, kNpyMaxPrefix) of them. The declared size is checked to
/// fit in 64 bits, so a reader can compare it with what it holds before it
/// reads, inflates or allocates any data. Errors name `source`.
NpyLayout parse_npy_layout(std::span<const std::byte> bytes, uint64_t total_size, std::string_view source);

/// Error naming `source` when the declared tensor passes max_tensor_bytes().
void check_within_limit(const NpyLayout& layout, std::string_view source);

/// The descr NumPy writes for `dtype` ('<f4', '|u1', '|b1'); a weft::Error for
/// a dtype NumPy has no type for (bfloat16, vectors).
std::string npy_descr(DataType dtype, std::string_view source);

/// The dict text NumPy writes for a C-ordered array, including the spaces it
/// leaves for the first axis to grow (before the magic, length and padding).
std::string format_npy_header(DataType dtype, const std::vector<int64_t>& shape, std::string_view source);

}  // namespace weft::io
