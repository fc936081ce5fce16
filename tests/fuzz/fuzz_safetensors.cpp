// libFuzzer target for the safetensors reader on bytes from memory: any input
// gives tensors and metadata or a weft::Error. Anything else (a crash, a
// sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <span>

#include "weft/error.h"
#include "weft/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    weft::parse_safetensors(bytes, "fuzz.safetensors");
  } catch (const weft::Error&) {
    // Rejected cleanly: what the reader promises for malformed input.
  }
  return 0;
}
