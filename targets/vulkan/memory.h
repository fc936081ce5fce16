// Device memory: large blocks, each one VkBuffer, sub-allocated first-fit
// (the handles the host holds are places in a block), and host-visible
// buffers mapped for staging.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "context.h"

namespace vulkan_target {

/// A buffer of the target as the host holds it: `size` bytes at `offset` of
/// a block's VkBuffer.
struct DeviceBuffer {
  VkBuffer buffer;
  VkDeviceSize offset;
  VkDeviceSize size;
  size_t block;  // the allocator's
  char* host;    // its bytes mapped, where the device's memory is host-visible and coherent (else null)
};

/// Device-local memory for one target instance, in blocks of at least
/// kBlockBytes; a block is freed when its last allocation is. Where that
/// memory is also host-visible and coherent (an integrated GPU, lavapipe) a
/// block is mapped, so the host may read and write it directly.
class BlockAllocator {
 public:
  static constexpr VkDeviceSize kBlockBytes = VkDeviceSize{64} << 20;

  explicit BlockAllocator(std::shared_ptr<Context> context) : context_(std::move(context)) {}
  ~BlockAllocator();
  BlockAllocator(const BlockAllocator&) = delete;
  BlockAllocator& operator=(const BlockAllocator&) = delete;

  /// `nbytes` (at least 1) aligned to `alignment` (a power of two) and to
  /// the device's storage-buffer offset alignment. Thread-safe.
  DeviceBuffer* allocate(size_t nbytes, size_t alignment);
  void release(DeviceBuffer* buffer);

 private:
  struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    char* mapped = nullptr;
    std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> bytes, coalesced
    size_t live = 0;
  };
  void create_block(Block& block, VkDeviceSize size);
  void destroy_block(Block& block);

  std::shared_ptr<Context> context_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;  // null where freed
};

/// A host-visible, coherent buffer, mapped for its life.
class MappedBuffer {
 public:
  MappedBuffer(Context& context, VkDeviceSize size, VkBufferUsageFlags usage);
  ~MappedBuffer();
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  char* data() const { return static_cast<char*>(mapped_); }

 private:
  Context& context_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_;
  void* mapped_ = nullptr;
};

/// Copies `nbytes` of host memory into `dst` now, waiting for the copy (for
/// data a kernel keeps, once).
void upload_now(Context& context, const DeviceBuffer& dst, const void* src, size_t nbytes);

}  // namespace vulkan_target
