// libFuzzer target for the NumPy readers: .npy bytes, and .npz (a zip of .npy
// members) when the bytes start like a zip, from memory as a loader reads
// them. Any outcome but a tensor or a weft::Error (a crash, a sanitizer
// report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "weft/error.h"
#include "weft/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    if (size >= 2 && std::memcmp(data, "PK", 2) == 0) {
      weft::parse_npz(bytes, "fuzz.npz");
    } else {
      weft::parse_npy(bytes, "fuzz.npy");
    }
  } catch (const weft::Error&) {
    // Rejected cleanly: what the readers promise for malformed input.
  }
  return 0;
}
