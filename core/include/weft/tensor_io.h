// Tensor files: NumPy's .npy and .npz, and safetensors for parameter sets.
//
// Readers take the bytes as untrusted input: a malformed or truncated file is a
// weft::Error naming the file and what is wrong, never an out-of-bounds read or
// an allocation sized by a corrupt header. Writers produce what NumPy and the
// safetensors library write, so their files load there unchanged.
//
// Supported element types: float16/32/64, bfloat16 (safetensors only; NumPy has
// none), int8/16/32/64, uint8/16/32/64 and bool. Tensors are always C-ordered:
// a Fortran-ordered .npy is transposed into C order on reading, so the values
// at each index are NumPy's.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Tensors with names, in file order (npz: archive order; safetensors: data
/// order). Names are unique.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// .npy: one array. Versions 1.0, 2.0 and 3.0 are read; the writer picks the
// oldest version whose header fits (1.0 in practice), byte for byte as NumPy.

/// Reads one .npy file.
Tensor load_npy(const std::filesystem::path& path);
/// Writes `tensor` as NumPy's np.save would (same bytes).
void save_npy(const std::filesystem::path& path, const Tensor& tensor);
/// Decodes .npy bytes held in memory; `source_name` names them in errors.
Tensor parse_npy(std::span<const std::byte> bytes, std::string_view source_name);
/// The .npy encoding of `tensor` (what save_npy writes).
std::vector<std::byte> encode_npy(const Tensor& tensor, std::string_view source_name);

// .npz: a zip archive of NAME.npy members (stored or deflated, zip64 included).

/// Reads every member of an .npz; each name is the member's without ".npy".
NamedTensors load_npz(const std::filesystem::path& path);
/// Writes an .npz as np.savez (or np.savez_compressed when `compressed`) would.
void save_npz(const std::filesystem::path& path, const NamedTensors& tensors, bool compressed = false);
/// Decodes .npz bytes held in memory.
NamedTensors parse_npz(std::span<const std::byte> bytes, std::string_view source_name);

// safetensors: an 8-byte little-endian header length, a JSON header giving each
// tensor's dtype, shape and data_offsets (plus optional string __metadata__),
// then the packed little-endian data.

struct SafetensorsContents {
  NamedTensors tensors;
  std::map<std::string, std::string> metadata;
};

/// Reads the tensors of a .safetensors file (the metadata is checked, then dropped).
NamedTensors load_safetensors(const std::filesystem::path& path);
/// Writes tensors in the given order, with optional string metadata.
void save_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata = {});
/// Decodes safetensors bytes held in memory, metadata included.
SafetensorsContents parse_safetensors(std::span<const std::byte> bytes, std::string_view source_name);

// Any of the above, chosen by the file's extension.

/// .npz and .safetensors give their tensors; .npy gives one tensor named after
/// the file's stem. Another extension is a weft::Error listing these.
NamedTensors load_tensor_file(const std::filesystem::path& path);

/// A tensor's name, shape and dtype as its file declares them; it throws to
/// refuse the tensor (a caller that knows the types it wants, such as a
/// program's parameters, refuses the others before they are read).
using TensorHeaderCheck =
    std::function<void(const std::string& name, const std::vector<int64_t>& shape, DataType dtype)>;

/// load_tensor_file, with `check` called on each tensor's header before its
/// data is read (.npy) or inflated (.npz); for .safetensors, whose size is its
/// file's, once the file is read.
NamedTensors load_tensor_file(const std::filesystem::path& path, const TensorHeaderCheck& check);
/// Writes by extension; .npy takes exactly one tensor (its name is not stored).
void save_tensor_file(const std::filesystem::path& path, const NamedTensors& tensors);

}  // namespace weft

#pragma GCC visibility pop
