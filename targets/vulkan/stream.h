// A stream: the launches and copies enqueued since the last synchronize,
// recorded into one command buffer with a barrier after each, submitted with
// one wait. The graph is static, so a run enqueues what a run before it did:
// the command buffer recorded then (a stream keeps one per sequence it has
// seen, the last kMaxRecordings) is submitted again as it is, with no
// recording, no descriptor writes and no allocation. Host memory moves
// through a mapped staging buffer: uploads are copied into it just before
// the submission, downloads out of it just after the wait. Where the device's
// memory is mapped (memory.h), the uploads before any device work and the
// downloads after all of it are copied directly, with no command.
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
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
  /// With `timing`, each submission is timed on the device (timestamp
  /// queries) and from its first enqueue to the end of its synchronize on
  /// the host; the stream prints their medians to stderr when released.
  Stream(std::shared_ptr<Context> context, BlockAllocator& memory, bool timing = false);
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
  size_t recordings() const { return recordings_made_; }

  static constexpr size_t kMaxRecordings = 32;

 private:
  /// A dispatch of every stage of a kernel, or a copy between buffers (the
  /// staging buffer where `*_staging`, for host memory at host_src or
  /// host_dst; device_bytes: the device buffer's bytes, where mapped).
  struct Command {
    const Kernel* kernel = nullptr;
    uint64_t kernel_id = 0;
    uint32_t slot = 0;                                // its failure flag
    std::vector<VkDescriptorBufferInfo> buffers;      // per binding; scratch ones relative to the scratch buffer
    std::vector<int32_t> offsets;                     // push constants
    VkBuffer src = VK_NULL_HANDLE, dst = VK_NULL_HANDLE;
    VkDeviceSize src_offset = 0, dst_offset = 0, size = 0;
    bool src_staging = false, dst_staging = false;
    const void* host_src = nullptr;
    void* host_dst = nullptr;
    char* device_bytes = nullptr;
    /// The same work, wherever the host's memory is.
    bool operator==(const Command& o) const;
  };

  /// A command buffer recorded for one sequence of commands.
  struct Recording {
    VkCommandBuffer commands = VK_NULL_HANDLE;
    VkDescriptorPool descriptors = VK_NULL_HANDLE;  // where the device lacks push descriptors
    std::vector<Command> sequence;
    uint64_t generation = 0;
    uint64_t last_used = 0;
  };

  VkDeviceSize reserve_staging(VkDeviceSize nbytes);
  void enqueue(Command command);
  void ensure_capacity(const std::vector<Command>& work);
  /// The recording of `work`: one made before, or a new one.
  Recording& recording(const std::vector<Command>& work);
  void record(Recording& r, const std::vector<Command>& work);
  /// Records, submits and waits for `work`, its host memory copied through staging.
  void submit(std::vector<Command>& work);
  void reset_enqueued();
  void print_timing() const;

  std::shared_ptr<Context> context_;
  BlockAllocator& memory_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE;  // with timing: the start and end of a submission

  std::vector<Recording> recordings_;
  std::vector<Command> enqueued_;
  VkDeviceSize staging_used_ = 0;
  uint32_t slots_ = 0;
  uint64_t submissions_ = 0;
  size_t recordings_made_ = 0;

  std::chrono::steady_clock::time_point first_enqueue_;
  std::vector<double> device_us_, host_us_;  // per submission, with timing

  std::unique_ptr<MappedBuffer> staging_, flags_;
  DeviceBuffer* scratch_ = nullptr;
};

}  // namespace vulkan_target
