// The vulkan target: any fused group whose ops have TE computes, lowered by
// the host to a loop program under the default schedules for a GPU (each
// stage one parallel loop, an iteration per invocation), generated as GLSL
// compute shaders (glsl_codegen.h), compiled to SPIR-V by glslang and to
// pipelines by the driver at build. Buffers live in device memory
// (memory.h); a stream records its run into one command buffer and
// resubmits it while the runs repeat (stream.h). With no Vulkan device,
// create fails with UNSUPPORTED and the build moves on.
#include <weft/plugin.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "context.h"
#include "glsl_codegen.h"
#include "kernel.h"
#include "memory.h"
#include "stream.h"

namespace sdk = weft::sdk;
using vulkan_target::Context;

namespace {

struct VulkanState {
  std::shared_ptr<Context> context;
  std::unique_ptr<vulkan_target::BlockAllocator> memory;
};

/// Whether every tensor of `type` holds a dtype the device's shaders can.
bool holds_type(const sdk::Type& type, const vulkan_target::ShaderFeatures& features) {
  if (type.is_tuple()) {
    for (const sdk::Type& field : type.fields())
      if (!holds_type(field, features)) return false;
    return true;
  }
  return type.is_tensor() && vulkan_target::holds_dtype(features, type.dtype());
}

vulkan_target::Stream& stream_of(void* stream) {
  if (!stream) throw sdk::Error("a vulkan launch or copy without a stream");
  return *static_cast<vulkan_target::Stream*>(stream);
}

const vulkan_target::DeviceBuffer& buffer_of(void* buffer) {
  if (!buffer) throw sdk::Error("a vulkan copy without a buffer");
  return *static_cast<const vulkan_target::DeviceBuffer*>(buffer);
}

sdk::DeviceMemory vulkan_memory() {
  sdk::DeviceMemory m;
  m.host_addressable = false;
  m.alloc = [](const sdk::TargetInstance& t, int, size_t nbytes, size_t alignment) -> void* {
    return t.state<VulkanState>().memory->allocate(nbytes, alignment);
  };
  m.free = [](const sdk::TargetInstance& t, int, void* buffer) {
    t.state<VulkanState>().memory->release(static_cast<vulkan_target::DeviceBuffer*>(buffer));
  };
  m.copy_from_host = [](const sdk::TargetInstance&, void* stream, const void* src, void* dst, size_t offset, size_t n) {
    stream_of(stream).copy_from_host(src, buffer_of(dst), offset, n);
  };
  m.copy_to_host = [](const sdk::TargetInstance&, void* stream, void* src, size_t offset, void* dst, size_t n) {
    stream_of(stream).copy_to_host(buffer_of(src), offset, dst, n);
  };
  m.copy_buffer = [](const sdk::TargetInstance&, void* stream, void* src, size_t src_offset, void* dst,
                     size_t dst_offset, size_t n) {
    stream_of(stream).copy_buffer(buffer_of(src), src_offset, buffer_of(dst), dst_offset, n);
  };
  m.create_stream = [](const sdk::TargetInstance& t, int) -> void* {
    VulkanState& state = t.state<VulkanState>();
    return new vulkan_target::Stream(state.context, *state.memory, t.options().get_bool("timing"));
  };
  m.destroy_stream = [](const sdk::TargetInstance&, void* stream) {
    delete static_cast<vulkan_target::Stream*>(stream);
  };
  m.synchronize = [](const sdk::TargetInstance&, void* stream) { stream_of(stream).synchronize(); };
  return m;
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.target("vulkan")
      .describe("Fused groups of ops with TE computes, generated as GLSL compute shaders and run on a Vulkan device "
                "(any GPU, or lavapipe on the CPU).")
      .device_type(kDLVulkan)
      .option("device", int64_t{-1},
              "The Vulkan device to run on, as `weft targets` numbers them; -1: the first discrete GPU, else the "
              "first device.",
              "a device index >= -1")
      .option("validation", false,
              "Run under VK_LAYER_KHRONOS_validation and fail on any message it gives (also on when "
              "WEFT_VULKAN_VALIDATION=1).")
      .option("verbose", false, "Print each group's loop program and shaders to stderr.")
      .option("timing", false,
              "Time each run on the device (timestamp queries) and on the host; each stream prints the medians "
              "to stderr when it is released.")
      .create([](const sdk::Attrs& options) {
        const int64_t device = options.get_int("device");
        // Past int's range no index names a device; cast, it could wrap to one that does.
        if (device < -1 || device > std::numeric_limits<int>::max())
          throw sdk::Error("device must be -1 or a device index, got " + std::to_string(device));
        const char* env = std::getenv("WEFT_VULKAN_VALIDATION");
        const bool validation = options.get_bool("validation") || (env && std::strcmp(env, "1") == 0);
        auto state = std::make_shared<VulkanState>();
        state->context = Context::get(static_cast<int>(device), validation);
        state->memory = std::make_unique<vulkan_target::BlockAllocator>(state->context);
        return std::static_pointer_cast<void>(state);
      })
      .devices([](const sdk::TargetInstance& t) { return t.state<VulkanState>().context->describe(); })
      .memory(vulkan_memory())
      .supports([](const sdk::TargetInstance& t, const sdk::Expr& call) {
        const vulkan_target::ShaderFeatures& features = t.state<VulkanState>().context->features();
        if (!sdk::te_supported(call) || !holds_type(call.type(), features)) return false;
        for (const sdk::Expr& arg : call.args())
          if (!holds_type(arg.type(), features)) return false;
        return true;
      })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        VulkanState& state = target.state<VulkanState>();
        Context& context = *state.context;
        sdk::TargetTraits traits;
        traits.vector_lanes = 1;
        traits.vector_registers = 8;  // register tiles of up to 4 outputs a thread
        traits.many_threads = true;
        sdk::LoopProgram program = sdk::LoopProgram::lower(group.primitive, traits);
        vulkan_target::ShaderPlan plan =
            vulkan_target::generate_glsl(program, context.features(), context.limits().maxComputeWorkGroupCount[0]);
        if (target.options().get_bool("verbose")) {
          std::fprintf(stderr, "vulkan: compiling for %s:\n%s\n", context.name().c_str(), program.text());
          for (const vulkan_target::ShaderStage& s : plan.stages)
            std::fprintf(stderr, "vulkan: stage of %lld invocations:\n%s\n", static_cast<long long>(s.invocations),
                         s.glsl.c_str());
        }
        auto kernel = std::make_shared<vulkan_target::Kernel>(state.context, *state.memory, program, std::move(plan));
        context.check_validation("compiling group " + kernel->name());
        return [kernel](const sdk::LaunchArgs& launch) { stream_of(launch.stream).launch(*kernel, launch); };
      });
}
