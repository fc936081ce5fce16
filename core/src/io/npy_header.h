// The .npy header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// read with a small parser for exactly the literals NumPy writes (strings,
// True/False, tuples of ints), and written byte for byte as NumPy writes it.
#pragma once

#include <cstdint>
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

/// The descr NumPy writes for `dtype` ('<f4', '|u1', '|b1'); a weft::Error for
/// a dtype NumPy has no type for (bfloat16, vectors).
std::string npy_descr(DataType dtype, std::string_view source);

/// The dict text NumPy writes for a C-ordered array, including the spaces it
/// leaves for the first axis to grow (before the magic, length and padding).
std::string format_npy_header(DataType dtype, const std::vector<int64_t>& shape, std::string_view source);

}  // namespace weft::io
