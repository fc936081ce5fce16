// .npy files: the magic and version, the header length, the header dict (see
// npy_header.h) and the raw array data.
#include <algorithm>
#include <array>
#include <cstring>

#include "io_util.h"
#include "npy_header.h"
#include "weft/limits.h"
#include "weft/tensor_io.h"

namespace weft {

namespace {

constexpr std::array<unsigned char, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
// NumPy pads the magic, header length and header to a multiple of this.
constexpr size_t kArrayAlign = 64;
// NumPy refuses longer headers unless told the file is trusted.
constexpr size_t kMaxHeaderSize = 10000;

uint32_t read_le(std::span<const std::byte> bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return v;
}

// Copies Fortran-ordered (column-major) data into C order: walks the output in
// C order, keeping the matching column-major offset.
void fortran_to_c(const std::byte* src, std::byte* dst, const std::vector<int64_t>& shape, size_t itemsize) {
  size_t ndim = shape.size();
  std::vector<int64_t> stride(ndim), index(ndim, 0);
  int64_t s = 1, total = 1;
  for (size_t k = 0; k < ndim; ++k) {
    stride[k] = s;
    s *= shape[k];
    total *= shape[k];
  }
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * itemsize, src + static_cast<size_t>(offset) * itemsize, itemsize);
    for (size_t k = ndim; k-- > 0;) {
      offset += stride[k];
      if (++index[k] < shape[k]) break;
      offset -= stride[k] * shape[k];
      index[k] = 0;
    }
  }
}

}  // namespace

io::NpyLayout io::parse_npy_layout(std::span<const std::byte> bytes, uint64_t total_size, std::string_view source_name) {
  const size_t fixed = kMagic.size() + 2;
  if (bytes.size() < fixed || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin(),
                                          [](unsigned char m, std::byte b) { return static_cast<std::byte>(m) == b; }))
    throw file_error(source_name, "not a .npy file (no \\x93NUMPY magic at the start)");
  int major = static_cast<int>(bytes[6]), minor = static_cast<int>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3)
    throw file_error(source_name, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor))
        .expected("1.0, 2.0 or 3.0");
  size_t len_size = major == 1 ? 2 : 4;
  if (bytes.size() < fixed + len_size) throw file_error(source_name, "truncated before the header length");
  size_t header_len = read_le(bytes.subspan(fixed, len_size));
  size_t header_start = fixed + len_size;
  if (header_len > total_size - header_start)
    throw file_error(source_name, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                                      std::to_string(total_size) + " bytes)");
  if (header_len > kMaxHeaderSize)
    throw file_error(source_name, "header length " + std::to_string(header_len) + " is larger than NumPy allows")
        .expected("at most " + std::to_string(kMaxHeaderSize) + " bytes");
  WEFT_ICHECK(header_start + header_len <= bytes.size(), "the caller holds less than kNpyMaxPrefix bytes");
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + header_start), header_len);
  NpyLayout layout;
  layout.header = parse_npy_header(text, major <= 2, source_name);
  layout.data_offset = header_start + header_len;
  layout.nbytes = checked_nbytes(layout.header.shape, layout.header.dtype.bytes(), source_name);
  return layout;
}

void io::check_within_limit(const NpyLayout& layout, std::string_view source_name) {
  try {
    checked_tensor_bytes(layout.header.shape, layout.header.dtype);
  } catch (Error& e) {
    throw e.at(SourceLoc{std::string(source_name)});
  }
}

