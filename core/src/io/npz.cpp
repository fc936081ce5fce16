// .npz files: zip archives of NAME.npy members, read and written with libzip
// (stored or deflated members, zip64 records as NumPy writes them).
#include <zip.h>

#include <array>
#include <memory>
#include <set>

#include "io_util.h"
#include "weft/tensor_io.h"

namespace weft {

namespace {

using io::file_error;

struct ArchiveCloser {
  void operator()(zip_t* za) const { zip_discard(za); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;

struct MemberCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using Member = std::unique_ptr<zip_file_t, MemberCloser>;

std::string libzip_message(zip_error_t* error) {
  std::string text = zip_error_strerror(error);
  zip_error_fini(error);
  return text;
}

constexpr std::string_view kNpySuffix = ".npy";

// The member's bytes, decompressed and CRC-checked by libzip. The declared
// size only sizes the first reservation (capped): a corrupt one cannot make
// this allocate more than the data actually inflates to.
std::vector<std::byte> read_member(zip_t* za, zip_uint64_t index, const std::string& where) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, index, 0, &st) != 0) throw file_error(where, std::string("unreadable: ") + zip_strerror(za));
  Member file(zip_fopen_index(za, index, 0));
  if (!file) throw file_error(where, std::string("cannot be opened: ") + zip_strerror(za));
  std::vector<std::byte> bytes;
  constexpr zip_uint64_t kMaxReserve = 1u << 20;
  if (st.valid & ZIP_STAT_SIZE) bytes.reserve(static_cast<size_t>(std::min(st.size, kMaxReserve)));
  std::array<std::byte, 1 << 16> chunk;
  for (;;) {
    zip_int64_t n = zip_fread(file.get(), chunk.data(), chunk.size());
    if (n < 0) throw file_error(where, std::string("corrupt data: ") + zip_file_strerror(file.get()));
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + n);
  }
  return bytes;
}

}  // namespace

NamedTensors parse_npz(std::span<const std::byte> bytes, std::string_view source_name) {
  // libzip would open zero bytes as a new, empty archive.
  if (bytes.empty()) throw file_error(source_name, "not a valid .npz (zip) archive: the file is empty");
  zip_error_t error;
  zip_error_init(&error);
  // The source only borrows `bytes` (freep = 0); the archive owns the source
  // once opened, and frees it itself when opening fails only if told to.
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (!source) throw file_error(source_name, "cannot read the archive: " + libzip_message(&error));
  Archive za(zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!za) {
    zip_source_free(source);
    throw file_error(source_name, "not a valid .npz (zip) archive: " + libzip_message(&error));
  }
  zip_error_fini(&error);

  zip_int64_t count = zip_get_num_entries(za.get(), 0);
  NamedTensors tensors;
  std::set<std::string> names;
  for (zip_int64_t i = 0; i < count; ++i) {
    auto index = static_cast<zip_uint64_t>(i);
    const char* raw_name = zip_get_name(za.get(), index, 0);
    if (!raw_name) throw file_error(source_name, std::string("member with an unreadable name: ") + zip_strerror(za.get()));
    std::string member = raw_name;
    std::string where = std::string(source_name) + " (member " + member + ")";
    if (member.size() <= kNpySuffix.size() || !member.ends_with(kNpySuffix))
      throw file_error(where, "is not a .npy array").expected("members named NAME.npy");
    std::string name = member.substr(0, member.size() - kNpySuffix.size());
    if (!names.insert(name).second) throw file_error(where, "appears twice in the archive");
    tensors.emplace_back(name, parse_npy(read_member(za.get(), index, where), where));
  }
  return tensors;
}

NamedTensors load_npz(const std::filesystem::path& path) {
  std::vector<std::byte> bytes = io::read_file_bytes(path);
  return parse_npz(bytes, path.string());
}

void save_npz(const std::filesystem::path& path, const NamedTensors& tensors, bool compressed) {
  std::string where = path.string();
  io::check_writable(tensors, where);
  if (tensors.empty()) {
    // libzip removes an archive left with no members; np.savez() writes an
    // empty one: just the end-of-central-directory record.
    std::array<std::byte, 22> empty{};
    for (size_t i = 0; i < 4; ++i) empty[i] = static_cast<std::byte>("PK\x05\x06"[i]);
    io::write_file_bytes(path, empty);
    return;
  }
  // libzip copies nothing until zip_close, so the encoded members live here.
  std::vector<std::vector<std::byte>> encoded;
  encoded.reserve(tensors.size());
  for (const auto& [name, tensor] : tensors) encoded.push_back(encode_npy(tensor, where + " (tensor " + name + ")"));

  int code = 0;
  Archive za(zip_open(where.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
  if (!za) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    throw file_error(where, "cannot create the archive: " + libzip_message(&error));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string member = tensors[i].first + std::string(kNpySuffix);
    zip_source_t* source = zip_source_buffer(za.get(), encoded[i].data(), encoded[i].size(), 0);
    zip_int64_t index = source ? zip_file_add(za.get(), member.c_str(), source, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0) {
      zip_source_free(source);
      throw file_error(where, "cannot add member " + member + ": " + zip_strerror(za.get()));
    }
    if (zip_set_file_compression(za.get(), static_cast<zip_uint64_t>(index), compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0) != 0)
      throw file_error(where, "cannot set the compression of " + member + ": " + zip_strerror(za.get()));
  }
  if (zip_close(za.get()) != 0) throw file_error(where, std::string("cannot write the archive: ") + zip_strerror(za.get()));
  za.release();  // zip_close freed it
}

}  // namespace weft
