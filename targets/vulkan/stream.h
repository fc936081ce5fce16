// A stream: the launches and copies enqueued since the last synchronize,
// recorded into one command buffer with a barrier after each, submitted with
// one wait. The graph is static, so a run enqueues what the one before it
// did: the command buffer recorded then is submitted again as it is, with no
// recording, no descriptor writes and no allocation. Host memory moves
// through a mapped staging buffer: uploads are copied into it just before
// the submission, downloads out of it just after the wait.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "kernel.h"
#include "memory.h"

namespace weft::sdk {
struct LaunchArgs;
}

namespace vulkan_target {

class Stream {
 public:
  Stream(std::shared_ptr<Context> context, BlockAllocator& memory);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// Enqueues `kernel` on `launch`'s arguments (buffers of this target).
  /// Error naming the group when an argument does not fit its buffer.
  void launch(const Kernel& kernel, const weft::sdk::LaunchArgs& launch);
  void copy_from_host(const void* src, const DeviceBuffer& dst, size_t dst_offset, size_t nbytes);
  void copy_to_host(const DeviceBuffer& src, size_t src_offset, void* dst, size_t nbytes);
  void copy_buffer(const DeviceBuffer& src, size_t src_offset, const DeviceBuffer& dst, size_t dst_offset, size_t nbytes);
  /// Runs what was enqueued and waits for it. Error naming the group whose
  /// integer division met a zero divisor, or listing the validation layer's
  /// messages.
  void synchronize();

  /// How many times a command buffer was recorded (a run resubmitted adds none).
  size_t recordings() const { return recordings_; }

 private:
  /// A dispatch of every stage of a kernel, or a copy between buffers (the
  /// staging buffer where `*_staging`).
  struct Command {
    const Kernel* kernel = nullptr;
    uint64_t kernel_id = 0;
    uint32_t slot = 0;                                // its failure flag
    std::vector<VkDescriptorBufferInfo> buffers;      // per binding; scratch ones relative to the scratch buffer
    std::vector<int32_t> offsets;                     // push constants
    VkBuffer src = VK_NULL_HANDLE, dst = VK_NULL_HANDLE;
    VkDeviceSize src_offset = 0, dst_offset = 0, size = 0;
    bool src_staging = false, dst_staging = false;
    bool operator==(const Command& o) const;
  };
  struct HostCopy {
    const void* src;
    void* dst;
    VkDeviceSize staging_offset, size;
  };

  VkDeviceSize reserve_staging(VkDeviceSize nbytes);
  bool ensure_capacity();
  void record();
  void reset_enqueued();

  std::shared_ptr<Context> context_;
  BlockAllocator& memory_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;  // where the device lacks push descriptors

  std::vector<Command> enqueued_, recorded_;
  std::vector<HostCopy> uploads_, downloads_;
  VkDeviceSize staging_used_ = 0;
  uint32_t slots_ = 0;
  uint64_t recorded_generation_ = 0;
  bool has_recording_ = false;
  size_t recordings_ = 0;

  std::unique_ptr<MappedBuffer> staging_, flags_;
  DeviceBuffer* scratch_ = nullptr;
};

}  // namespace vulkan_target
