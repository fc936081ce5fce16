// The null target: the smallest complete target, and the one to copy.
// It runs add, nn.relu and nn.dense on float32 in plain loops, in host
// memory, synchronously (the SDK's defaults for CPU targets); every other
// group it declines at compile, so the build offers it to the next target.
#include <weft/plugin.hpp>

#include <cstdio>
#include <memory>

#include "group_program.h"

namespace sdk = weft::sdk;

WEFT_PLUGIN(reg) {
  reg.target("null")
      .describe("The skeleton target: add, nn.relu and nn.dense on float32 in plain loops on the CPU.")
      .option("verbose", false, "Print each group it compiles to stderr.")
      .supports([](const sdk::TargetInstance&, const sdk::Expr& call) {
        return null_target::runnable_op(call).has_value();
      })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        // Weights (parameters bound to constants) are copied here, once;
        // naming them packed lets the build drop the graph's copies.
        auto program = std::make_shared<const null_target::GroupProgram>(
            null_target::GroupProgram::compile(group.primitive, group.constants));
        if (target.options().get_bool("verbose")) {
          std::fprintf(stderr, "null: compiled a group of %s\n", program->summary().c_str());
        }
        sdk::CompiledKernel kernel = [program](const sdk::LaunchArgs& launch) { program->run(launch.args); };
        return kernel.packed_constants(program->packed_params());
      });
}
