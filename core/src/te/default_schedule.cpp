#include "weft/te/default_schedule.h"

#include <algorithm>
#include <unordered_set>

#include "weft/te/functor.h"

namespace weft::te {
namespace {

/// Whether `stage`'s loops (all of them, reductions included) hold the work
/// worth running on several cores.
bool worth_threads(const Stage& stage, const TargetTraits& traits) {
  if (traits.many_threads) return true;
  if (traits.cores <= 1) return false;
  const auto& c = static_cast<const ComputeOpNode&>(*stage.op());
  int64_t work = 1;
  for (const auto* axes : {&c.axis, &c.reduce_axis()}) {
    for (const IterVar& a : *axes) {
      work *= std::max<int64_t>(a->extent, 1);
      if (work >= traits.parallel_work) return true;
    }
  }
  return false;
}

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
  if (fused->extent > 1 && worth_threads(stage, traits)) stage.parallel(fused);
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
  if (traits.many_threads) {  // a thread per output: all the data loops as one
    IterVar fused = data[0];
    for (size_t d = 1; d < data.size(); ++d) fused = stage.fuse(fused, data[d]);
    data = {fused};
  }
  if (data[0]->extent > 1 && worth_threads(stage, traits)) stage.parallel(data[0]);
}

/// A sum of products of two reads: convolution, dense, matmul.
bool is_contraction(const ReduceNode& r) {
  if (r.source.size() != 1) return false;
  const PrimExpr& combined = r.combiner->result[0];
  if (combined->kind != PrimKind::kBinary || static_cast<const BinaryNode&>(*combined).op != BinaryOp::kAdd) return false;
  PrimExpr term = r.source[0];
  while (term->kind == PrimKind::kCast) term = static_cast<const CastNode&>(*term).value;
  if (term->kind != PrimKind::kBinary || static_cast<const BinaryNode&>(*term).op != BinaryOp::kMul) return false;
  auto reads_a_tensor = [](const PrimExpr& e) {
    bool found = false;
    walk(e, [&](const PrimExpr& x) { found |= x->kind == PrimKind::kTensorRead; });
    return found;
  };
  const auto& product = static_cast<const BinaryNode&>(*term);
  return reads_a_tensor(product.a) && reads_a_tensor(product.b);
}

/// The variables of `axis` each tensor read in `e` depends on.
std::vector<std::unordered_set<const VarNode*>> read_dependencies(const PrimExpr& e, const std::vector<IterVar>& axis) {
  std::vector<std::unordered_set<const VarNode*>> out;
  walk(e, [&](const PrimExpr& x) {
    if (x->kind != PrimKind::kTensorRead) return;
    std::unordered_set<const VarNode*> deps;
    for (const PrimExpr& index : static_cast<const TensorReadNode&>(*x).indices) {
      walk(index, [&](const PrimExpr& v) {
        for (const IterVar& a : axis) {
          if (v.get() == a->var.get()) deps.insert(a->var.get());
        }
      });
    }
    out.push_back(std::move(deps));
  });
  return out;
}

/// The largest divisor of n that is at most cap (at least 1).
int64_t largest_divisor_upto(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, std::max<int64_t>(cap, 1)); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

/// A contraction's register tile: `rows` along the tile axis by `cols`
/// along the innermost axis, the lanes of `cols` vectorized when they fill
/// whole vectors. The tile axis is the innermost one that the reads along
/// the innermost axis do not depend on, so each of their vectors is reused
/// by every row (a convolution's output channels, a matmul's rows).
struct RegisterTile {
  size_t tile_axis = 0, vector_axis = 0;
  int64_t rows = 1, cols = 1;
  bool vectorized = false;
};

RegisterTile register_tile(const ComputeOpNode& c, const TargetTraits& traits) {
  RegisterTile tile;
  tile.vector_axis = c.axis.size() - 1;
  const IterVar& v = c.axis.back();
  // A few registers stay free for the operands each step loads or broadcasts.
  const int64_t accumulators = std::max(1, traits.vector_registers - 4);
  const int64_t lanes = traits.vector_lanes;
  int64_t vectors_per_row = 1;
  if (lanes > 1 && v->extent % lanes == 0) {
    tile.vectorized = true;
    vectors_per_row = largest_divisor_upto(v->extent / lanes, 4);
    tile.cols = vectors_per_row * lanes;
  }
  const auto deps = read_dependencies(c.reduction()->source[0], c.axis);
  for (size_t d = c.axis.size() - 1; d-- > 0;) {
    const IterVar& a = c.axis[d];
    if (a->extent == 1) continue;
    bool reused = true, used = false;
    for (const auto& read : deps) {
      reused &= !(read.count(v->var.get()) && read.count(a->var.get()));
      used |= read.count(a->var.get()) > 0;
    }
    if (!reused || !used) continue;
    tile.tile_axis = d;
    tile.rows = largest_divisor_upto(a->extent, accumulators / vectors_per_row);
    break;
  }
  if (tile.rows == 1 && !tile.vectorized) return tile;
  if (tile.rows == 1) {  // no axis to tile over: more vectors along the row instead
    tile.cols = largest_divisor_upto(v->extent / lanes, accumulators) * lanes;
  }
  return tile;
}

/// A contraction computed tile by tile at the loops of `writer` (the
/// contraction's own copy-out after cache_write, or the injective output it
/// feeds): writer's axes split into outer loops over tiles and inner loops
/// over one tile, the contraction computed at the innermost outer loop with
/// its reduce loops outside the tile's, so the tile accumulates in registers.
void schedule_tiled_contraction(Stage& contraction, Stage& writer, const RegisterTile& tile,
                                const TargetTraits& traits) {
  const std::vector<IterVar> axes = writer.leaf_iter_vars();
  std::vector<IterVar> outer, inner;
  IterVar vector_inner, rows_inner;
  for (size_t d = 0; d < axes.size(); ++d) {
    const int64_t factor = d == tile.vector_axis ? tile.cols : d == tile.tile_axis && tile.rows > 1 ? tile.rows : 1;
    if (factor == 1) {
      outer.push_back(axes[d]);
      continue;
    }
    auto [o, i] = writer.split(axes[d], factor);
    outer.push_back(o);
    inner.push_back(i);
    (d == tile.vector_axis ? vector_inner : rows_inner) = i;
  }
  // The tiles along the vector axis outermost: the operand read along it (a
  // dense layer's packed weight, a matmul's right side) is then read once
  // per block of columns, staying in cache while every row block uses it,
  // where rows outermost would stream all of it once per row block. On a
  // GPU the tiles stay in order: neighbouring threads then take neighbouring
  // columns, and their reads and writes along the innermost axis coalesce.
  if (!traits.many_threads && tile.vector_axis < outer.size() && outer[tile.vector_axis]->extent > 1 &&
      tile.rows > 1) {
    std::rotate(outer.begin(), outer.begin() + static_cast<std::ptrdiff_t>(tile.vector_axis),
                outer.begin() + static_cast<std::ptrdiff_t>(tile.vector_axis) + 1);
  }
  std::vector<IterVar> order = outer;
  order.insert(order.end(), inner.begin(), inner.end());
  writer.reorder(order);
  if (rows_inner) writer.unroll(rows_inner);
  if (vector_inner && tile.vectorized) writer.vectorize(vector_inner);
  if (traits.many_threads) {  // a thread per tile: the loops over tiles as one
    IterVar fused = outer[0];
    for (size_t d = 1; d < outer.size(); ++d) fused = writer.fuse(fused, outer[d]);
    outer = {fused};
    if (fused->extent > 1) writer.parallel(fused);
  } else if (worth_threads(contraction, traits)) {
    for (const IterVar& o : outer) {
      if (o->extent > 1) {
        writer.parallel(o);
        break;
      }
    }
  }
  contraction.compute_at(writer, outer.back());
  // The tile's loops (one per axis) inside the reduce loops.
  const std::vector<IterVar> loops = contraction.leaf_iter_vars();
  const size_t data = static_cast<const ComputeOpNode&>(*contraction.op()).axis.size();
  std::vector<IterVar> tile_inside(loops.begin() + static_cast<std::ptrdiff_t>(data), loops.end());
  tile_inside.insert(tile_inside.end(), loops.begin(), loops.begin() + static_cast<std::ptrdiff_t>(data));
  contraction.reorder(tile_inside);
  if (tile.rows > 1) contraction.unroll(loops[tile.tile_axis]);
  if (tile.vectorized) contraction.vectorize(loops[tile.vector_axis]);
}

/// The stages with loops of their own that read `stage`, directly or
/// through stages inlined into them.
std::vector<Stage*> readers(const Schedule& schedule, const Stage& stage) {
  std::vector<Stage*> out;
  for (const auto& other : schedule.stages()) {
    if (other->op()->kind != OpKind::kCompute) continue;
    const auto inputs = input_tensors(other->op());
    if (std::none_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t->op.same_as(stage.op()); })) continue;
    if (!other->inlined()) {
      out.push_back(other.get());
      continue;
    }
    for (Stage* r : readers(schedule, *other)) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
  }
  return out;
}

