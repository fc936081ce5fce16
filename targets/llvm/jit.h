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

/// A kernel's entry (codegen.h): one pointer per launch argument, one per
/// constant buffer of its program, and the ThreadPool its parallel loops run
/// on; returns 0 or a failure status of codegen.h.
using KernelFn = int32_t (*)(void* const* args, void* const* constants, void* pool);

/// What compile keeps of a kernel's code as text, for reading.
enum class Emit { kNone, kLlvm, kAsm };

/// Native code of one group; its code is freed with it.
class KernelCode {
 public:
  virtual ~KernelCode() = default;
  virtual KernelFn entry() const = 0;
  /// The optimized LLVM IR or the assembly, as compile was asked (else empty).
  virtual const std::string& listing() const = 0;
  /// Whether the code was read from the disk cache rather than compiled.
  virtual bool from_disk() const = 0;
};

class Jit {
 public:
  /// A JIT for this machine's CPU (its exact feature set, never the CPU name
  /// alone) that keeps compiled kernels in `cache_dir` ("": nowhere) and
  /// reads them back rather than compiling a program again. Error when LLVM
  /// cannot target the host.
  static std::shared_ptr<Jit> create(const std::string& cache_dir);
  virtual ~Jit() = default;

  /// float32 elements in the widest vector register the host has (16 with
  /// AVX-512, 8 with AVX, 4 otherwise).
  virtual int float_lanes() const = 0;
  /// The vector registers the host has (32 with AVX-512, else 16).
  virtual int vector_registers() const = 0;
  /// The host CPU as LLVM names it, with the features it found on.
  virtual std::string cpu_description() const = 0;

  /// `program` compiled at O3 for the host, its parallel loops calling the
  /// pool where `parallel` (else run serially). A program compiled before,
  /// and still held, is not compiled again: its code is shared; without a
  /// listing asked for, one in the disk cache for this CPU, LLVM and
  /// generator is read from there. Thread-safe. Error naming the group when
  /// LLVM rejects it.
  virtual std::shared_ptr<KernelCode> compile(const weft::sdk::LoopProgram& program, bool parallel,
                                              Emit emit = Emit::kNone) = 0;
};

}  // namespace llvm_target
