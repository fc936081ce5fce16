// The graph executor: runs a CompiledModule as a flat list of kernel launches
// in topological order over a static memory plan (one arena per device,
// offsets by lifetime), with parameters uploaded once and copies only where
// a value crosses devices.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/interpreter.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// What the memory plan of a compiled module takes.
struct MemoryStats {
  size_t arena_bytes = 0;         // all devices' arenas together, per run
  size_t param_bytes = 0;         // the constants it holds, and those the kernels packed
  size_t intermediate_bytes = 0;  // every intermediate tensor's size, summed
  std::map<std::string, size_t> arena_bytes_by_target;
};

/// One kernel's share of a profiled run (`weft bench --profile`).
struct KernelProfile {
  size_t group = 0;  // index into CompiledModule::groups
  double ms = 0;
};

class GraphExecutor {
 public:
  /// Schedules `compiled`'s main and uploads its constants to the devices that
  /// read them. weft::Error for what the executor cannot run (a main returning
  /// a function, say), naming it.
  explicit GraphExecutor(std::shared_ptr<const CompiledModule> compiled);
  ~GraphExecutor();
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  /// Runs main on `inputs` (one per parameter of main, in order, host
  /// tensors); returns its result (a tensor or a tuple) on the host. Safe to
  /// call from several threads at once: each run gets its own arenas and
  /// streams. Shapes and dtypes must match main's parameter types exactly
  /// (weft::Error naming the parameter otherwise).
  Value run(const std::vector<Value>& inputs) const;
  /// As run, timing each launch (the stream is synchronized after each one).
  Value run_profiled(const std::vector<Value>& inputs, std::vector<KernelProfile>& profile) const;

  const MemoryStats& memory() const;
  const CompiledModule& compiled() const;
  size_t num_launches() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft

#pragma GCC visibility pop
