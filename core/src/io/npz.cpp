// .npz files: zip archives of NAME.npy members, read and written with libzip
// (stored or deflated members, zip64 records as NumPy writes them).
#include <zip.h>

#include <algorithm>
#include <array>
#include <memory>
#include <set>

#include "io_util.h"
#include "npy_header.h"
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

// Deflate's largest expansion: a 258-byte match coded in 2 bits (zlib's
// "maximum compression factor" 1032:1). A member recorded as inflating to
// more than this many times its compressed size cannot be valid.
constexpr zip_uint64_t kMaxDeflateRatio = 1032;

/// Refuses a stored or deflated member whose recorded size its compressed
/// bytes cannot produce (a zip bomb that lies about its size), before anything
/// is inflated. Other methods (bzip2, xz) are left to the size limit.
void check_recorded_size(const zip_stat_t& st, const std::string& where) {
  if (!(st.valid & ZIP_STAT_COMP_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD)) return;
  const bool stored = st.comp_method == ZIP_CM_STORE;
  if (!stored && st.comp_method != ZIP_CM_DEFLATE) return;
  zip_uint64_t most = st.comp_size;
  if (!stored && __builtin_mul_overflow(st.comp_size, kMaxDeflateRatio, &most)) return;
  if (st.size <= most) return;
  throw file_error(where, "is recorded as " + std::to_string(st.size) + " bytes, more than its " +
                              std::to_string(st.comp_size) + (stored ? " stored bytes hold" : " deflated bytes inflate to"))
      .expected("at most " + std::to_string(most) + " bytes" +
                (stored ? "" : " (deflate expands at most " + std::to_string(kMaxDeflateRatio) + " times)"));
}

/// Appends the next `n` bytes of `file` to `out`; an error naming the member
/// if its stream is corrupt or ends first. `out` grows a chunk at a time, so
/// a recorded size that the data does not back allocates no more than the
/// data that is there.
void read_exactly(zip_file_t* file, size_t n, std::vector<std::byte>& out, const std::string& where) {
  constexpr size_t kChunk = size_t{1} << 20;
  size_t done = 0;
  while (done < n) {
    const size_t start = out.size(), want = std::min(kChunk, n - done);
    out.resize(start + want);
    zip_int64_t got = zip_fread(file, out.data() + start, want);
    if (got < 0) throw file_error(where, std::string("corrupt data: ") + zip_file_strerror(file));
    out.resize(start + static_cast<size_t>(got));
    if (got == 0) throw file_error(where, "the data is truncated: the member ends after " + std::to_string(done) + " of " +
                                              std::to_string(n) + " bytes");
    done += static_cast<size_t>(got);
  }
}

// The member's bytes, decompressed and CRC-checked by libzip. Its .npy header
// is read first, and the size it declares checked against the member's
// recorded size and the tensor size limit, so a member that would inflate to
// more than its header says (a zip bomb) is refused before it is inflated, and
// reading stops at the recorded size.
std::vector<std::byte> read_member(zip_t* za, zip_uint64_t index, const std::string& name, const std::string& where,
                                   const TensorHeaderCheck& check) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, index, 0, &st) != 0) throw file_error(where, std::string("unreadable: ") + zip_strerror(za));
  if (!(st.valid & ZIP_STAT_SIZE)) throw file_error(where, "has no recorded size");
  check_recorded_size(st, where);
  Member file(zip_fopen_index(za, index, 0));
  if (!file) throw file_error(where, std::string("cannot be opened: ") + zip_strerror(za));
  // The end of the stream, where libzip checks the CRC; more data is corrupt.
  auto expect_end = [&] {
    std::byte extra;
    zip_int64_t more = zip_fread(file.get(), &extra, 1);
    if (more < 0) throw file_error(where, std::string("corrupt data: ") + zip_file_strerror(file.get()));
    if (more > 0) throw file_error(where, "inflates past its recorded size of " + std::to_string(st.size) + " bytes");
  };
  std::vector<std::byte> bytes;
  read_exactly(file.get(), static_cast<size_t>(std::min<zip_uint64_t>(st.size, io::kNpyMaxPrefix)), bytes, where);
  // A member no longer than a header is checked whole first, so corruption
  // reads as such rather than as a garbled header.
  const bool whole = bytes.size() == st.size;
  if (whole) expect_end();
  const io::NpyLayout layout = io::parse_npy_layout(bytes, st.size, where);
  const uint64_t declared = layout.data_offset + layout.nbytes;
  if (declared != st.size)
    throw file_error(where, "inflates to " + std::to_string(st.size) + " bytes, but its .npy header (shape " +
                                io::shape_text(layout.header.shape) + " of " + layout.header.dtype.str() +
                                ") declares " + std::to_string(declared))
        .expected(std::to_string(declared) + " bytes");
  io::check_within_limit(layout, where);
  if (check) check(name, layout.header.shape, layout.header.dtype);
  if (!whole) {
    read_exactly(file.get(), static_cast<size_t>(declared - bytes.size()), bytes, where);
    expect_end();
  }
  return bytes;
}

}  // namespace

NamedTensors parse_npz(std::span<const std::byte> bytes, std::string_view source_name) {
  return io::parse_npz_checked(bytes, source_name, nullptr);
}

NamedTensors io::parse_npz_checked(std::span<const std::byte> bytes, std::string_view source_name,
                                   const TensorHeaderCheck& check) {
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
    tensors.emplace_back(name, parse_npy(read_member(za.get(), index, name, where, check), where));
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
