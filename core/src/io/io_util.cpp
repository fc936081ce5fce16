// Helpers shared by the tensor-file readers and writers.
#include "io_util.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

namespace weft::io {

Error file_error(std::string_view source, std::string message) {
  return Error(std::move(message)).at(SourceLoc{std::string(source)});
}

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw file_error(path.string(), std::string("cannot open for reading: ") + std::strerror(errno));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw file_error(path.string(), "is a directory, not a file");
  std::vector<std::byte> bytes;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    auto n = static_cast<size_t>(in.gcount());
    const auto* first = reinterpret_cast<const std::byte*>(buf);
    bytes.insert(bytes.end(), first, first + n);
  }
  if (in.bad()) throw file_error(path.string(), "read failed");
  return bytes;
}

void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw file_error(path.string(), std::string("cannot open for writing: ") + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw file_error(path.string(), "write failed");
}

uint64_t checked_nbytes(std::span<const int64_t> shape, size_t itemsize, std::string_view source) {
  for (int64_t d : shape)
    if (d < 0) throw file_error(source, "shape " + shape_text(shape) + " has a negative dimension");
  uint64_t total = itemsize;
  bool over = false;
  for (int64_t d : shape) {
    // A zero dimension makes the tensor empty whatever the others are.
    if (d == 0) return 0;
    over = over || __builtin_mul_overflow(total, static_cast<uint64_t>(d), &total);
  }
  if (over) throw file_error(source, "shape " + shape_text(shape) + " is too large: its byte size overflows 64 bits");
  return total;
}

void check_writable(const Tensor& tensor, std::string_view what, std::string_view source) {
  if (!tensor.defined()) throw file_error(source, std::string(what) + " is an undefined tensor");
  if (tensor.device().type != kDLCPU)
    throw file_error(source, std::string(what) + " is not in CPU memory").expected("a CPU tensor");
}

void check_writable(const NamedTensors& tensors, std::string_view source) {
  std::set<std::string_view> seen;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty()) throw file_error(source, "a tensor has an empty name");
    if (!seen.insert(name).second) throw file_error(source, "two tensors are named '" + name + "'");
    check_writable(tensor, "tensor '" + name + "'", source);
  }
}

void normalize_bools(Tensor& tensor) {
  if (!tensor.dtype().is_bool()) return;
  auto* bytes = static_cast<unsigned char*>(tensor.data());
  for (size_t i = 0; i < tensor.nbytes(); ++i) bytes[i] = bytes[i] != 0;
}

std::string shape_text(std::span<const int64_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace weft::io
