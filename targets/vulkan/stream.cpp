#include "stream.h"

#include <weft/plugin.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace sdk = weft::sdk;

namespace vulkan_target {
namespace {

constexpr VkDeviceSize kStagingAlignment = 16;

bool same(const VkDescriptorBufferInfo& a, const VkDescriptorBufferInfo& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.range == b.range;
}

/// Everything written before is visible to everything after, on the device
/// (and to the host after the last).
void barrier(VkCommandBuffer commands, bool to_host) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = to_host ? VK_ACCESS_HOST_READ_BIT
                            : VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                  VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags from = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  const VkPipelineStageFlags to = to_host ? VkPipelineStageFlags{VK_PIPELINE_STAGE_HOST_BIT} : from;
  vkCmdPipelineBarrier(commands, from, to, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace

bool Stream::Command::operator==(const Command& o) const {
  if (kernel_id != o.kernel_id || slot != o.slot || offsets != o.offsets || buffers.size() != o.buffers.size())
    return false;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (!same(buffers[i], o.buffers[i])) return false;
  return src == o.src && dst == o.dst && src_offset == o.src_offset && dst_offset == o.dst_offset && size == o.size &&
         src_staging == o.src_staging && dst_staging == o.dst_staging;
}

Stream::Stream(std::shared_ptr<Context> context, BlockAllocator& memory, bool timing)
    : context_(std::move(context)), memory_(memory) {
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = context_->queue_family();
  check(vkCreateCommandPool(context_->device(), &pool, nullptr, &pool_), "vkCreateCommandPool");
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  try {
    check(vkCreateFence(context_->device(), &fence, nullptr, &fence_), "vkCreateFence");
    if (timing && context_->timestamp_period_ns() > 0) {
      VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
      queries.queryCount = 2;
      check(vkCreateQueryPool(context_->device(), &queries, nullptr, &timestamps_), "vkCreateQueryPool");
    }
  } catch (...) {
    if (fence_) vkDestroyFence(context_->device(), fence_, nullptr);
    vkDestroyCommandPool(context_->device(), pool_, nullptr);
    throw;
  }
}

Stream::~Stream() {
  if (timestamps_) print_timing();
  VkDevice device = context_->device();
  for (Recording& r : recordings_)
    if (r.descriptors) vkDestroyDescriptorPool(device, r.descriptors, nullptr);
  if (timestamps_) vkDestroyQueryPool(device, timestamps_, nullptr);
  vkDestroyFence(device, fence_, nullptr);
  vkDestroyCommandPool(device, pool_, nullptr);  // and its command buffers
  memory_.release(scratch_);
}

void Stream::print_timing() const {
  if (device_us_.empty()) return;
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  // The host's time includes what the timestamps cost the driver (lavapipe
  // finishes its work at each: some 90 us); an untimed run's latency less
  // the device's time is the run's cost beyond its kernels.
  std::fprintf(stderr,
               "vulkan: %zu submissions on %s: median %.1f us on the device, %.1f us on the host from the first "
               "enqueue to the end of the wait; %zu recorded\n",
               device_us_.size(), context_->name().c_str(), median(device_us_), median(host_us_), recordings_made_);
}

void Stream::enqueue(Command command) {
  if (enqueued_.empty()) first_enqueue_ = std::chrono::steady_clock::now();
  enqueued_.push_back(std::move(command));
}

void Stream::launch(const Kernel& kernel, const sdk::LaunchArgs& launch) {
  if (launch.args.size() != kernel.num_args())
    throw sdk::Error("group " + kernel.name() + " takes " + std::to_string(kernel.num_args()) +
                     " tensors (parameters, then outputs), got " + std::to_string(launch.args.size()));
  const ShaderPlan& plan = kernel.plan();
  const VkDeviceSize align = context_->limits().minStorageBufferOffsetAlignment;
  Command c;
  c.kernel = &kernel;
  c.kernel_id = kernel.id();
  c.slot = slots_++;
  c.offsets.assign(static_cast<size_t>(plan.arg_slots), 0);
  c.buffers.resize(plan.bindings.size());
  for (size_t k = 0; k < plan.bindings.size(); ++k) {
    const ShaderBinding& b = plan.bindings[k];
    const VkDeviceSize bytes = static_cast<VkDeviceSize>(std::max<int64_t>(b.bytes, 1));
    if (b.kind == ShaderBinding::Kind::kConstant) {
      c.buffers[k] = {kernel.constant(k)->buffer, kernel.constant(k)->offset, bytes};
    } else if (b.kind == ShaderBinding::Kind::kScratch) {
      c.buffers[k] = {VK_NULL_HANDLE, static_cast<VkDeviceSize>(b.scratch_offset), bytes};
    } else {
      const DLTensor& t = launch.args[static_cast<size_t>(b.arg)].dl();
      const auto* buffer = static_cast<const DeviceBuffer*>(t.data);
      const std::string which = "argument " + std::to_string(b.arg) + " of group " + kernel.name();
      if (!buffer) throw sdk::Error(which + " has no buffer");
      if (t.byte_offset + bytes > buffer->size)
        throw sdk::Error(which + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(t.byte_offset) +
                         " do not fit its buffer of " + std::to_string(buffer->size));
      // The binding starts at the offset rounded down to the device's
      // alignment; the shader indexes from the rest, in elements.
      const VkDeviceSize at = buffer->offset + t.byte_offset, start = at / align * align;
      const VkDeviceSize element = std::max<VkDeviceSize>((t.dtype.bits + 7) / 8, 1);
      if ((at - start) % element != 0)
        throw sdk::Error(which + " starts at byte " + std::to_string(t.byte_offset) + ", not at a whole element");
      c.buffers[k] = {buffer->buffer, start, at - start + bytes};
      c.offsets[static_cast<size_t>(b.arg_slot)] = static_cast<int32_t>((at - start) / element);
    }
  }
  enqueue(std::move(c));
}

VkDeviceSize Stream::reserve_staging(VkDeviceSize nbytes) {
  const VkDeviceSize at = staging_used_;
  staging_used_ += (nbytes + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
  return at;
}

void Stream::copy_from_host(const void* src, const DeviceBuffer& dst, size_t dst_offset, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_offset + nbytes > dst.size)
    throw sdk::Error("a copy of " + std::to_string(nbytes) + " bytes to offset " + std::to_string(dst_offset) +
                     " overruns a buffer of " + std::to_string(dst.size));
  Command c;
  c.src_staging = true;
  c.host_src = src;
  c.dst = dst.buffer;
  c.dst_offset = dst.offset + dst_offset;
  c.size = nbytes;
  c.device_bytes = dst.host ? dst.host + dst_offset : nullptr;
  enqueue(std::move(c));
}

void Stream::copy_to_host(const DeviceBuffer& src, size_t src_offset, void* dst, size_t nbytes) {
  if (nbytes == 0) return;
  if (src_offset + nbytes > src.size)
    throw sdk::Error("a copy of " + std::to_string(nbytes) + " bytes from offset " + std::to_string(src_offset) +
                     " overruns a buffer of " + std::to_string(src.size));
  Command c;
  c.src = src.buffer;
  c.src_offset = src.offset + src_offset;
  c.dst_staging = true;
  c.host_dst = dst;
  c.size = nbytes;
  c.device_bytes = src.host ? src.host + src_offset : nullptr;
  enqueue(std::move(c));
}

void Stream::copy_buffer(const DeviceBuffer& src, size_t src_offset, const DeviceBuffer& dst, size_t dst_offset,
                         size_t nbytes) {
  if (nbytes == 0) return;
  if (src_offset + nbytes > src.size || dst_offset + nbytes > dst.size)
    throw sdk::Error("a copy of " + std::to_string(nbytes) + " bytes between buffers overruns one of them");
  Command c;
  c.src = src.buffer;
  c.src_offset = src.offset + src_offset;
  c.dst = dst.buffer;
  c.dst_offset = dst.offset + dst_offset;
  c.size = nbytes;
  if (c.src == c.dst && c.src_offset < c.dst_offset + nbytes && c.dst_offset < c.src_offset + nbytes)
    throw sdk::Error("a copy between overlapping bytes of one buffer");
  enqueue(std::move(c));
}

/// Grows the staging, flag and scratch buffers to what the enqueued work
/// needs (a replaced one makes the recordings that used it stale).
void Stream::ensure_capacity(const std::vector<Command>& work) {
  const VkDeviceSize staging = std::max<VkDeviceSize>(staging_used_, kStagingAlignment);
  if (!staging_ || staging_->size() < staging)
    staging_ = std::make_unique<MappedBuffer>(*context_, std::max(staging, 2 * (staging_ ? staging_->size() : 0)),
                                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  const VkDeviceSize flags = 4 * std::max<VkDeviceSize>(slots_, 1);
  if (!flags_ || flags_->size() < flags)
    flags_ = std::make_unique<MappedBuffer>(*context_, std::max(flags, 2 * (flags_ ? flags_->size() : 0)),
                                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  int64_t scratch = 0;
  for (const Command& c : work)
    if (c.kernel) scratch = std::max(scratch, c.kernel->plan().scratch_bytes);
  if (scratch > 0 && (!scratch_ || scratch_->size < static_cast<VkDeviceSize>(scratch))) {
    memory_.release(scratch_);
    scratch_ = nullptr;
    scratch_ = memory_.allocate(static_cast<size_t>(scratch), static_cast<size_t>(kScratchAlignment));
    context_->objects_destroyed();  // the recordings bound the old scratch
  }
}

Stream::Recording& Stream::recording(const std::vector<Command>& work) {
  const uint64_t generation = context_->generation();
  ++submissions_;
  for (Recording& r : recordings_) {
    if (r.generation == generation && r.sequence == work) {
      r.last_used = submissions_;
      return r;
    }
  }
  // A stale recording's buffer, else a new one, else the least recently used.
  Recording* slot = nullptr;
  for (Recording& r : recordings_)
    if (r.generation != generation) slot = &r;
  if (!slot && recordings_.size() < kMaxRecordings) {
    Recording fresh;
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(context_->device(), &alloc, &fresh.commands), "vkAllocateCommandBuffers");
    recordings_.push_back(std::move(fresh));
    slot = &recordings_.back();
  }
  if (!slot)
    slot = &*std::min_element(recordings_.begin(), recordings_.end(),
                              [](const Recording& a, const Recording& b) { return a.last_used < b.last_used; });
  slot->generation = 0;  // stale until recorded
  record(*slot, work);
  slot->sequence = work;
  slot->generation = generation;
  slot->last_used = submissions_;
  return *slot;
}

void Stream::record(Recording& r, const std::vector<Command>& work) {
  VkDevice device = context_->device();
  VkCommandBuffer commands = r.commands;
  check(vkResetCommandBuffer(commands, 0), "vkResetCommandBuffer");
  const PFN_vkCmdPushDescriptorSetKHR push = context_->push_descriptor();
  if (!push) {  // one set per launch, from a pool sized for this recording
    if (r.descriptors) vkDestroyDescriptorPool(device, r.descriptors, nullptr);
    r.descriptors = VK_NULL_HANDLE;
    uint32_t launches = 0, buffers = 0;
    for (const Command& c : work)
      if (c.kernel) ++launches, buffers += static_cast<uint32_t>(c.buffers.size()) + 1;
    if (launches) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = launches;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      check(vkCreateDescriptorPool(device, &info, nullptr, &r.descriptors), "vkCreateDescriptorPool");
    }
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  if (timestamps_) {
    // Reset by the host before each submission where it may be (cheaper in lavapipe).
    if (!context_->host_query_reset()) vkCmdResetQueryPool(commands, timestamps_, 0, 2);
    vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps_, 0);
  }
  // A barrier between each dispatch or copy and the next, and one for the
  // host after the last.
  bool first = true;
  auto next = [&]() {
    if (!first) barrier(commands, false);
    first = false;
  };
  for (const Command& c : work) {
    if (!c.kernel) {
      next();
      VkBufferCopy region{c.src_offset, c.dst_offset, c.size};
      vkCmdCopyBuffer(commands, c.src_staging ? staging_->buffer() : c.src, c.dst_staging ? staging_->buffer() : c.dst,
                      1, &region);
      continue;
    }
    const Kernel& k = *c.kernel;
    std::vector<VkDescriptorBufferInfo> infos;
    infos.push_back({flags_->buffer(), 0, VK_WHOLE_SIZE});  // the shader indexes its slot
    for (VkDescriptorBufferInfo b : c.buffers) {
      if (!b.buffer) {  // scratch
        b.buffer = scratch_->buffer;
        b.offset += scratch_->offset;
      }
      infos.push_back(b);
    }
    std::vector<VkWriteDescriptorSet> writes(infos.size());
    for (uint32_t i = 0; i < writes.size(); ++i) {
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (!push) {
      VkDescriptorSetLayout layout = k.set_layout();
      VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      alloc.descriptorPool = r.descriptors;
      alloc.descriptorSetCount = 1;
      alloc.pSetLayouts = &layout;
      check(vkAllocateDescriptorSets(device, &alloc, &set), "vkAllocateDescriptorSets");
      for (VkWriteDescriptorSet& w : writes) w.dstSet = set;
      vkUpdateDescriptorSets(device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
    std::vector<uint32_t> constants = {c.slot};
    for (int32_t o : c.offsets) constants.push_back(static_cast<uint32_t>(o));
    for (const Kernel::Stage& s : k.stages()) {
      next();
      vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline);
      if (push)
        push(commands, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline_layout(), 0, static_cast<uint32_t>(writes.size()),
             writes.data());
      else
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline_layout(), 0, 1, &set, 0, nullptr);
      vkCmdPushConstants(commands, k.pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, k.push_constant_bytes(),
                         constants.data());
      vkCmdDispatch(commands, s.workgroups, 1, 1);
    }
  }
  if (timestamps_) vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps_, 1);
  barrier(commands, true);
  check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  ++recordings_made_;
}

void Stream::reset_enqueued() {
  enqueued_.clear();
  staging_used_ = 0;
  slots_ = 0;
}

void Stream::submit(std::vector<Command>& work) {
  staging_used_ = 0;
  for (Command& c : work) {
    if (c.host_src) c.src_offset = reserve_staging(c.size);
    if (c.host_dst) c.dst_offset = reserve_staging(c.size);
  }
  ensure_capacity(work);
  VkCommandBuffer commands = recording(work).commands;
  for (const Command& c : work)
    if (c.host_src) std::memcpy(staging_->data() + c.src_offset, c.host_src, c.size);
  std::memset(flags_->data(), 0, 4 * std::max<size_t>(slots_, 1));
  if (timestamps_ && context_->host_query_reset()) vkResetQueryPool(context_->device(), timestamps_, 0, 2);
  context_->submit_and_wait(commands, fence_);
  for (const Command& c : work)
    if (c.host_dst) std::memcpy(c.host_dst, staging_->data() + c.dst_offset, c.size);
  if (timestamps_) {
    uint64_t ticks[2] = {0, 0};
    if (vkGetQueryPoolResults(context_->device(), timestamps_, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
      device_us_.push_back(static_cast<double>(ticks[1] - ticks[0]) * context_->timestamp_period_ns() / 1000.0);
      host_us_.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - first_enqueue_).count());
    }
  }
}

void Stream::synchronize() {
  if (enqueued_.empty()) return;
  // Uploads before any device work and downloads after all of it, where the
  // device's bytes are mapped, are copied directly.
  auto direct = [](const Command& c, bool upload) { return c.device_bytes && (upload ? c.host_src : c.host_dst); };
  size_t begin = 0, end = enqueued_.size();
  while (begin < end && direct(enqueued_[begin], true)) ++begin;
  while (end > begin && direct(enqueued_[end - 1], false)) --end;
  std::vector<Command> work(enqueued_.begin() + static_cast<std::ptrdiff_t>(begin),
                            enqueued_.begin() + static_cast<std::ptrdiff_t>(end));
  try {
    for (size_t i = 0; i < begin; ++i) std::memcpy(enqueued_[i].device_bytes, enqueued_[i].host_src, enqueued_[i].size);
    if (!work.empty()) submit(work);
    for (size_t i = end; i < enqueued_.size(); ++i)
      std::memcpy(enqueued_[i].host_dst, enqueued_[i].device_bytes, enqueued_[i].size);
  } catch (...) {
    for (Recording& r : recordings_) r.generation = 0;  // maybe half recorded or in use: record again
    reset_enqueued();
    throw;
  }
  std::string failed;
  const auto* flags = reinterpret_cast<const uint32_t*>(flags_ ? flags_->data() : nullptr);
  for (const Command& c : work)
    if (c.kernel && flags[c.slot] && failed.empty()) failed = c.kernel->name();
  reset_enqueued();
  context_->check_validation("running a stream's work");
  if (!failed.empty()) throw sdk::Error("integer division or modulo by zero in group " + failed);
}

}  // namespace vulkan_target
