// A compiled group: its stages' compute pipelines over one descriptor-set
// layout (binding 0 the launches' failure flags, then the plan's buffers),
// and the constants the program holds, uploaded once to device memory.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "glsl_codegen.h"
#include "memory.h"

namespace weft::sdk {
class LoopProgram;
}

namespace vulkan_target {

class Kernel {
 public:
  struct Stage {
    VkPipeline pipeline;
    uint32_t workgroups;
  };

  /// `program`'s shaders (`plan`) compiled to pipelines, its constant
  /// buffers uploaded into `memory`. Error WEFT_STATUS_UNSUPPORTED where the
  /// group needs more bindings, push constants or buffer range than the
  /// device has.
  Kernel(std::shared_ptr<Context> context, BlockAllocator& memory, const weft::sdk::LoopProgram& program,
         ShaderPlan plan);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const std::string& name() const { return name_; }
  /// Unique in the process: tells kernels apart where an address may be reused.
  uint64_t id() const { return id_; }
  const ShaderPlan& plan() const { return plan_; }
  const std::vector<Stage>& stages() const { return stages_; }
  VkPipelineLayout pipeline_layout() const { return pipeline_layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  uint32_t push_constant_bytes() const { return 4 * (1 + static_cast<uint32_t>(plan_.arg_slots)); }
  /// The device buffer of a kConstant binding (null for the others).
  const DeviceBuffer* constant(size_t binding) const { return constants_[binding]; }
  size_t num_args() const { return num_args_; }

 private:
  void release();

  std::shared_ptr<Context> context_;
  BlockAllocator& memory_;
  std::string name_;
  uint64_t id_;
  size_t num_args_;
  ShaderPlan plan_;
  std::vector<DeviceBuffer*> constants_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  std::vector<Stage> stages_;
};

}  // namespace vulkan_target
