// The llvm target: any fused group whose ops have TE computes, lowered by the
// host to a loop program under the default schedules for this CPU (its
// vector width), turned into LLVM IR (codegen.h) and compiled to native code
// by ORC (jit.h), in host memory, synchronously. A group whose dtypes the
// generator does not know is declined, so the build offers it to the next
// target.
#include <weft/plugin.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "codegen.h"
#include "jit.h"

namespace sdk = weft::sdk;

namespace {

/// A compiled group: its native code and the program whose constants it reads.
struct LlvmKernel {
  sdk::LoopProgram program;
  std::unique_ptr<llvm_target::KernelCode> code;

  void run(const sdk::LaunchArgs& launch) const {
    if (launch.args.size() != program.num_args())
      throw sdk::Error("group " + std::string(program.name()) + " takes " + std::to_string(program.num_args()) +
                       " tensors (parameters, then outputs), got " + std::to_string(launch.args.size()));
    std::vector<void*> pointers;
    pointers.reserve(launch.args.size());
    for (const sdk::TensorView& arg : launch.args)
      pointers.push_back(static_cast<char*>(arg.dl().data) + arg.dl().byte_offset);
    switch (code->entry()(pointers.data())) {
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
      .option("verbose", false, "Print each group's loop program and the CPU it is compiled for to stderr.")
      .create([](const sdk::Attrs&) { return std::static_pointer_cast<void>(llvm_target::Jit::create()); })
      .supports([](const sdk::TargetInstance&, const sdk::Expr& call) { return sdk::te_supported(call); })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        llvm_target::Jit& jit = target.state<llvm_target::Jit>();
        sdk::TargetTraits traits;
        traits.vector_lanes = jit.float_lanes();
        traits.cores = 1;  // loops run on the calling thread
        auto kernel = std::make_shared<LlvmKernel>(LlvmKernel{sdk::LoopProgram::lower(group.primitive, traits), nullptr});
        if (target.options().get_bool("verbose"))
          std::fprintf(stderr, "llvm: compiling for %s:\n%s\n", jit.cpu_description().c_str(), kernel->program.text());
        kernel->code = jit.compile(kernel->program);
        return [kernel](const sdk::LaunchArgs& launch) { kernel->run(launch); };
      });
}
