// Loop program -> GLSL compute shaders: one shader per stage of a fused
// group, run one after another with a barrier between them. The program's
// top-level statements are its stages: a parallel loop becomes a grid of
// invocations, one iteration each (a grid-stride loop where the grid is
// capped); any other statement runs on a single invocation. Scratch a
// top-level `allocate` holds lives in device memory between stages; scratch
// allocated inside a stage is an array of the invocation's own.
//
// Arithmetic follows the loop IR's rules (plugin.h, "Loop programs"):
// 16-bit floats compute in float and round after every operation, integers
// wrap at their width, float->int casts saturate (NaN to 0), integer division
// by zero sets the launch's failure flag, min/max give the first operand when
// unordered. Shapes are literals: each group's shaders are generated for its
// shapes.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::sdk {
class LoopProgram;
}

namespace vulkan_target {

/// What the device's shaders may use beyond 32-bit types.
struct ShaderFeatures {
  bool int8 = false, int16 = false, int64 = false;
  bool float16 = false, float64 = false;
  bool storage8 = false, storage16 = false;  // 8- and 16-bit values in storage buffers
};

/// One storage buffer of a group's shaders, at binding (its index + 1);
/// binding 0 holds the launches' failure flags.
struct ShaderBinding {
  enum class Kind { kArg, kConstant, kScratch };
  Kind kind;
  int32_t buffer;  // the program's buffer
  int32_t arg;     // kArg: the launch argument; its element offset is push constant `offsets[arg_slot]`
  int32_t arg_slot;
  int64_t bytes;           // its storage
  int64_t scratch_offset;  // kScratch: its place in the stream's scratch memory
};

/// One dispatch: `workgroups` of `kWorkgroupSize` invocations, which share
/// out `invocations` iterations (1 for a serial stage). The shader takes the
/// workgroup's size, the iterations and the dispatch's invocations as
/// specialization constants 0, 1 and 2.
struct ShaderStage {
  std::string glsl;
  int64_t invocations;
  int64_t workgroups;
};

struct ShaderPlan {
  std::vector<ShaderBinding> bindings;
  std::vector<ShaderStage> stages;
  int32_t arg_slots = 0;       // push constants: uint slot, then one int element offset per argument binding
  int64_t scratch_bytes = 0;   // the stages' device scratch, all of it
};

/// Whether values of `dtype` can live in the device's shaders and buffers.
bool holds_dtype(const ShaderFeatures& features, DLDataType dtype);

inline constexpr int kWorkgroupSize = 64;
/// Scratch buffers start at multiples of this (the largest
/// minStorageBufferOffsetAlignment Vulkan allows).
inline constexpr int64_t kScratchAlignment = 256;

/// The shaders of `program`. Most workgroups a dispatch may have along x:
/// `max_workgroups`. Error with WEFT_STATUS_UNSUPPORTED for what the device
/// cannot run (a dtype it lacks, float64 transcendentals, a vector dtype).
ShaderPlan generate_glsl(const weft::sdk::LoopProgram& program, const ShaderFeatures& features,
                         int64_t max_workgroups);

}  // namespace vulkan_target
