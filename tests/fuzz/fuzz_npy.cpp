// libFuzzer target for the tensor-file readers: .npy, .npz and safetensors
// bytes from memory, dispatched on the leading magic as a loader would. Any
// outcome but a value or a weft::Error (a crash, a sanitizer report, another
// exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "weft/error.h"
#include "weft/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
      weft::parse_npy(bytes, "fuzz.npy");
    } else if (size >= 2 && std::memcmp(data, "PK", 2) == 0) {
      weft::parse_npz(bytes, "fuzz.npz");
    } else {
      weft::parse_safetensors(bytes, "fuzz.safetensors");
    }
  } catch (const weft::Error&) {
    // Rejected cleanly: what the readers promise for malformed input.
  }
  return 0;
}
