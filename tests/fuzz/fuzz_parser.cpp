// libFuzzer target for the Relay text parser: any bytes either parse or raise
// weft::Error, never crash; and whatever parses prints to text that parses
// back and prints the same again. (Text, not structural_equal, is the oracle:
// each `_` type reads as a new IncompleteType, and those compare by identity.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "weft/op.h"
#include "weft/printer.h"
#include "weft/text.h"

// Without the plugins every op name is unknown and the fuzzer would only ever
// see that error, so a run that cannot find them stops at once.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!weft::OpRegistry::global().find("nn.conv2d") || !weft::OpRegistry::global().find("add")) {
    std::fprintf(stderr, "fuzz_parser: the tensor and nn plugins were not found; set WEFT_PLUGIN_PATH to a "
                         "build's lib/weft/plugins\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  weft::IRModule mod;
  try {
    mod = weft::parse_module(text, "fuzz.relay");
  } catch (const weft::Error&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  std::string printed = weft::to_text(mod);
  weft::IRModule again;
  try {
    again = weft::parse_module(printed, "printed.relay");
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "printed module does not parse: %s\n%s\n", e.what(), printed.c_str());
    __builtin_trap();
  }
  std::string reprinted = weft::to_text(again);
  if (reprinted != printed) {
    std::fprintf(stderr, "printed module reads back as a different module:\n%s\n--- prints as ---\n%s\n",
                 printed.c_str(), reprinted.c_str());
    __builtin_trap();
  }
  return 0;
}
