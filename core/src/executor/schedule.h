// Internal to the graph executor: a compiled module's main as a flat list of
// steps (kernel launches, copies where a value crosses into memory its reader
// cannot address, stream synchronizations) over numbered tensor slots. Built
// once per executor, immutable, shared by every run.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/target.h"
#include "weft/tensor.h"

namespace weft::executor {

/// Host memory, as a slot's or a run buffer's owner: main's inputs, constants as
/// the program holds them, staging between two devices neither addressable
/// from the host.
inline constexpr int kHost = -1;

/// Storage made for each run: an intermediate, or a copy of a value into the
/// memory of a target that reads it.
struct RunBuffer {
  int target = kHost;  // whose memory (an index into Schedule::targets), or kHost
  size_t nbytes = 0;
  /// The run buffer whose bytes from part_offset on this one is: an input of
  /// a concatenation left out of the schedule, which its producer writes
  /// straight into its slice of the result (group_storage.h's
  /// concatenated_parameters). The whole has no step that writes it: it is
  /// complete when its last part is.
  std::optional<size_t> part_of;
  size_t part_offset = 0;
};

/// One tensor of the schedule.
struct Slot {
  enum class Source {
    kInput,           // main's argument leaf `index` (tuples flattened depth-first)
    kConstant,        // Schedule::constants[index], in host memory
    kDeviceConstant,  // Schedule::device_constants[index], uploaded once by the executor
    kRunBuffer,       // Schedule::run_buffers[index]
    kPacked,          // a constant its kernel packed: passed with data null, never read
  };
  Source source = Source::kInput;
  size_t index = 0;
  int target = kHost;  // whose memory holds it
  size_t nbytes = 0;
  DataType dtype;
  std::vector<int64_t> shape;
};

/// A constant copied once into the memory of a target that is not host-addressable.
struct DeviceConstant {
  size_t constant = 0;  // into Schedule::constants
  int target = 0;
};

struct Step {
  enum class Kind {
    kLaunch,       // groups[group].kernel on target's stream, with launch_args[first_arg, +num_args)
    kUpload,       // target's copy_from_host: host-readable slot src into slot dst in target's memory
    kDownload,     // target's copy_to_host: slot src in target's memory into host-readable slot dst
    kSynchronize,  // target's stream: what later steps on other streams read is complete
  };
  Kind kind = Kind::kLaunch;
  int target = 0;
  size_t group = 0;
  size_t first_arg = 0, num_args = 0;
  size_t num_outputs = 0;  // kLaunch: the last num_outputs arguments are its results
  /// kLaunch: the argument (from first_arg) whose buffer its one result may
  /// overwrite, if that buffer dies here (CompiledGroup::inplace_param).
  std::optional<size_t> inplace_arg = std::nullopt;
  size_t src = 0, dst = 0;
};

/// A value of main as slots: a tensor (slot set) or a tuple of values.
struct SlotTree {
  std::optional<size_t> slot;
  std::vector<SlotTree> fields;
};

struct Schedule {
  /// The targets the groups run on, in order of first use.
  std::vector<std::string> target_names;
  std::vector<Target*> targets;  // owned by the CompiledModule
  std::vector<bool> host_addressable;

  std::vector<Slot> slots;
  std::vector<size_t> input_slots;  // per argument leaf
  std::vector<Tensor> constants;
  std::vector<DeviceConstant> device_constants;
  std::vector<RunBuffer> run_buffers;

  std::vector<Step> steps;
  /// Per launch argument, its slot, and the DLTensor the kernel gets (shape,
  /// dtype and device filled; data and byte_offset set for each run).
  std::vector<size_t> arg_slots;
  std::vector<DLTensor> arg_templates;
  SlotTree output;

  size_t num_launches = 0;
  size_t intermediate_bytes = 0;  // the launches' outputs

  /// Whether slot `s`'s bytes are a host pointer plus offset.
  bool host_readable(size_t s) const;
};

/// Schedules `compiled.main`: a post-order walk (no recursion on depth) of its
/// body, one launch per call of a compiled group. weft::Error naming what the
/// executor cannot run (status kUnsupported for control flow): a node other
/// than a group call, tuple, projection, let, parameter or constant, a function-typed result, a tensor without a static
/// shape, a group whose target is missing from compiled.targets.
Schedule make_schedule(const CompiledModule& compiled);

}  // namespace weft::executor
