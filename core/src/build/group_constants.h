// The constants main passes to its groups, held apart from main while the
// groups compile, so that a weight is let go as soon as every kernel that
// reads it has packed a copy of its own (TargetKernel::packed_constants):
// the graph's weights and the kernels' packed ones are then never all in
// memory at once.
#pragma once

#include <unordered_map>
#include <vector>

#include "partition.h"
#include "weft/tensor.h"

namespace weft::build_detail {

class GroupConstants {
 public:
  /// Takes the constant arguments of the group calls out of partition.main,
  /// a variable standing for each, and points each GroupPlan's site at its
  /// new call. The partition's old main (and with it the constant nodes) is
  /// let go; the tensors are held here.
  explicit GroupConstants(Partition& partition);

  /// Per argument of `site` (a GroupPlan's), the constant it is bound to, or
  /// an undefined Tensor where it is computed at run time.
  std::vector<Tensor> arguments(const Call& site) const;

  /// The kernel compiled for `site` holds its own copy of the arguments
  /// marked in `packed` (one per argument) and does not read them at
  /// launch: a constant every one of whose reads is packed is let go here.
  void packed(const Call& site, const std::vector<bool>& packed);

  /// The lifted `main` with each variable back as its constant (one node
  /// per constant, shared by its uses), and the arguments the kernels packed
  /// dropped from their calls (CompiledModule::main's form).
  Function restore(const Function& main) const;

 private:
  std::unordered_map<const VarNode*, size_t> entry_of_;  // a lifted variable -> its entry
  std::vector<Tensor> tensors_;                          // per entry; undefined once let go
  std::vector<size_t> unpacked_reads_;                   // per entry: group arguments that still read it
  std::unordered_map<const CallNode*, std::vector<bool>> packed_;  // a site -> its packed arguments
};

}  // namespace weft::build_detail
