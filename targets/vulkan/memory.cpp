#include "memory.h"

#include <weft/plugin.hpp>

#include <algorithm>
#include <cstring>

namespace sdk = weft::sdk;

namespace vulkan_target {
namespace {

constexpr VkBufferUsageFlags kStorage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

/// A buffer of `size` bytes bound to new memory of the properties asked for.
void create_bound_buffer(Context& context, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                         VkMemoryPropertyFlags preferred, VkBuffer& buffer, VkDeviceMemory& memory,
                         VkMemoryPropertyFlags* got = nullptr) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(context.device(), &info, nullptr, &buffer), "vkCreateBuffer");
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(context.device(), buffer, &needs);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  try {
    alloc.memoryTypeIndex = context.memory_type(needs.memoryTypeBits, required, preferred);
    if (got) *got = context.memory_properties(alloc.memoryTypeIndex);
    check(vkAllocateMemory(context.device(), &alloc, nullptr, &memory), "vkAllocateMemory");
    check(vkBindBufferMemory(context.device(), buffer, memory, 0), "vkBindBufferMemory");
  } catch (...) {
    if (memory) vkFreeMemory(context.device(), memory, nullptr);
    vkDestroyBuffer(context.device(), buffer, nullptr);
    buffer = VK_NULL_HANDLE;
    memory = VK_NULL_HANDLE;
    throw;
  }
}

VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

}  // namespace

BlockAllocator::~BlockAllocator() {
  for (auto& block : blocks_)
    if (block) destroy_block(*block);
}

void BlockAllocator::create_block(Block& block, VkDeviceSize size) {
  VkMemoryPropertyFlags flags = 0;
  create_bound_buffer(*context_, size, kStorage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, block.buffer, block.memory,
                      &flags);
  block.size = size;
  block.free = {{0, size}};
  constexpr VkMemoryPropertyFlags kMappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  void* mapped = nullptr;
  if ((flags & kMappable) == kMappable &&
      vkMapMemory(context_->device(), block.memory, 0, VK_WHOLE_SIZE, 0, &mapped) == VK_SUCCESS)
    block.mapped = static_cast<char*>(mapped);
}

void BlockAllocator::destroy_block(Block& block) {
  context_->objects_destroyed();
  if (block.mapped) vkUnmapMemory(context_->device(), block.memory);
  vkDestroyBuffer(context_->device(), block.buffer, nullptr);
  vkFreeMemory(context_->device(), block.memory, nullptr);
}

DeviceBuffer* BlockAllocator::allocate(size_t nbytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw sdk::Error("alignment " + std::to_string(alignment) + " is not a power of two");
  const VkDeviceSize align = std::max<VkDeviceSize>(alignment, context_->limits().minStorageBufferOffsetAlignment);
  const VkDeviceSize size = align_up(std::max<size_t>(nbytes, 1), align);
  std::lock_guard<std::mutex> lock(mutex_);
  auto take = [&](size_t b) -> DeviceBuffer* {
    Block& block = *blocks_[b];
    for (auto it = block.free.begin(); it != block.free.end(); ++it) {
      const VkDeviceSize start = align_up(it->first, align);
      const VkDeviceSize end = it->first + it->second;
      if (start + size > end) continue;
      const VkDeviceSize hole_start = it->first;
      block.free.erase(it);
      if (start > hole_start) block.free[hole_start] = start - hole_start;
      if (end > start + size) block.free[start + size] = end - (start + size);
      ++block.live;
      return new DeviceBuffer{block.buffer, start, size, b, block.mapped ? block.mapped + start : nullptr};
    }
    return nullptr;
  };
  for (size_t b = 0; b < blocks_.size(); ++b)
    if (blocks_[b])
      if (DeviceBuffer* found = take(b)) return found;
  auto block = std::make_unique<Block>();
  create_block(*block, std::max(kBlockBytes, align_up(size, kBlockBytes)));
  size_t slot = std::find(blocks_.begin(), blocks_.end(), nullptr) - blocks_.begin();
  if (slot == blocks_.size()) blocks_.push_back(nullptr);
  blocks_[slot] = std::move(block);
  return take(slot);
}

void BlockAllocator::release(DeviceBuffer* buffer) {
  if (!buffer) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t index = buffer->block;
  Block& block = *blocks_.at(index);
  auto next = block.free.emplace(buffer->offset, buffer->size).first;
  // Coalesce with the holes on either side.
  if (auto after = std::next(next); after != block.free.end() && next->first + next->second == after->first) {
    next->second += after->second;
    block.free.erase(after);
  }
  if (next != block.free.begin()) {
    auto before = std::prev(next);
    if (before->first + before->second == next->first) {
      before->second += next->second;
      block.free.erase(next);
    }
  }
  delete buffer;
  if (--block.live == 0) {
    destroy_block(block);
    blocks_[index].reset();
  }
}

MappedBuffer::MappedBuffer(Context& context, VkDeviceSize size, VkBufferUsageFlags usage)
    : context_(context), size_(size) {
  create_bound_buffer(context, size, usage, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                      VK_MEMORY_PROPERTY_HOST_CACHED_BIT, buffer_, memory_);
  check(vkMapMemory(context.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
}

MappedBuffer::~MappedBuffer() {
  context_.objects_destroyed();
  vkUnmapMemory(context_.device(), memory_);
  vkDestroyBuffer(context_.device(), buffer_, nullptr);
  vkFreeMemory(context_.device(), memory_, nullptr);
}

void upload_now(Context& context, const DeviceBuffer& dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  MappedBuffer staging(context, nbytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  std::memcpy(staging.data(), src, nbytes);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = context.queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  check(vkCreateCommandPool(context.device(), &pool_info, nullptr, &pool), "vkCreateCommandPool");
  VkFence fence = VK_NULL_HANDLE;
  try {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(context.device(), &alloc, &commands), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
    VkBufferCopy region{0, dst.offset, nbytes};
    vkCmdCopyBuffer(commands, staging.buffer(), dst.buffer, 1, &region);
    check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(context.device(), &fence_info, nullptr, &fence), "vkCreateFence");
    context.submit_and_wait(commands, fence);
  } catch (...) {
    if (fence) vkDestroyFence(context.device(), fence, nullptr);
    vkDestroyCommandPool(context.device(), pool, nullptr);
    throw;
  }
  vkDestroyFence(context.device(), fence, nullptr);
  vkDestroyCommandPool(context.device(), pool, nullptr);
}

}  // namespace vulkan_target
