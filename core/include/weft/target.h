// Hardware targets (llvm, vulkan, onednn): a capability query, a compiler for
// fused Primitive functions and a device API. Target plugins register them;
// the build flow partitions graphs among them.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "weft/attrs.h"
#include "weft/expr.h"
#include "weft/registry.h"
#include "weft/type.h"

namespace weft {

/// A compiled fused group. Arguments: the function's parameters, then its
/// flattened outputs, all on the target's device.
using TargetKernel = std::function<void(std::span<DLTensor> args)>;

struct TargetDeviceApi {
  std::function<void*(int device_id, size_t nbytes, size_t alignment)> alloc;
  std::function<void(int device_id, void* ptr)> free;
  /// Between tensors of equal shape and dtype; either may be on the CPU.
  std::function<void(const DLTensor& src, DLTensor& dst)> copy;
  std::function<void(int device_id)> sync;
};

struct TargetDef {
  std::string name;
  std::string description;
  DLDeviceType device_type = kDLCPU;
  /// Whether the target runs this op with these attrs and (complete) types.
  std::function<bool(std::string_view op, const Attrs& attrs, std::span<const Type> arg_types,
                     const Type& out_type)>
      supports;
  /// Compiles a function marked Primitive=1.
  std::function<TargetKernel(const Function& primitive)> compile;
  TargetDeviceApi device;
  std::string plugin;
};

class TargetRegistry : public NamedRegistry<TargetDef> {
 public:
  TargetRegistry() : NamedRegistry("target") {}
  static TargetRegistry& global();
};

}  // namespace weft
