// Loop program -> LLVM IR: one function per fused group (and one per
// parallel loop body),
//
//   i32 @name(ptr %args, ptr %constants, ptr %pool)
//
// where %args holds one pointer per launch argument (the group's parameter
// tensors, then its outputs, each at its first element), %constants one per
// constant buffer of the program, in buffer order, and %pool is the
// ThreadPool its parallel loops run on. The code holds no address of this
// process, so it can be kept on disk and loaded by another. It returns 0, or
// a status below when the run fails.
// Arithmetic follows the loop IR's rules exactly (plugin.h, "Loop programs"):
// 16-bit floats compute in float and round after every operation, integers
// wrap, float->int casts saturate, a select evaluates only its chosen operand.
#pragma once

#include <string>
#include <utility>

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace weft::sdk {
class LoopProgram;
}

namespace llvm_target {

/// What a kernel returns when an integer division or modulo met a zero
/// divisor, and when a scratch buffer too large for the stack could not be
/// allocated.
constexpr int kDivisionByZero = 1;
constexpr int kOutOfMemory = 2;

/// The function parallel loops call (thread_pool.h's
/// weft_llvm_parallel_for), by name: the JIT resolves it.
inline constexpr const char* kParallelFor = "weft_llvm_parallel_for";

/// Emits `program` as the function `name` into `module`, whose data layout
/// and triple are set. With `parallel`, its parallel loops become calls of
/// kParallelFor on %pool with their bodies outlined, one level deep (a
/// parallel loop inside another runs serially); without, they run serially. Vectorized loops become vector code,
/// in vectors of `native_lanes` where that divides them; with `vector_math`
/// their float exp, log, tanh, erf and pow call glibc's vector math library
/// (vector_math_symbol's functions, which the JIT must resolve). Error when
/// the program uses what the generator does not know (a node kind or dtype
/// of a newer ABI).
llvm::Function* emit_kernel(const weft::sdk::LoopProgram& program, const std::string& name, llvm::Module& module,
                            bool parallel, int native_lanes, bool vector_math);

/// The functions of libmvec the generated code calls: float `name` of
/// `arity` vector arguments of `lanes` floats ("exp", 1, 16: _ZGVeN16v_expf).
std::string vector_math_symbol(const std::string& name, int arity, int lanes);

/// Those functions, by name and arity.
inline constexpr std::pair<const char*, int> kVectorMathFunctions[] = {
    {"exp", 1}, {"log", 1}, {"tanh", 1}, {"erf", 1}, {"pow", 2}};

}  // namespace llvm_target