std::vector<int64_t> extents(const std::vector<IterVar>& axis) {
  std::vector<int64_t> out;
  for (const IterVar& a : axis) out.push_back(a->extent);
  return out;
}

}  // namespace

TargetTraits target_traits(const Attrs& options) {
  TargetTraits traits;
  if (!options) return traits;
  if (const AttrValue* v = options->find("vector_lanes")) traits.vector_lanes = static_cast<int>(v->as_int());
  if (const AttrValue* v = options->find("vector_registers")) traits.vector_registers = static_cast<int>(v->as_int());
  if (const AttrValue* v = options->find("cores")) traits.cores = static_cast<int>(v->as_int());
  if (const AttrValue* v = options->find("parallel_work")) traits.parallel_work = v->as_int();
  if (const AttrValue* v = options->find("many_threads")) traits.many_threads = v->as_bool();
  return traits;
}

Schedule default_schedule(const std::vector<Tensor>& outputs, const TargetTraits& traits) {
  Schedule schedule(outputs);
  std::vector<Stage*> stages;
  for (const auto& stage : schedule.stages()) {
    if (stage->op()->kind == OpKind::kCompute) stages.push_back(stage.get());
  }
  for (Stage* stage : stages) {
    if (!stage->reduction() && !schedule.is_output(stage->op()) && stage->op()->num_outputs() == 1) {
      stage->compute_inline();
    }
  }
  std::unordered_set<const Stage*> tiled_writers;
  for (Stage* stage : stages) {
    const ReduceNode* r = stage->reduction();
    if (!r) continue;
    const auto& c = static_cast<const ComputeOpNode&>(*stage->op());
    const RegisterTile tile = c.axis.empty() || !is_contraction(*r) ? RegisterTile{} : register_tile(c, traits);
    if (tile.rows == 1 && tile.cols == 1) {
      schedule_reduction(*stage, traits);
      continue;
    }
    if (schedule.is_output(stage->op())) {  // accumulate in a cache, copy each tile out
      const Tensor cache = schedule.cache_write(stage->op()->output(0))[0];
      schedule_tiled_contraction(schedule[cache], *stage, tile, traits);
      tiled_writers.insert(stage);
      continue;
    }
    // Its one injective reader of the same shape (the bias and activation
    // FuseOps gave it) writes each tile as it is accumulated.
    const std::vector<Stage*> reader = readers(schedule, *stage);
    if (reader.size() == 1 && schedule.is_output(reader[0]->op()) && !reader[0]->reduction() &&
        reader[0]->op()->num_outputs() == 1 &&
        extents(static_cast<const ComputeOpNode&>(*reader[0]->op()).axis) == extents(c.axis)) {
      schedule_tiled_contraction(*stage, *reader[0], tile, traits);
      tiled_writers.insert(reader[0]);
      continue;
    }
    schedule_reduction(*stage, traits);
  }
  for (Stage* stage : stages) {
    if (schedule.is_output(stage->op()) && !stage->reduction() && !tiled_writers.count(stage)) {
      schedule_injective_output(*stage, traits);
    }
  }
  return schedule;
}

}  // namespace weft::te
