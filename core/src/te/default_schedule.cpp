#include "weft/te/default_schedule.h"

namespace weft::te {
namespace {

/// One loop over all the stage's elements, vectorized by lanes inside it.
void schedule_injective_output(Stage& stage, const TargetTraits& traits) {
  std::vector<IterVar> loops = stage.leaf_iter_vars();
  if (loops.empty()) return;  // a scalar
  IterVar fused = loops[0];
  for (size_t i = 1; i < loops.size(); ++i) fused = stage.fuse(fused, loops[i]);
  if (traits.vector_lanes > 1 && fused->extent % traits.vector_lanes == 0) {
    auto [outer, inner] = stage.split(fused, traits.vector_lanes);
    stage.vectorize(inner);
    fused = outer;
  }
  if (traits.cores > 1 && fused->extent > 1) stage.parallel(fused);
}

/// The data loops outside the reduce loops, the outermost parallel; the
/// innermost data axis split by the lanes where they divide it, its lanes
/// vectorized inside the reduce loops (one accumulator per lane).
void schedule_reduction(Stage& stage, const TargetTraits& traits) {
  std::vector<IterVar> data = static_cast<const ComputeOpNode&>(*stage.op()).axis;
  if (data.empty()) return;  // a reduction to a scalar
  const IterVar innermost = data.back();
  if (traits.vector_lanes > 1 && innermost->extent % traits.vector_lanes == 0) {
    auto [outer, inner] = stage.split(innermost, traits.vector_lanes);
    std::vector<IterVar> order = stage.reduce_axis();
    order.push_back(inner);
    stage.reorder(order);
    stage.vectorize(inner);
    data.back() = outer;
  }
  if (traits.cores > 1 && data[0]->extent > 1) stage.parallel(data[0]);
}

}  // namespace

TargetTraits target_traits(const Attrs& options) {
  TargetTraits traits;
  if (!options) return traits;
  if (const AttrValue* v = options->find("vector_lanes")) traits.vector_lanes = static_cast<int>(v->as_int());
  if (const AttrValue* v = options->find("cores")) traits.cores = static_cast<int>(v->as_int());
  return traits;
}

Schedule default_schedule(const std::vector<Tensor>& outputs, const TargetTraits& traits) {
  Schedule schedule(outputs);
  for (const auto& stage : schedule.stages()) {
    if (stage->op()->kind != OpKind::kCompute) continue;
    if (stage->reduction()) {
      schedule_reduction(*stage, traits);
      continue;
    }
    if (!schedule.is_output(stage->op())) {
      if (stage->op()->num_outputs() == 1) stage->compute_inline();
      continue;
    }
    schedule_injective_output(*stage, traits);
  }
  return schedule;
}

}  // namespace weft::te
