#include "kernel.h"

#include <weft/plugin.hpp>

#include "spirv.h"

namespace sdk = weft::sdk;

namespace vulkan_target {
namespace {

std::atomic<uint64_t> next_kernel_id{1};

}  // namespace

Kernel::Kernel(std::shared_ptr<Context> context, BlockAllocator& memory, const sdk::LoopProgram& program,
               ShaderPlan plan)
    : context_(std::move(context)),
      memory_(memory),
      name_(program.name()),
      id_(next_kernel_id++),
      num_args_(program.num_args()),
      plan_(std::move(plan)) {
  const VkPhysicalDeviceLimits& limits = context_->limits();
  if (plan_.bindings.size() + 1 > limits.maxPerStageDescriptorStorageBuffers)
    throw sdk::Unsupported("group " + name_ + " reads and writes " + std::to_string(plan_.bindings.size()) +
                           " buffers; the device binds " + std::to_string(limits.maxPerStageDescriptorStorageBuffers - 1));
  if (push_constant_bytes() > limits.maxPushConstantsSize)
    throw sdk::Unsupported("group " + name_ + " takes " + std::to_string(plan_.arg_slots) +
                           " tensors; the device's push constants hold the offsets of " +
                           std::to_string(limits.maxPushConstantsSize / 4 - 1));
  for (const ShaderBinding& b : plan_.bindings) {
    // An argument's binding may start up to an alignment early (its offset rounded down).
    const int64_t range = b.bytes + static_cast<int64_t>(limits.minStorageBufferOffsetAlignment);
    if (range > static_cast<int64_t>(limits.maxStorageBufferRange))
      throw sdk::Unsupported("group " + name_ + " has a buffer of " + std::to_string(b.bytes) +
                             " bytes; the device binds at most " + std::to_string(limits.maxStorageBufferRange));
  }
  try {
    constants_.assign(plan_.bindings.size(), nullptr);
    for (size_t k = 0; k < plan_.bindings.size(); ++k) {
      if (plan_.bindings[k].kind != ShaderBinding::Kind::kConstant) continue;
      const weft_loop_buffer_t& b = program.buffer(plan_.bindings[k].buffer);
      constants_[k] = memory_.allocate(static_cast<size_t>(plan_.bindings[k].bytes), 16);
      upload_now(*context_, *constants_[k], static_cast<const char*>(b.data->data) + b.data->byte_offset,
                 static_cast<size_t>(plan_.bindings[k].bytes));
    }

    std::vector<VkDescriptorSetLayoutBinding> bindings(plan_.bindings.size() + 1);
    for (uint32_t k = 0; k < bindings.size(); ++k) {
      bindings[k].binding = k;
      bindings[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[k].descriptorCount = 1;
      bindings[k].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    if (context_->push_descriptor()) set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    set_info.bindingCount = static_cast<uint32_t>(bindings.size());
    set_info.pBindings = bindings.data();
    check(vkCreateDescriptorSetLayout(context_->device(), &set_info, nullptr, &set_layout_),
          "vkCreateDescriptorSetLayout");
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes()};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout_;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push;
    check(vkCreatePipelineLayout(context_->device(), &layout_info, nullptr, &pipeline_layout_),
          "vkCreatePipelineLayout");

    for (const ShaderStage& s : plan_.stages) {
      const std::vector<uint32_t> spirv = compile_glsl(s.glsl, name_);
      VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
      module_info.codeSize = spirv.size() * sizeof(uint32_t);
      module_info.pCode = spirv.data();
      VkShaderModule module = VK_NULL_HANDLE;
      check(vkCreateShaderModule(context_->device(), &module_info, nullptr, &module), "vkCreateShaderModule");
      VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      pipeline_info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      pipeline_info.stage.module = module;
      pipeline_info.stage.pName = "main";
      const uint32_t grid[3] = {static_cast<uint32_t>(kWorkgroupSize), static_cast<uint32_t>(s.invocations),
                                static_cast<uint32_t>(s.workgroups * kWorkgroupSize)};
      const VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
      VkSpecializationInfo specialization{3, entries, sizeof grid, grid};
      pipeline_info.stage.pSpecializationInfo = &specialization;
      pipeline_info.layout = pipeline_layout_;
      VkPipeline pipeline = VK_NULL_HANDLE;
      const VkResult made = vkCreateComputePipelines(context_->device(), context_->pipeline_cache(), 1,
                                                     &pipeline_info, nullptr, &pipeline);
      vkDestroyShaderModule(context_->device(), module, nullptr);
      check(made, "vkCreateComputePipelines");
      stages_.push_back({pipeline, static_cast<uint32_t>(s.workgroups)});
    }
  } catch (...) {
    release();
    throw;
  }
}

Kernel::~Kernel() { release(); }

void Kernel::release() {
  context_->objects_destroyed();
  VkDevice device = context_->device();
  for (Stage& s : stages_) vkDestroyPipeline(device, s.pipeline, nullptr);
  stages_.clear();
  if (pipeline_layout_) vkDestroyPipelineLayout(device, pipeline_layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
  pipeline_layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
  for (DeviceBuffer*& c : constants_) {
    memory_.release(c);
    c = nullptr;
  }
}

}  // namespace vulkan_target