Tensor parse_npy(std::span<const std::byte> bytes, std::string_view source_name) {
  using io::file_error;
  const io::NpyLayout layout = io::parse_npy_layout(bytes, bytes.size(), source_name);
  const io::NpyHeader& h = layout.header;
  std::span<const std::byte> data = bytes.subspan(layout.data_offset);
  size_t itemsize = h.dtype.bytes();
  uint64_t nbytes = layout.nbytes;
  if (nbytes != data.size()) {
    std::string what = data.size() < nbytes ? "the data is truncated: " : "unexpected bytes after the data: ";
    throw file_error(source_name, what + std::to_string(data.size()) + " bytes for shape " + io::shape_text(h.shape) +
                                      " of " + h.dtype.str())
        .expected(std::to_string(nbytes) + " bytes");
  }

  Tensor t = Tensor::empty(h.shape, h.dtype);
  auto* out = static_cast<std::byte*>(t.data());
  if (h.fortran_order && h.shape.size() > 1) fortran_to_c(data.data(), out, h.shape, itemsize);
  else if (nbytes > 0) std::memcpy(out, data.data(), nbytes);
  if (h.big_endian)
    for (size_t i = 0; i < nbytes; i += itemsize) std::reverse(out + i, out + i + itemsize);
  io::normalize_bools(t);
  return t;
}

std::vector<std::byte> encode_npy(const Tensor& tensor, std::string_view source_name) {
  io::check_writable(tensor, "the tensor", source_name);
  std::string header = io::format_npy_header(tensor.dtype(), tensor.shape(), source_name);
  // As NumPy: the header ends in '\n', padded with spaces so the data starts
  // on a 64-byte boundary (a full 64 more when it already would); version 1.0
  // unless the length no longer fits its 16 bits.
  auto padded = [&](size_t len_size) {
    size_t used = kMagic.size() + 2 + len_size + header.size() + 1;
    return header.size() + 1 + (kArrayAlign - used % kArrayAlign);
  };
  int major = padded(2) <= 0xffff ? 1 : 2;
  size_t len_size = major == 1 ? 2 : 4;
  size_t header_len = padded(len_size);

  std::vector<std::byte> out;
  out.reserve(kMagic.size() + 2 + len_size + header_len + tensor.nbytes());
  for (unsigned char m : kMagic) out.push_back(static_cast<std::byte>(m));
  out.push_back(static_cast<std::byte>(major));
  out.push_back(std::byte{0});
  for (size_t i = 0; i < len_size; ++i) out.push_back(static_cast<std::byte>((header_len >> (8 * i)) & 0xff));
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), header_len - header.size() - 1, static_cast<std::byte>(' '));
  out.push_back(static_cast<std::byte>('\n'));
  const auto* data = static_cast<const std::byte*>(tensor.data());
  out.insert(out.end(), data, data + tensor.nbytes());
  return out;
}

Tensor load_npy(const std::filesystem::path& path) { return io::load_npy_checked(path, nullptr); }

Tensor io::load_npy_checked(const std::filesystem::path& path, const TensorHeaderCheck& check) {
  // The header first: what it declares is checked against the file's size
  // (and by `check`) before the data is read.
  io::RegularFile file(path);
  std::vector<std::byte> bytes;
  file.read(static_cast<size_t>(std::min<uint64_t>(file.size(), io::kNpyMaxPrefix)), bytes);
  const io::NpyLayout layout = io::parse_npy_layout(bytes, file.size(), path.string());
  const uint64_t declared = layout.data_offset + layout.nbytes;
  if (declared != file.size())
    throw io::file_error(path.string(), "the file has " + std::to_string(file.size()) + " bytes, but its header (shape " +
                                            io::shape_text(layout.header.shape) + " of " + layout.header.dtype.str() +
                                            ") declares " + std::to_string(declared))
        .expected(std::to_string(declared) + " bytes");
  io::check_within_limit(layout, path.string());
  if (check) check(path.stem().string(), layout.header.shape, layout.header.dtype);
  file.read(static_cast<size_t>(file.size() - bytes.size()), bytes);
  return parse_npy(bytes, path.string());
}

void save_npy(const std::filesystem::path& path, const Tensor& tensor) {
  io::write_file_bytes(path, encode_npy(tensor, path.string()));
}

}  // namespace weft
