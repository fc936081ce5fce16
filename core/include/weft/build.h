// weft::build: compiles a module for the targets a run config names.
//
// InferType -> the -O<opt_level> pipeline (weft/pipeline.h, AlterOpLayout
// asking the targets' preferences) -> partition: each fused group goes to the
// first target in the config's priority order that supports every call in it
// (a group no target takes whole is split into smaller groups before it falls
// back to `ref`) -> each target compiles its groups -> a CompiledModule, which
// the graph executor (weft/graph_executor.h) runs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/module.h"
#include "weft/run_config.h"
#include "weft/target.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// One fused group of the built program and the target that runs it.
struct CompiledGroup {
  Function primitive;  // the typed Primitive function
  std::string target;  // the TargetDef's name
  std::shared_ptr<const TargetKernel> kernel;
  std::vector<std::string> ops;  // the ops it calls, in evaluation order
  /// Per parameter, whether the kernel packed the constant bound there
  /// (TargetKernel::packed_constants): main's call of the group omits those
  /// arguments, and a launch passes them with data null. Empty: none.
  std::vector<bool> packed_params;
  /// What the kernel holds for them (TargetKernel::packed_bytes), or their
  /// sizes in the graph where it does not say.
  size_t packed_bytes = 0;
  /// The parameter whose buffer the kernel may take as its output's
  /// (TargetKernel::inplace_parameter, checked against the types), else the
  /// core's own rule's for an elementwise group (group_storage.h).
  std::optional<size_t> inplace_param;
};

/// An op that runs on `ref` because no listed target supports it, as the
/// fallback warning and `fallback: error` name it.
struct FallbackOp {
  std::string op;
  std::string attrs;  // a one-line summary of the call's attrs
  int count = 0;      // how many calls of it (with these attrs) fell back
};

/// The result of build: immutable, shared by every executor and thread.
struct CompiledModule {
  /// `main` after the pipeline: its body calls only Primitive functions (each
  /// one group), with tuples, projections, its parameters and constants. A
  /// call of a group whose kernel packed constants omits those arguments
  /// (CompiledGroup::packed_params), so the weights are held once, by the
  /// kernel.
  Function main;
  std::vector<CompiledGroup> groups;
  /// Which group each Primitive function node of `main` is.
  std::map<const FunctionNode*, size_t> group_of;
  /// The target instances the groups run on, by name (`ref` always included).
  std::map<std::string, std::shared_ptr<Target>> targets;
  std::vector<FallbackOp> fallback_ops;
  RunConfig config;
  double build_ms = 0;  // passes + partition + compile, wall clock
};

/// Builds `mod`'s main for `config`. weft::Error for a program that does not
/// type-check, a config naming an unknown target or bad options, a target
/// failing to compile a group (naming the target and the group's ops), or,
/// with `fallback: error`, ops no listed target supports (naming each).
/// The module is taken by value: a caller that moves in the only handle to it
/// lets each constant go as soon as a pass has replaced it (the bound weights
/// once FoldScaleAxis has folded batch norm into them), instead of holding
/// every original until the build returns. Such a caller also lets constant
/// folding write a folded weight over the one it replaces when weft allocated
/// it (see PassContext::reuse_constant_storage): it must then hold no other
/// handle to the program's expressions. Tensors it still holds, and memory it
/// lent through DLPack, are never written.
std::shared_ptr<const CompiledModule> build(IRModule mod, const RunConfig& config);

/// Which target runs which group, one line per group in execution order (what
/// `weft opt --print-partition` prints).
std::string describe_partition(const CompiledModule& compiled);

}  // namespace weft

#pragma GCC visibility pop
