// One Vulkan device for the process: the instance, the chosen physical
// device, its logical device and compute queue, what its shaders may use, and
// the validation layer's messages when asked for. A context is made at its
// first use and kept for the process, as a GPU context is: every build of
// the process shares it.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "glsl_codegen.h"

namespace weft::sdk {
struct TargetDevice;
}

namespace vulkan_target {

/// Throws weft's error naming the Vulkan call unless `result` is VK_SUCCESS.
void check(VkResult result, const char* call);

class Context {
 public:
  /// The context on Vulkan device `index` (-1: the first discrete GPU, else
  /// the first device), with the validation layer when `validation`. Error
  /// with WEFT_STATUS_UNSUPPORTED when this machine has no Vulkan driver or
  /// device; with INVALID_ARGUMENT for an index past the devices.
  static std::shared_ptr<Context> get(int index, bool validation);

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  VkDevice device() const { return device_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  uint32_t queue_family() const { return queue_family_; }
  const VkPhysicalDeviceLimits& limits() const { return properties_.limits; }
  const ShaderFeatures& features() const { return features_; }
  /// vkCmdPushDescriptorSetKHR where the device has VK_KHR_push_descriptor, else null.
  PFN_vkCmdPushDescriptorSetKHR push_descriptor() const { return push_descriptor_; }
  std::string name() const { return properties_.deviceName; }
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  /// Nanoseconds per timestamp tick on the compute queue; 0 where it has no timestamps.
  double timestamp_period_ns() const { return timestamp_period_ns_; }
  /// Whether queries may be reset from the host (vkResetQueryPool).
  bool host_query_reset() const { return host_query_reset_; }

  /// Every device of the instance as `weft targets` lists it, this context's first.
  std::vector<weft::sdk::TargetDevice> describe() const;

  /// A memory type among `allowed` (a bit mask) with all of `required`,
  /// preferring one that also has `preferred`. Error when none has.
  uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
  /// The properties of memory type `type`.
  VkMemoryPropertyFlags memory_properties(uint32_t type) const;

  /// Submits `commands` to the queue and waits for them with `fence`
  /// (reset after); submissions from several threads take turns.
  void submit_and_wait(VkCommandBuffer commands, VkFence fence);

  /// The validation layer's warnings and errors since the last call.
  std::vector<std::string> take_validation_messages();
  /// Fails with the validation layer's messages since the last call, if it
  /// gave any; `during` says what weft was doing ("compiling group g").
  void check_validation(const std::string& during);
  /// Called by the layer's messenger.
  void add_validation_message(std::string message);

  /// Counts the destruction of buffers and pipelines (from 1): a command
  /// buffer recorded before a change refers to objects that may be gone.
  uint64_t generation() const { return generation_.load(); }
  void objects_destroyed() { ++generation_; }

 private:
  Context() = default;
  void create(int index, bool validation);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> all_devices_;
  VkPhysicalDeviceProperties properties_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  ShaderFeatures features_;
  PFN_vkCmdPushDescriptorSetKHR push_descriptor_ = nullptr;
  std::mutex queue_mutex_;
  std::mutex messages_mutex_;
  std::vector<std::string> messages_;
  std::atomic<uint64_t> generation_{1};  // 0 marks a recording as stale
  double timestamp_period_ns_ = 0;
  bool host_query_reset_ = false;
};

}  // namespace vulkan_target
