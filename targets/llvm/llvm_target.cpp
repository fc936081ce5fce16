// The llvm target: any fused group whose ops have TE computes, lowered by the
// host to a loop program under the default schedules for this CPU (its
// vector width and threads), turned into LLVM IR (codegen.h) and compiled to
// native code by ORC (jit.h), in host memory, synchronously; parallel loops
// run on the instance's thread pool (thread_pool.h). A group whose dtypes the
// generator does not know is declined, so the build offers it to the next
// target.
#include <weft/plugin.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "codegen.h"
#include "jit.h"
#include "layout_choice.h"
#include "thread_pool.h"

namespace sdk = weft::sdk;

namespace {

/// An instance's JIT and the threads its kernels' parallel loops run on.
struct LlvmState {
  std::shared_ptr<llvm_target::Jit> jit;
  std::shared_ptr<llvm_target::ThreadPool> pool;
};

/// A compiled group: its native code, the program whose constants it reads
/// (and their addresses, as the code takes them) and the pool its parallel
/// loops run on.
struct LlvmKernel {
  sdk::LoopProgram program;
  std::vector<void*> constants;
  std::shared_ptr<llvm_target::ThreadPool> pool;
  std::shared_ptr<llvm_target::KernelCode> code;

  LlvmKernel(sdk::LoopProgram lowered, std::shared_ptr<llvm_target::ThreadPool> threads)
      : program(std::move(lowered)), pool(std::move(threads)) {
    for (size_t i = 0; i < program.num_buffers(); ++i) {
      const weft_loop_buffer_t& b = program.buffer(static_cast<int32_t>(i));
      if (b.role == WEFT_LOOP_BUFFER_CONSTANT) constants.push_back(static_cast<char*>(b.data->data) + b.data->byte_offset);
    }
  }

  void run(const sdk::LaunchArgs& launch) const {
    if (launch.args.size() != program.num_args())
      throw sdk::Error("group " + std::string(program.name()) + " takes " + std::to_string(program.num_args()) +
                       " tensors (parameters, then outputs), got " + std::to_string(launch.args.size()));
    std::vector<void*> pointers;
    pointers.reserve(launch.args.size());
    for (const sdk::TensorView& arg : launch.args)
      pointers.push_back(static_cast<char*>(arg.dl().data) + arg.dl().byte_offset);
    switch (code->entry()(pointers.data(), constants.data(), pool.get())) {
      case 0: return;
      case llvm_target::kDivisionByZero:
        throw sdk::Error("integer division or modulo by zero in group " + std::string(program.name()));
      case llvm_target::kOutOfMemory:
        throw sdk::Error("group " + std::string(program.name()) + " cannot allocate its scratch memory",
                         WEFT_STATUS_OUT_OF_MEMORY);
      default:
        throw sdk::Error("group " + std::string(program.name()) + " returned an unknown status", WEFT_STATUS_INTERNAL);
    }
  }
};

}  // namespace

WEFT_PLUGIN(reg) {
  reg.target("llvm")
      .describe("Fused groups of ops with TE computes, lowered to loops and compiled to native code for this CPU "
                "by LLVM's JIT.")
      .option("threads", int64_t{0}, "Threads the parallel loops run on, the caller's included; 0: all cores.",
              "a number of threads >= 0")
      .option("verbose", false, "Print each group's loop program and the CPU it is compiled for to stderr.")
      .option("cache_dir", std::string("auto"),
              "Where compiled kernels are kept between builds, by program, CPU, LLVM and generator: a folder, "
              "\"auto\" ($XDG_CACHE_HOME/weft/llvm, else ~/.cache/weft/llvm) or \"\" (none).")
      .option("emit", std::string(""), "Print each group's optimized LLVM IR (\"llvm\") or assembly (\"asm\") to stderr.",
              "\"\", \"llvm\" or \"asm\"")
      .create([](const sdk::Attrs& options) {
        const int64_t threads = options.get_int("threads");
        if (threads < 0) throw sdk::Error("threads must not be negative, got " + std::to_string(threads));
        const std::string emit = options.get_string("emit");
        if (emit != "" && emit != "llvm" && emit != "asm")
          throw sdk::Error("emit is \"" + emit + "\"; expected \"\", \"llvm\" or \"asm\"");
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        auto state = std::make_shared<LlvmState>();
        const std::string cache_dir = options.get_string("cache_dir");
        state->jit = llvm_target::Jit::create(cache_dir == "auto" ? sdk::DiskCache::default_dir("llvm") : cache_dir);
        state->pool = std::make_shared<llvm_target::ThreadPool>(threads ? static_cast<int>(threads) : static_cast<int>(cores));
        return std::static_pointer_cast<void>(state);
      })
      .supports([](const sdk::TargetInstance&, const sdk::Expr& call) { return sdk::te_supported(call); })
      .alter_layout([](const sdk::TargetInstance& target, const sdk::Expr& call) {
        return llvm_target::vector_friendly_layout(call, target.state<LlvmState>().jit->float_lanes());
      })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        const LlvmState& state = target.state<LlvmState>();
        sdk::TargetTraits traits;
        traits.vector_lanes = state.jit->float_lanes();
        traits.vector_registers = state.jit->vector_registers();
        traits.cores = state.pool->threads();
        auto kernel = std::make_shared<LlvmKernel>(sdk::LoopProgram::lower(group.primitive, traits), state.pool);
        if (target.options().get_bool("verbose"))
          std::fprintf(stderr, "llvm: compiling for %s on %d threads:\n%s\n", state.jit->cpu_description().c_str(),
                       state.pool->threads(), kernel->program.text());
        const std::string emit = target.options().get_string("emit");
        const auto listing = emit == "llvm"  ? llvm_target::Emit::kLlvm
                             : emit == "asm" ? llvm_target::Emit::kAsm
                                             : llvm_target::Emit::kNone;
        try {
          kernel->code = state.jit->compile(kernel->program, kernel->pool->threads() > 1, listing);
        } catch (const sdk::Error& e) {
          if (e.code() != WEFT_STATUS_INTERNAL) throw;
          // LLVM failed on this group: say which, and let the next target run it.
          std::fprintf(stderr, "weft: warning: llvm cannot compile group %s; it goes to the next target: %s\n%s\n",
                       kernel->program.name(), e.what(), kernel->program.text());
          throw sdk::Unsupported(std::string("LLVM failed on group ") + kernel->program.name() + ": " + e.what());
        }
        if (target.options().get_bool("verbose") && kernel->code->from_disk())
          std::fprintf(stderr, "llvm: group %s: code read from the cache\n", kernel->program.name());
        if (listing != llvm_target::Emit::kNone)
          std::fprintf(stderr, "llvm: group %s:\n%s\n", kernel->program.name(), kernel->code->listing().c_str());
        return [kernel](const sdk::LaunchArgs& launch) { kernel->run(launch); };
      });
}
