#include "host_memory_target.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace weft::targets {

BufferHandle HostMemoryTarget::alloc(int /*device*/, size_t nbytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw Error("the " + name_ + " target cannot align a buffer to " + std::to_string(alignment) + " bytes")
        .expected("a power of two");
  alignment = std::max(alignment, Tensor::kAlignment);
  // aligned_alloc wants a multiple of the alignment, and a block even for 0 bytes.
  size_t rounded = std::max<size_t>(1, (nbytes + alignment - 1) / alignment) * alignment;
  void* buffer = std::aligned_alloc(alignment, rounded);
  if (!buffer)
    throw Error("out of memory: the " + name_ + " target cannot allocate " + std::to_string(nbytes) + " bytes");
  return buffer;
}

void HostMemoryTarget::free(int /*device*/, BufferHandle buffer) { std::free(buffer); }

void HostMemoryTarget::copy_from_host(StreamHandle, const void* src, BufferHandle dst, size_t dst_offset,
                                      size_t nbytes) {
  std::memcpy(static_cast<char*>(dst) + dst_offset, src, nbytes);
}

void HostMemoryTarget::copy_to_host(StreamHandle, BufferHandle src, size_t src_offset, void* dst, size_t nbytes) {
  std::memcpy(dst, static_cast<const char*>(src) + src_offset, nbytes);
}

void HostMemoryTarget::copy_buffer(StreamHandle, BufferHandle src, size_t src_offset, BufferHandle dst,
                                   size_t dst_offset, size_t nbytes) {
  std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, nbytes);
}

}  // namespace weft::targets
