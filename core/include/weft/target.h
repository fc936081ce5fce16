// Hardware targets: what a backend (ref, null, llvm, vulkan, onednn) provides,
// in the shape of IREE's HAL and ggml's backends. The core schedules and plans
// memory; a target answers capability queries, compiles fused groups into
// kernels, owns its devices' memory and runs kernels on streams. Target
// plugins register a TargetDef through the C ABI (plugin.h, weft_target_interface_t);
// the core adapts it to this interface. docs/targets.md is the vendor's guide.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "weft/attrs.h"
#include "weft/expr.h"
#include "weft/registry.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// One device a target drives, as `weft targets` lists it.
struct TargetDevice {
  int id = 0;
  std::string name;  // "cpu", "llvmpipe (LLVM 15.0.6, 256 bits)"
  /// Free-form facts for users and schedules ("memory_bytes", "vector_bits").
  std::map<std::string, std::string> properties;
};

/// Memory on a target's device, opaque to the core: a host pointer on a CPU
/// target, a device allocation (a VkBuffer's wrapper, say) on a GPU.
using BufferHandle = void*;
/// A queue of work on one device; null on a target that runs synchronously.
using StreamHandle = void*;

/// A compiled fused group. Kernels are immutable once compiled and may be
/// launched from several threads at once, on different buffers.
class TargetKernel {
 public:
  virtual ~TargetKernel() = default;
  /// Enqueues one run on `stream`. `args`: one tensor per parameter of the
  /// Primitive function (constants too, uploaded once at build; a tuple-typed
  /// parameter as its fields' tensors, depth-first), then one per flattened
  /// output; each `data` is a BufferHandle of this target's device and
  /// `byte_offset` the tensor's place in it. Outputs never alias inputs
  /// unless the plan made an elementwise kernel, or the inplace_parameter()
  /// one, work in place.
  virtual void launch(StreamHandle stream, std::span<const DLTensor> args) const = 0;
  /// Per parameter: whether the kernel holds its own copy of the constant
  /// compile gave it there (weights packed into its layout) and never reads
  /// that argument at launch, where it then comes with data null; the build
  /// lets such a constant go once no other kernel reads it. Empty (the
  /// default): every argument is read.
  virtual std::vector<bool> packed_constants() const { return {}; }
  /// The bytes the kernel holds for those packed copies (counted as the
  /// module's parameter bytes); 0: the graph's sizes of them are counted.
  virtual size_t packed_bytes() const { return 0; }
  /// The parameter whose buffer the kernel may take as its one output's when
  /// the memory plan finds it dying at the launch (a sum post-op's addend,
  /// which it would otherwise copy into its output first): it has the
  /// output's shape and dtype, and the kernel reads each of its elements
  /// before writing that element of the output. nullopt (the default): the
  /// core's rule for elementwise groups (group_storage.h) applies.
  virtual std::optional<size_t> inplace_parameter() const { return std::nullopt; }
};

/// A target instance, created with its options for one build.
class Target {
 public:
  virtual ~Target() = default;

  // -- capability --
  /// Whether the target runs this call: an op call with typed arguments and
  /// checked_type. Must not throw for an op it does not know (answer false).
  virtual bool supports(const Call& call) const = 0;
  /// AlterOpLayout's hook: the call rebuilt in the layouts this target prefers
  /// (explicit layout_transforms around it), or a null Expr to keep it.
  virtual Expr alter_layout(const Call& /*call*/) const { return {}; }

  // -- compile --
  /// Compiles a typed Primitive function (one FuseOps group). `constants` has
  /// one entry per parameter: the tensor its argument is bound to at the call
  /// site, or an undefined Tensor where the argument is computed at run time,
  /// so weights can be packed once here. Throws Error with
  /// StatusCode::kUnsupported to decline the group (the build then offers it
  /// to the next target); any other Error fails the build.
  virtual std::unique_ptr<TargetKernel> compile(const Function& primitive,
                                                std::span<const Tensor> constants) = 0;
  /// Compiles every group the build gives this target at once, so it can
  /// share work between them (one code-generation session, one kernel for
  /// groups that are the same): `constants[i]` is as compile takes it for
  /// `primitives[i]`. Returns one kernel per group, in order, null where the
  /// target declines that group (the build offers it to the next target);
  /// throwing UNSUPPORTED declines them all, any other Error fails the
  /// build. The default returns nothing at all: the target compiles group by
  /// group, and the build lets each group's packed weights go before the
  /// next group compiles.
  virtual std::vector<std::unique_ptr<TargetKernel>> compile_partition(
      std::span<const Function> /*primitives*/, std::span<const std::vector<Tensor>> /*constants*/) {
    return {};
  }

  // -- device --
  virtual std::vector<TargetDevice> devices() const = 0;
  /// True when BufferHandles are host pointers the core may read and write.
  virtual bool host_addressable() const = 0;
  virtual BufferHandle alloc(int device, size_t nbytes, size_t alignment) = 0;
  virtual void free(int device, BufferHandle buffer) = 0;
  /// Copies nbytes between host memory and a buffer, or between two buffers
  /// of this target, ordered on `stream` (complete after synchronize).
  virtual void copy_from_host(StreamHandle stream, const void* src, BufferHandle dst, size_t dst_offset,
                              size_t nbytes) = 0;
  virtual void copy_to_host(StreamHandle stream, BufferHandle src, size_t src_offset, void* dst,
                            size_t nbytes) = 0;
  virtual void copy_buffer(StreamHandle stream, BufferHandle src, size_t src_offset, BufferHandle dst,
                           size_t dst_offset, size_t nbytes) = 0;

  // -- execution --
  virtual StreamHandle create_stream(int device) = 0;
  virtual void destroy_stream(StreamHandle stream) = 0;
  /// Waits until everything enqueued on `stream` has finished; a kernel's
  /// failure surfaces here (or at launch on a synchronous target) as an Error.
  virtual void synchronize(StreamHandle stream) = 0;
};

/// A registered target: what `weft targets` lists and how to create one.
struct TargetDef {
  std::string name;
  std::string description;
  DLDeviceType device_type = kDLCPU;
  /// The schema of the options a run config may give it (target_options.NAME).
  AttrSchema options;
  /// Creates an instance with options already checked against `options`
  /// (defaults filled). Throws Error when the target cannot run here (no
  /// device): the message says why, and configs listing it fail with it.
  std::function<std::shared_ptr<Target>(const Attrs& options)> create;
  std::string plugin;  // "" for targets built into the core (ref)
};

class TargetRegistry : public NamedRegistry<TargetDef> {
 public:
  TargetRegistry() : NamedRegistry("target") {}
  /// The process-wide registry; `ref` is always in it.
  static TargetRegistry& global();
};

}  // namespace weft

#pragma GCC visibility pop
