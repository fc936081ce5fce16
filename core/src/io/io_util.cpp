// Helpers shared by the tensor-file readers and writers.
#include "io_util.h"

#include <cerrno>
#include <cstring>
#include <set>

namespace weft::io {

Error file_error(std::string_view source, std::string message) {
  return Error(std::move(message)).at(SourceLoc{std::string(source)});
}

RegularFile::RegularFile(const std::filesystem::path& path) : name_(path.string()) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw file_error(name_, "cannot open for reading: " + ec.message());
  if (std::filesystem::is_directory(status)) throw file_error(name_, "is a directory, not a file");
  if (!std::filesystem::is_regular_file(status))
    throw file_error(name_, "is not a regular file (a device, FIFO or socket cannot be read as a tensor file)");
  in_.open(path, std::ios::binary);
  if (!in_) throw file_error(name_, std::string("cannot open for reading: ") + std::strerror(errno));
  size_ = std::filesystem::file_size(path, ec);
  if (ec) throw file_error(name_, "cannot read its size: " + ec.message());
}

void RegularFile::read(size_t n, std::vector<std::byte>& out) {
  const size_t start = out.size();
  out.resize(start + n);
  in_.read(reinterpret_cast<char*>(out.data() + start), static_cast<std::streamsize>(n));
  if (static_cast<size_t>(in_.gcount()) != n)
    throw file_error(name_, in_.bad() ? "read failed" : "the file ended early (did it change while being read?)");
}

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  RegularFile file(path);
  std::vector<std::byte> bytes;
  file.read(static_cast<size_t>(file.size()), bytes);
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
