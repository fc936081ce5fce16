#include "context.h"

#include <weft/plugin.hpp>

#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

namespace sdk = weft::sdk;

namespace vulkan_target {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

/// How long a wait polls its fence before it sleeps.
constexpr int kSpinMicroseconds = 2000;

const char* result_name(VkResult r) {
  switch (r) {
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    default: return "VkResult";
  }
}

const char* device_type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string version_text(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

bool has_layer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const VkLayerProperties& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

bool has_device_extension(VkPhysicalDevice device, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> extensions(n);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &n, extensions.data());
  for (const VkExtensionProperties& e : extensions)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                      VkDebugUtilsMessageTypeFlagsEXT,
                                                      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  static_cast<Context*>(user)->add_validation_message(data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

}  // namespace

void check(VkResult result, const char* call) {
  if (result == VK_SUCCESS) return;
  const weft_status_code_t code = result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY
                                      ? WEFT_STATUS_OUT_OF_MEMORY
                                      : WEFT_STATUS_INTERNAL;
  throw sdk::Error(std::string(call) + " failed: " + result_name(result) + " (" + std::to_string(result) + ")", code);
}

std::shared_ptr<Context> Context::get(int index, bool validation) {
  // Kept for the process (never destroyed): the driver's own threads and
  // exit handlers then never meet a device torn down under them.
  static std::mutex mutex;
  static auto* contexts = new std::map<std::pair<int, bool>, std::shared_ptr<Context>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Context>& slot = (*contexts)[{index, validation}];
  if (!slot) {
    std::shared_ptr<Context> context(new Context());
    context->create(index, validation);
    slot = context;
  }
  return slot;
}

void Context::create(int index, bool validation) {
  if (validation && !has_layer(kValidationLayer))
    throw sdk::Error(std::string(kValidationLayer) +
                     " is not installed (Debian's vulkan-validationlayers has it), so validation cannot be on");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "weft";
  app.pEngineName = "weft";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  const char* layers[] = {kValidationLayer};
  const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  if (validation) {
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
  }
  const VkResult created = vkCreateInstance(&info, nullptr, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER || created == VK_ERROR_INITIALIZATION_FAILED)
    throw sdk::Unsupported("no Vulkan driver on this machine (vkCreateInstance: " + std::string(result_name(created)) +
                           "); Debian's mesa-vulkan-drivers has lavapipe, a CPU one");
  check(created, "vkCreateInstance");
  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    m.pfnUserCallback = on_validation_message;
    m.pUserData = this;
    auto make = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (!make) throw sdk::Error("the validation layer has no vkCreateDebugUtilsMessengerEXT");
    check(make(instance_, &m, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
  }

  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  all_devices_.resize(count);
  check(vkEnumeratePhysicalDevices(instance_, &count, all_devices_.data()), "vkEnumeratePhysicalDevices");
  if (count == 0) throw sdk::Unsupported("the Vulkan driver reports no device");
  if (index >= static_cast<int>(count))
    throw sdk::Error("device " + std::to_string(index) + " does not exist: this machine has " + std::to_string(count) +
                         " Vulkan device" + (count == 1 ? "" : "s") + " (weft targets lists them)",
                     WEFT_STATUS_INVALID_ARGUMENT);
  size_t chosen = 0;
  if (index >= 0) {
    chosen = static_cast<size_t>(index);
  } else {
    for (size_t i = 0; i < all_devices_.size(); ++i) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(all_devices_[i], &p);
      if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
        chosen = i;
        break;
      }
    }
  }
  physical_ = all_devices_[chosen];
  vkGetPhysicalDeviceProperties(physical_, &properties_);
  if (properties_.apiVersion < VK_API_VERSION_1_2)
    throw sdk::Unsupported(std::string(properties_.deviceName) + " has Vulkan " + version_text(properties_.apiVersion) +
                           "; weft's shaders need 1.2");

  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, family.data());
  queue_family_ = families;
  for (uint32_t f = 0; f < families; ++f) {
    if (family[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = f;
      break;
    }
  }
  if (queue_family_ == families) throw sdk::Unsupported(std::string(properties_.deviceName) + " has no compute queue");
  if (family[queue_family_].timestampValidBits > 0) timestamp_period_ns_ = properties_.limits.timestampPeriod;

  // What the device has of the features the shaders may use; each enabled
  // where present.
  VkPhysicalDeviceVulkan12Features has12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features has11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  has11.pNext = &has12;
  VkPhysicalDeviceFeatures2 has{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  has.pNext = &has11;
  vkGetPhysicalDeviceFeatures2(physical_, &has);
  VkPhysicalDeviceVulkan12Features want12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  want12.storageBuffer8BitAccess = has12.storageBuffer8BitAccess;
  want12.shaderInt8 = has12.shaderInt8;
  want12.shaderFloat16 = has12.shaderFloat16;
  want12.hostQueryReset = has12.hostQueryReset;
  VkPhysicalDeviceVulkan11Features want11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  want11.storageBuffer16BitAccess = has11.storageBuffer16BitAccess;
  want11.pNext = &want12;
  VkPhysicalDeviceFeatures2 want{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  want.features.shaderInt64 = has.features.shaderInt64;
  want.features.shaderInt16 = has.features.shaderInt16;
  want.features.shaderFloat64 = has.features.shaderFloat64;
  want.pNext = &want11;
  features_.int8 = has12.shaderInt8;
  features_.int16 = has.features.shaderInt16;
  features_.int64 = has.features.shaderInt64;
  features_.float16 = has12.shaderFloat16;
  features_.float64 = has.features.shaderFloat64;
  features_.storage8 = has12.storageBuffer8BitAccess;
  features_.storage16 = has11.storageBuffer16BitAccess;
  host_query_reset_ = has12.hostQueryReset;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = queue_family_;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  std::vector<const char*> device_extensions;
  const bool push = has_device_extension(physical_, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (push) device_extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  VkDeviceCreateInfo dev{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dev.pNext = &want;
  dev.queueCreateInfoCount = 1;
  dev.pQueueCreateInfos = &queue;
  dev.enabledExtensionCount = static_cast<uint32_t>(device_extensions.size());
  dev.ppEnabledExtensionNames = device_extensions.data();
  check(vkCreateDevice(physical_, &dev, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  if (push)
    push_descriptor_ =
        reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(device_, "vkCmdPushDescriptorSetKHR"));
  VkPipelineCacheCreateInfo cache{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  check(vkCreatePipelineCache(device_, &cache, nullptr, &pipeline_cache_), "vkCreatePipelineCache");
}

Context::~Context() {
  if (device_) {
    vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

std::vector<sdk::TargetDevice> Context::describe() const {
  std::vector<sdk::TargetDevice> out;
  std::vector<VkPhysicalDevice> order = {physical_};
  for (VkPhysicalDevice d : all_devices_)
    if (d != physical_) order.push_back(d);
  for (VkPhysicalDevice d : order) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(d, &memory);
    uint64_t local = 0;
    for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
      if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) local += memory.memoryHeaps[h].size;
    size_t index = 0;
    while (all_devices_[index] != d) ++index;
    out.push_back({p.deviceName,
                   {{"index", std::to_string(index)},
                    {"type", device_type_name(p.deviceType)},
                    {"memory_bytes", std::to_string(local)},
                    {"vulkan", version_text(p.apiVersion)},
                    {"max_workgroup_invocations", std::to_string(p.limits.maxComputeWorkGroupInvocations)},
                    {"max_storage_buffer_range", std::to_string(p.limits.maxStorageBufferRange)},
                    {"max_storage_buffers_per_stage", std::to_string(p.limits.maxPerStageDescriptorStorageBuffers)}}});
  }
  return out;
}

uint32_t Context::memory_type(uint32_t allowed, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  uint32_t fallback = UINT32_MAX;
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    if (!(allowed & (1u << t))) continue;
    const VkMemoryPropertyFlags flags = memory.memoryTypes[t].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return t;
    if (fallback == UINT32_MAX) fallback = t;
  }
  if (fallback == UINT32_MAX)
    throw sdk::Error(name() + " has no memory type with the properties " + std::to_string(required));
  return fallback;
}

VkMemoryPropertyFlags Context::memory_properties(uint32_t type) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  return type < memory.memoryTypeCount ? memory.memoryTypes[type].propertyFlags : 0;
}

void Context::submit_and_wait(VkCommandBuffer commands, VkFence fence) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    check(vkQueueSubmit(queue_, 1, &submit, fence), "vkQueueSubmit");
  }
  // Polled for a while before sleeping: a short run's end is seen at once,
  // not after the waiting thread is woken (tens of microseconds).
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
  VkResult status = vkGetFenceStatus(device_, fence);
  while (status == VK_NOT_READY && std::chrono::steady_clock::now() < spin_until) {
    std::this_thread::yield();
    status = vkGetFenceStatus(device_, fence);
  }
  if (status == VK_NOT_READY) status = vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX);
  check(status, "vkWaitForFences");
  check(vkResetFences(device_, 1, &fence), "vkResetFences");
}

void Context::add_validation_message(std::string message) {
  std::lock_guard<std::mutex> lock(messages_mutex_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> Context::take_validation_messages() {
  std::lock_guard<std::mutex> lock(messages_mutex_);
  return std::exchange(messages_, {});
}

void Context::check_validation(const std::string& during) {
  std::vector<std::string> messages = take_validation_messages();
  if (messages.empty()) return;
  std::string text = "the Vulkan validation layer reported, " + during + ":";
  for (const std::string& m : messages) text += "\n  " + m;
  throw sdk::Error(text);
}

}  // namespace vulkan_target
