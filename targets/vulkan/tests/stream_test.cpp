// The vulkan target's streams, driven directly: copies through staging,
// checked by reading back; a run that enqueues what the run before did is
// resubmitted without recording; bad copies are errors. Skips without a
// Vulkan device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <weft/plugin.hpp>

#include <numeric>
#include <vector>

#include "context.h"
#include "memory.h"
#include "stream.h"

namespace vulkan_target {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<Context> context_or_skip() {
  try {
    return Context::get(-1, true);
  } catch (const weft::sdk::Error& e) {
    if (e.code() == WEFT_STATUS_UNSUPPORTED) return nullptr;
    throw;
  }
}

#define CONTEXT_OR_SKIP(name)                                         \
  std::shared_ptr<Context> name = context_or_skip();                 \
  if (!name) GTEST_SKIP() << "no Vulkan device on this machine"

std::vector<float> ramp(size_t n, float start) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(VulkanStream, CopiesGoThroughTheDeviceAndARepeatedRunIsNotRecordedAgain) {
  CONTEXT_OR_SKIP(context);
  BlockAllocator memory(context);
  Stream stream(context, memory);
  DeviceBuffer* a = memory.allocate(4000, 64);
  DeviceBuffer* b = memory.allocate(4000, 64);
  for (float start : {0.0f, 100.0f, -7.0f}) {
    std::vector<float> in = ramp(1000, start), out(1000, 0.0f);
    stream.copy_from_host(in.data(), *a, 0, 4000);
    stream.copy_buffer(*a, 400, *b, 0, 3600);  // elements 100.. of a to the start of b
    stream.copy_to_host(*b, 0, out.data(), 3600);
    stream.synchronize();
    EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 900), std::vector<float>(in.begin() + 100, in.end()));
  }
  EXPECT_EQ(stream.recordings(), 1u);  // the second and third runs were resubmitted
  std::vector<float> in = ramp(10, 1.0f), out(10, 0.0f);
  stream.copy_from_host(in.data(), *b, 40, 40);
  stream.copy_buffer(*b, 40, *a, 0, 40);
  stream.copy_to_host(*a, 0, out.data(), 40);
  stream.synchronize();
  EXPECT_EQ(out, in);
  EXPECT_EQ(stream.recordings(), 2u);  // another sequence
  memory.release(a);
  memory.release(b);
  EXPECT_TRUE(context->take_validation_messages().empty());
}

TEST(VulkanStream, ACopyPastItsBufferIsAnErrorSayingSo) {
  CONTEXT_OR_SKIP(context);
  BlockAllocator memory(context);
  Stream stream(context, memory);
  DeviceBuffer* a = memory.allocate(100, 16);  // rounded up to its alignment
  std::vector<char> host(4096);
  try {
    stream.copy_from_host(host.data(), *a, 64, 4000);
    FAIL() << "an overrunning copy was enqueued";
  } catch (const weft::sdk::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("overruns a buffer of"));
  }
  EXPECT_THROW(stream.copy_buffer(*a, 0, *a, 16, 32), weft::sdk::Error);  // overlapping bytes of one buffer
  memory.release(a);
}

TEST(VulkanStream, AllocationsShareBlocksAndFreedSpaceIsReused) {
  CONTEXT_OR_SKIP(context);
  BlockAllocator memory(context);
  DeviceBuffer* a = memory.allocate(1000, 256);
  DeviceBuffer* b = memory.allocate(1000, 256);
  EXPECT_EQ(a->buffer, b->buffer);  // one block
  EXPECT_EQ(b->offset % 256, 0u);
  EXPECT_GE(b->offset, a->offset + 1000);
  const VkDeviceSize a_offset = a->offset;
  memory.release(a);
  DeviceBuffer* c = memory.allocate(500, 256);
  EXPECT_EQ(c->offset, a_offset);  // first fit: a's place
  DeviceBuffer* big = memory.allocate(BlockAllocator::kBlockBytes + 1, 64);  // a block of its own
  EXPECT_NE(big->buffer, b->buffer);
  EXPECT_GE(big->size, BlockAllocator::kBlockBytes + 1);
  for (DeviceBuffer* d : {b, c, big}) memory.release(d);
}

}  // namespace
}  // namespace vulkan_target
