// Tensor files by extension: .npz, .safetensors, .npy.
#include "io_util.h"
#include "weft/tensor_io.h"

namespace weft {

namespace {

enum class TensorFileKind { kNpy, kNpz, kSafetensors };

TensorFileKind kind_of(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  if (ext == ".npy") return TensorFileKind::kNpy;
  if (ext == ".npz") return TensorFileKind::kNpz;
  if (ext == ".safetensors") return TensorFileKind::kSafetensors;
  throw io::file_error(path.string(), "unknown tensor file extension '" + ext + "'")
      .expected(".npz, .safetensors or .npy");
}

}  // namespace

NamedTensors load_tensor_file(const std::filesystem::path& path) { return load_tensor_file(path, nullptr); }

NamedTensors load_tensor_file(const std::filesystem::path& path, const TensorHeaderCheck& check) {
  switch (kind_of(path)) {
    case TensorFileKind::kNpy: return {{path.stem().string(), io::load_npy_checked(path, check)}};
    case TensorFileKind::kNpz: return io::parse_npz_checked(io::read_file_bytes(path), path.string(), check);
    case TensorFileKind::kSafetensors: {
      NamedTensors tensors = load_safetensors(path);
      if (check)
        for (const auto& [name, tensor] : tensors) check(name, tensor.shape(), tensor.dtype());
      return tensors;
    }
  }
  WEFT_ICHECK(false, "unhandled tensor file kind");
}

void save_tensor_file(const std::filesystem::path& path, const NamedTensors& tensors) {
  switch (kind_of(path)) {
    case TensorFileKind::kNpy:
      if (tensors.size() != 1)
        throw io::file_error(path.string(), "a .npy file holds one tensor, not " + std::to_string(tensors.size()))
            .expected("one tensor, or an .npz or .safetensors file");
      return save_npy(path, tensors[0].second);
    case TensorFileKind::kNpz: return save_npz(path, tensors);
    case TensorFileKind::kSafetensors: return save_safetensors(path, tensors);
  }
  WEFT_ICHECK(false, "unhandled tensor file kind");
}

}  // namespace weft
