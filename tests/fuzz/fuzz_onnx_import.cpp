// libFuzzer target for the onnx frontend: any bytes, read as an .onnx file,
// either import or raise weft::Error, never crash, never another exception
// (the ONNX library's and protobuf's included); whatever imports passes type
// inference or fails it with weft::Error too. Its seeds are the importer's
// test models (plugins/onnx/tests/data).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "weft/error.h"
#include "weft/frontend.h"
#include "weft/passes.h"

namespace {

const weft::FrontendDef* onnx = nullptr;
std::string model_path;

}  // namespace

// The frontend reads files: each input goes to one file of this process's.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  onnx = weft::FrontendRegistry::global().find("onnx");
  if (!onnx) {
    std::fprintf(stderr, "fuzz_onnx_import: the onnx frontend was not found; set WEFT_PLUGIN_PATH to a build's "
                         "lib/weft/plugins\n");
    std::exit(2);
  }
  model_path = "/tmp/weft_fuzz_onnx_" + std::to_string(::getpid()) + ".onnx";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(model_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  weft::IRModule mod;
  try {
    mod = onnx->import_file(model_path, onnx->options.normalize("onnx", nullptr));
  } catch (const weft::Error&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  try {
    weft::InferType()(mod);
  } catch (const weft::Error&) {
  }
  return 0;
}
