// LLVM's ORC JIT for the host CPU: loop programs in, native kernels out.
// One Jit per target instance; kernels it made stay valid until released,
// and hold the Jit alive. LLVM's headers stay inside jit.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace weft::sdk {
class LoopProgram;
}

namespace llvm_target {

/// A kernel's entry: args holds one pointer per launch argument; returns 0
/// or a failure status of codegen.h.
using KernelFn = int32_t (*)(void* const* args);

/// What compile keeps of a kernel's code as text, for reading.
enum class Emit { kNone, kLlvm, kAsm };

/// Native code of one group; its code is freed with it.
class KernelCode {
 public:
  virtual ~KernelCode() = default;
  virtual KernelFn entry() const = 0;
  /// The optimized LLVM IR or the assembly, as compile was asked (else empty).
  virtual const std::string& listing() const = 0;
};

class Jit {
 public:
  /// A JIT for this machine's CPU (its exact feature set, never the CPU name
  /// alone). Error when LLVM cannot target the host.
  static std::shared_ptr<Jit> create();
  virtual ~Jit() = default;

  /// float32 elements in the widest vector register the host has (16 with
  /// AVX-512, 8 with AVX, 4 otherwise).
  virtual int float_lanes() const = 0;
  /// The vector registers the host has (32 with AVX-512, else 16).
  virtual int vector_registers() const = 0;
  /// The host CPU as LLVM names it, with the features it found on.
  virtual std::string cpu_description() const = 0;

  /// `program` compiled at O3 for the host, its parallel loops run on
  /// `pool` (a ThreadPool, kept alive by the caller as long as the code; null:
  /// serially). A program compiled before, and still held, is not compiled
  /// again: its code is shared. Thread-safe. Error naming the group when LLVM
  /// rejects it.
  virtual std::shared_ptr<KernelCode> compile(const weft::sdk::LoopProgram& program, void* pool,
                                              Emit emit = Emit::kNone) = 0;
};

}  // namespace llvm_target
