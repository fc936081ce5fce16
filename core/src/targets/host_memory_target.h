// The device half of the core's own targets (ref, loops): one host device,
// 64-byte aligned host memory, copies by memcpy, and no queue (every launch
// has finished when it returns).
#pragma once

#include "weft/target.h"

namespace weft::targets {

class HostMemoryTarget : public Target {
 public:
  std::vector<TargetDevice> devices() const override { return {TargetDevice{0, "host", {}}}; }
  bool host_addressable() const override { return true; }
  BufferHandle alloc(int device, size_t nbytes, size_t alignment) override;
  void free(int device, BufferHandle buffer) override;
  void copy_from_host(StreamHandle, const void* src, BufferHandle dst, size_t dst_offset, size_t nbytes) override;
  void copy_to_host(StreamHandle, BufferHandle src, size_t src_offset, void* dst, size_t nbytes) override;
  void copy_buffer(StreamHandle, BufferHandle src, size_t src_offset, BufferHandle dst, size_t dst_offset,
                   size_t nbytes) override;
  StreamHandle create_stream(int /*device*/) override { return nullptr; }
  void destroy_stream(StreamHandle) override {}
  void synchronize(StreamHandle) override {}

 protected:
  /// The target's name, for messages.
  explicit HostMemoryTarget(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

}  // namespace weft::targets
