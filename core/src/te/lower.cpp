#include "weft/te/lower.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_set>

#include "weft/te/bounds_check.h"
#include "weft/te/functor.h"
#include "weft/te/simplify.h"

namespace weft::te {
namespace {

using VarSet = std::unordered_set<const VarNode*>;

VarSet vars_of(const PrimExpr& e) {
  VarSet out;
  walk(e, [&](const PrimExpr& x) {
    if (x->kind == PrimKind::kVar) out.insert(static_cast<const VarNode*>(x.get()));
  });
  return out;
}

/// One stage's loops: the value of every axis in terms of the leaf loops, and
/// the guards that non-dividing splits need.
struct LoopStructure {
  struct Root {
    IterVar axis;
    PrimExpr value;  // in leaf variables
    VarSet deps;     // the leaf variables it uses
  };
  std::vector<Root> data_roots, reduce_roots;
  std::vector<PrimExpr> data_guards, reduce_guards;
};

LoopStructure loop_structure(const Stage& stage) {
  std::unordered_map<const IterVarNode*, PrimExpr> value;
  for (const IterVar& leaf : stage.leaf_iter_vars()) value[leaf.get()] = leaf->var;
  LoopStructure out;
  const auto& c = *static_cast<const ComputeOpNode*>(stage.op().get());
  auto is_root = [&](const IterVar& iv) {
    return std::find(c.axis.begin(), c.axis.end(), iv) != c.axis.end() ||
           std::find(stage.reduce_axis().begin(), stage.reduce_axis().end(), iv) != stage.reduce_axis().end();
  };
  const auto& relations = stage.relations();
  for (auto it = relations.rbegin(); it != relations.rend(); ++it) {
    if (it->kind == IterRelation::kSplit) {
      const IterVar& p = it->parent;
      PrimExpr v = value.at(it->outer.get()) * int_imm(it->factor) + value.at(it->inner.get());
      if (p->min != 0) v = v + int_imm(p->min);
      value[p.get()] = v;
      if (it->predicated && p->extent % it->factor != 0) {
        // An axis of the operation is guarded through its let (`j < 8`), a
        // derived loop through its value in the loops.
        const PrimExpr guarded = is_root(p) ? PrimExpr(p->var) : v;
        (p->kind == IterKind::kReduce ? out.reduce_guards : out.data_guards)
            .push_back(guarded < int_imm(p->min + p->extent));
      }
    } else {
      const PrimExpr& f = value.at(it->parent.get());
      const int64_t n = it->inner->extent;
      value[it->outer.get()] = it->outer->min == 0 ? floordiv(f, n) : floordiv(f, n) + int_imm(it->outer->min);
      value[it->inner.get()] = it->inner->min == 0 ? floormod(f, n) : floormod(f, n) + int_imm(it->inner->min);
    }
  }
  for (const IterVar& a : c.axis) out.data_roots.push_back({a, value.at(a.get()), vars_of(value.at(a.get()))});
  for (const IterVar& a : stage.reduce_axis()) out.reduce_roots.push_back({a, value.at(a.get()), vars_of(value.at(a.get()))});
  return out;
}

/// How one stage's loops are emitted: its loops, the axes' values in them,
/// the loop kinds, what is bound outside (a consumer's loops, for a stage
/// computed at one of them) and the nests of stages computed at its loops.
struct NestPlan {
  /// What is emitted at one of the stage's loops, first in its body: the
  /// nests of the stages computed there, inside the buffers they write.
  struct Attached {
    std::vector<Stmt> nests;
    std::vector<Buffer> buffers;
  };
  std::vector<IterVar> leaves;
  LoopStructure ls;
  std::unordered_map<const IterVarNode*, ForKind> kinds;
  VarSet bound;
  std::unordered_map<const IterVarNode*, Attached> attached;
  std::vector<Buffer> out;        // the buffers the stage writes
  std::vector<PrimExpr> index;    // where it writes an element of them
};

/// `body` inside `loops` (outermost first). A root axis that is not a loop of
/// its own is bound by a let right inside the loop that completes its
/// variables, when those are all bound outside (`bound`) or by `loops`. The
/// nests attached to a loop run first in its body when `with_attached`.
Stmt loop_nest(const NestPlan& plan, const std::vector<IterVar>& loops, const VarSet& bound,
               const std::vector<const LoopStructure::Root*>& roots, Stmt body, bool with_attached) {
  std::vector<std::vector<const LoopStructure::Root*>> lets(loops.size());
  for (const LoopStructure::Root* r : roots) {
    if (r->value.same_as(r->axis->var)) continue;  // the axis is a loop itself
    int level = -1;
    bool complete = true;
    for (const VarNode* d : r->deps) {
      auto it = std::find_if(loops.begin(), loops.end(), [&](const IterVar& l) { return l->var.get() == d; });
      if (it != loops.end()) level = std::max(level, static_cast<int>(it - loops.begin()));
      else complete &= bound.count(d) > 0;
    }
    if (complete && level >= 0) lets[static_cast<size_t>(level)].push_back(r);
  }
  for (size_t l = loops.size(); l-- > 0;) {
    const IterVar& loop = loops[l];
    if (auto it = plan.attached.find(loop.get()); with_attached && it != plan.attached.end()) {
      std::vector<Stmt> stmts = it->second.nests;
      stmts.push_back(body);
      body = seq(std::move(stmts));
      for (const Buffer& b : it->second.buffers) body = allocate(b, body);
    }
    for (auto it = lets[l].rbegin(); it != lets[l].rend(); ++it) body = let_stmt((*it)->axis->var, (*it)->value, body);
    auto kind = plan.kinds.find(loop.get());
    body = for_loop(loop->var, loop->min, loop->extent, kind == plan.kinds.end() ? ForKind::kSerial : kind->second, body);
  }
  return body;
}

Stmt guarded(const std::vector<PrimExpr>& guards, Stmt body) {
  if (guards.empty()) return body;
  PrimExpr cond = guards[0];
  for (size_t i = 1; i < guards.size(); ++i) cond = logical_and(cond, guards[i]);
  return if_then_else(cond, std::move(body));
}

/// [lo, lo + extent) of `index` over the loops `inner` (each at every value of
/// its range), when index moves by a constant step with each of them.
std::optional<std::pair<PrimExpr, int64_t>> read_range(const PrimExpr& index, const std::vector<IterVar>& inner) {
  PrimExpr lo = index, hi = index;
  for (const IterVar& v : inner) {
    const PrimExpr step = simplify(substitute(index, {{v->var.get(), v->var + 1}}) - index);
    const int64_t* slope = as_int_imm(step);
    if (!slope) return std::nullopt;
    const PrimExpr first = int_imm(v->min), last = int_imm(v->min + v->extent - 1);
    lo = substitute(lo, {{v->var.get(), *slope >= 0 ? first : last}});
    hi = substitute(hi, {{v->var.get(), *slope >= 0 ? last : first}});
  }
  lo = simplify(lo);
  const PrimExpr width = simplify(hi - lo);
  const int64_t* span = as_int_imm(width);
  if (!span) return std::nullopt;
  return std::make_pair(lo, *span + 1);
}

/// The part of axis d that `reads` reach: the union of their ranges when each
/// is known and they are a constant apart, else the whole axis [0, extent).
std::pair<PrimExpr, int64_t> read_region(const std::vector<std::vector<PrimExpr>>& reads, size_t d,
                                         const std::vector<IterVar>& inner, int64_t extent) {
  const std::pair<PrimExpr, int64_t> whole(int_imm(0), extent);
  std::optional<std::pair<PrimExpr, int64_t>> region;
  for (const auto& read : reads) {
    auto range = read_range(read[d], inner);
    if (!range) return whole;
    if (!region) {
      region = range;
      continue;
    }
    const PrimExpr distance = simplify(range->first - region->first);
    const int64_t* offset = as_int_imm(distance);
    if (!offset) return whole;
    const int64_t begin = std::min<int64_t>(0, *offset), end = std::max(region->second, *offset + range->second);
    region = std::make_pair(*offset < 0 ? range->first : region->first, end - begin);
  }
  if (region->second >= extent) return whole;
  return *region;
}

class Lowering {
 public:
  explicit Lowering(const Schedule& schedule) : schedule_(schedule) {}

  LoweredFunc run(std::string name, const std::vector<Tensor>& input_order) {
    LoweredFunc f;
    f.name = std::move(name);
    std::vector<Buffer> scratch;
    std::vector<Stmt> nests;
    for (const auto& stage : schedule_.stages()) {
      const Operation& op = stage->op();
      if (op->kind == OpKind::kPlaceholder) {
        f.inputs.push_back(buffer_for(op->output(0)));
        continue;
      }
      if (stage->inlined()) {
        if (schedule_.is_output(op)) {
          throw Error("schedule: output stage '" + op->name + "' is inlined").expected("a stage that writes a buffer");
        }
        inlined_[op.get()] = inline_reads(stage->body()[0]);
        continue;
      }
      if (!stage->attached_to()) {
        for (int i = 0; i < op->num_outputs(); ++i) {
          (schedule_.is_output(op) ? f.outputs : scratch).push_back(buffer_for(op->output(i)));
        }
        nests.push_back(stage_nest(*stage));
        continue;
      }
      // Its nest is emitted by its consumer's: that consumer must have one of its own.
      const Stage& consumer = schedule_.stage(stage->attached_to());
      if (consumer.inlined() || consumer.attached_to()) {
        throw Error("schedule: stage '" + op->name + "' is computed at '" + consumer.op()->name + "', which is " +
                    (consumer.inlined() ? "inlined" : "itself computed at another stage"))
            .expected("compute_at into a stage with loops of its own")
            .status(StatusCode::kUnsupported);
      }
    }
    if (!input_order.empty()) f.inputs = ordered_inputs(f.inputs, input_order);
    Stmt body = seq(std::move(nests));
    for (auto it = scratch.rbegin(); it != scratch.rend(); ++it) body = allocate(*it, body);
    f.body = simplify(body);
    check_bounds(f);
    return f;
  }

 private:
  std::vector<Buffer> ordered_inputs(const std::vector<Buffer>& found, const std::vector<Tensor>& order) {
    std::vector<Buffer> out;
    for (const Tensor& t : order) {
      if (t->op->kind != OpKind::kPlaceholder) throw Error("lower: input '" + t.name() + "' is not a placeholder");
      out.push_back(buffer_for(t));
    }
    for (const Buffer& b : found) {
      if (std::find(out.begin(), out.end(), b) == out.end()) {
        throw Error("lower: placeholder '" + b->name + "' is missing from the inputs given").expected("every placeholder the outputs read");
      }
    }
    return out;
  }

  Buffer buffer_for(const Tensor& t) {
    auto key = std::make_pair(t->op.get(), t->value_index);
    auto it = buffers_.find(key);
    if (it != buffers_.end()) return it->second;
    return buffers_[key] = make_buffer(t.name(), t.dtype(), t.shape());
  }

  /// e with the reads of inlined stages replaced by their bodies.
  PrimExpr inline_reads(const PrimExpr& e) {
    PrimExpr m = map_children(e, [&](const PrimExpr& c) { return inline_reads(c); });
    if (m->kind != PrimKind::kTensorRead) return m;
    const auto& r = *static_cast<const TensorReadNode*>(m.get());
    auto it = inlined_.find(r.tensor->op.get());
    if (it == inlined_.end()) return m;
    const auto& producer = *static_cast<const ComputeOpNode*>(r.tensor->op.get());
    VarMap at;
    for (size_t d = 0; d < producer.axis.size(); ++d) at[producer.axis[d]->var.get()] = r.indices[d];
    return substitute(it->second, at);
  }

  /// e (inlined) with tensor reads as buffer loads; a read of a stage
  /// computed at its reader's loop loads from the region that stage wrote.
  PrimExpr to_loads(const PrimExpr& e) {
    PrimExpr m = map_children(e, [&](const PrimExpr& c) { return to_loads(c); });
    if (m->kind != PrimKind::kTensorRead) return m;
    const auto& r = *static_cast<const TensorReadNode*>(m.get());
    const Buffer b = buffer_for(r.tensor);
    auto region = regions_.find(b.get());
    if (region == regions_.end()) return buffer_load(b, r.indices);
    const Region& at = region->second;
    std::vector<PrimExpr> index;
    for (size_t d = 0; d < r.indices.size(); ++d) {
      // In the reader's loops, so the offset from the region's start cancels to the inner loops.
      index.push_back(simplify(substitute(r.indices[d], at.reader_roots) - at.start[d]));
    }
    return buffer_load(at.buffer, std::move(index));
  }

  PrimExpr lowered(const PrimExpr& e) { return to_loads(inline_reads(e)); }

  Stmt stage_nest(const Stage& stage) {
    const NestPlan plan = plan_of(stage);
    Stmt nest = emit(stage, plan);
    for (const auto& [loop, attached] : plan.attached) {
      for (const Buffer& b : attached.buffers) regions_.erase(global_of_.at(b.get()));
    }
    return nest;
  }

  NestPlan plan_of(const Stage& stage) {
    NestPlan plan;
    plan.leaves = stage.leaf_iter_vars();
    plan.ls = loop_structure(stage);
    for (const IterVar& l : plan.leaves) plan.kinds[l.get()] = stage.for_kind(l);
    const Operation& op = stage.op();
    for (int i = 0; i < op->num_outputs(); ++i) plan.out.push_back(buffer_for(op->output(i)));
    for (const IterVar& a : static_cast<const ComputeOpNode&>(*op).axis) plan.index.push_back(a->var);
    for (const auto& producer : schedule_.stages()) {
      if (producer->attached_to().same_as(stage.op())) {
        NestPlan::Attached& at = plan.attached[producer->attach_loop().get()];
        NestPlan pplan = attached_plan(*producer, stage, plan);
        at.nests.push_back(emit(*producer, pplan));
        at.buffers.insert(at.buffers.end(), pplan.out.begin(), pplan.out.end());
      }
    }
    return plan;
  }

  /// The expressions a stage evaluates per element (its bodies, or its
  /// reduction's sources and condition), lowered.
  std::vector<PrimExpr> element_exprs(const Stage& stage) {
    std::vector<PrimExpr> out;
    const ReduceNode* r = stage.reduction();
    if (!r) {
      for (const PrimExpr& b : stage.body()) out.push_back(lowered(b));
      return out;
    }
    for (const PrimExpr& src : r->source) out.push_back(lowered(src));
    out.push_back(lowered(r->condition));
    return out;
  }

  /// The nest of `producer` computed at its attach loop of `consumer`: one
  /// loop per axis over the part the consumer reads under that loop, written
  /// into a buffer of that part's size (a tile that can live in registers).
  NestPlan attached_plan(const Stage& producer, const Stage& consumer, const NestPlan& cplan) {
    const Operation& op = producer.op();
    if (schedule_.is_output(op)) {
      throw Error("schedule: output stage '" + op->name + "' is computed at '" + consumer.op()->name + "'")
          .expected("a stage whose every element is written where it is read");
    }
    const auto& pc = *static_cast<const ComputeOpNode*>(op.get());
    std::vector<Buffer> buffers;
    for (int i = 0; i < op->num_outputs(); ++i) buffers.push_back(buffer_for(op->output(i)));
    VarMap root_values;
    for (const auto* roots : {&cplan.ls.data_roots, &cplan.ls.reduce_roots}) {
      for (const auto& r : *roots) root_values[r.axis->var.get()] = r.value;
    }
    std::vector<std::vector<PrimExpr>> reads;
    for (const PrimExpr& e : element_exprs(consumer)) {
      walk(e, [&](const PrimExpr& x) {
        if (x->kind != PrimKind::kBufferLoad) return;
        const auto& load = *static_cast<const BufferLoadNode*>(x.get());
        if (std::find(buffers.begin(), buffers.end(), load.buffer) == buffers.end()) return;
        std::vector<PrimExpr> index;
        for (const PrimExpr& i : load.indices) index.push_back(simplify(substitute(i, root_values)));
        reads.push_back(std::move(index));
      });
    }
    for (const auto& other : schedule_.stages()) {
      if (other.get() == &consumer || other->op()->kind != OpKind::kCompute || other->inlined()) continue;
      for (const PrimExpr& e : element_exprs(*other)) {
        walk(e, [&](const PrimExpr& x) {
          if (x->kind == PrimKind::kBufferLoad &&
              std::find(buffers.begin(), buffers.end(), static_cast<const BufferLoadNode*>(x.get())->buffer) != buffers.end()) {
            // It computes only what `consumer` reads: another reader would see the rest unwritten.
            throw Error("schedule: stage '" + op->name + "' is computed at '" + consumer.op()->name + "' but also read by '" +
                        other->op()->name + "'")
                .expected("compute_at into the stage's only consumer");
          }
        });
      }
    }
    if (reads.empty()) {
      throw Error("schedule: stage '" + op->name + "' is computed at '" + consumer.op()->name + "', which does not read it")
          .expected("compute_at into a consumer of the stage");
    }
    const auto at = std::find(cplan.leaves.begin(), cplan.leaves.end(), producer.attach_loop());
    const std::vector<IterVar> inner(at + 1, cplan.leaves.end());
    NestPlan plan;
    plan.bound = cplan.bound;
    for (auto it = cplan.leaves.begin(); it <= at; ++it) plan.bound.insert((*it)->var.get());
    std::vector<PrimExpr> region_start(pc.axis.size());
    std::vector<int64_t> region_shape(pc.axis.size());
    std::vector<PrimExpr> local_index(pc.axis.size());
    for (const IterVar& leaf : producer.leaf_iter_vars()) {
      const auto axis = std::find(pc.axis.begin(), pc.axis.end(), leaf);
      if (axis == pc.axis.end()) {  // a reduce axis: all of it, as its own loop
        plan.leaves.push_back(leaf);
        plan.kinds[leaf.get()] = producer.for_kind(leaf);
        plan.ls.reduce_roots.push_back({leaf, leaf->var, {leaf->var.get()}});
        continue;
      }
      const size_t d = static_cast<size_t>(axis - pc.axis.begin());
      const auto [start, extent] = read_region(reads, d, inner, leaf->extent);
      IterVar loop = make_ref<IterVarNode>(var(leaf->var->name + ".at"), 0, extent, IterKind::kDataParallel);
      plan.leaves.push_back(loop);
      plan.kinds[loop.get()] = producer.for_kind(leaf);
      const PrimExpr value = simplify(start + loop->var);
      plan.ls.data_roots.push_back({leaf, value, vars_of(value)});
      region_start[d] = start, region_shape[d] = extent, local_index[d] = loop->var;
      // Reads under a select may reach past the producer: those elements are not computed.
      plan.ls.data_guards.push_back(logical_and(leaf->var >= 0, leaf->var < int_imm(leaf->extent)));
    }
    // Roots in the producer's axis order, as emit() indexes them.
    std::vector<LoopStructure::Root> ordered;
    for (const IterVar& a : pc.axis) {
      for (const auto& r : plan.ls.data_roots) {
        if (r.axis.same_as(a)) ordered.push_back(r);
      }
    }
    plan.ls.data_roots = std::move(ordered);
    for (const Buffer& b : buffers) {
      plan.out.push_back(make_buffer(b->name, b->dtype, region_shape));
      global_of_[plan.out.back().get()] = b.get();
      regions_[b.get()] = Region{plan.out.back(), region_start, root_values};
    }
    plan.index = std::move(local_index);
    return plan;
  }

  Stmt emit(const Stage& stage, const NestPlan& plan) {
    const Operation& op = stage.op();
    const auto& c = *static_cast<const ComputeOpNode*>(op.get());
    const LoopStructure& ls = plan.ls;
    const std::vector<PrimExpr>& index = plan.index;
    const std::vector<Buffer>& out = plan.out;
    std::vector<const LoopStructure::Root*> data_roots, all_roots;
    for (const auto& r : ls.data_roots) data_roots.push_back(&r), all_roots.push_back(&r);
    for (const auto& r : ls.reduce_roots) all_roots.push_back(&r);
    std::vector<PrimExpr> all_guards = ls.data_guards;
    all_guards.insert(all_guards.end(), ls.reduce_guards.begin(), ls.reduce_guards.end());

    const ReduceNode* reduction = stage.reduction();
    const std::vector<IterVar>& leaves = plan.leaves;
    if (!reduction) {
      std::vector<Stmt> stores;
      for (size_t i = 0; i < out.size(); ++i) stores.push_back(buffer_store(out[i], index, lowered(stage.body()[i])));
      return loop_nest(plan, leaves, plan.bound, all_roots, guarded(all_guards, seq(std::move(stores))), true);
    }
    // The accumulator starts at the identity just outside the first reduce loop.
    const auto first_reduce = std::find_if(leaves.begin(), leaves.end(), [](const IterVar& l) { return l->kind == IterKind::kReduce; });
    const std::vector<IterVar> outer(leaves.begin(), first_reduce), inner(first_reduce, leaves.end());
    std::vector<IterVar> inner_data;
    std::copy_if(inner.begin(), inner.end(), std::back_inserter(inner_data), [](const IterVar& l) { return l->kind == IterKind::kDataParallel; });
    VarSet outer_vars = plan.bound;
    for (const IterVar& l : outer) outer_vars.insert(l->var.get());

    std::vector<Stmt> init;
    for (size_t i = 0; i < out.size(); ++i) init.push_back(buffer_store(out[i], index, reduction->combiner->identity[i]));
    Stmt init_stmt = guarded(ls.data_guards, seq(std::move(init)));
    if (!inner_data.empty()) init_stmt = loop_nest(plan, inner_data, outer_vars, data_roots, init_stmt, false);
    Stmt update = guarded(all_guards, update_stmt(*reduction, out, index));
    Stmt body = seq({init_stmt, loop_nest(plan, inner, outer_vars, all_roots, update, true)});
    return loop_nest(plan, outer, plan.bound, all_roots, body, true);
  }

  /// acc = combine(acc, source) for each output; several outputs are combined
  /// from their old values together (lets), then stored.
  Stmt update_stmt(const ReduceNode& r, const std::vector<Buffer>& out, const std::vector<PrimExpr>& index) {
    const CommReducer& comb = r.combiner;
    VarMap operands;
    for (size_t i = 0; i < out.size(); ++i) {
      operands[comb->lhs[i].get()] = buffer_load(out[i], index);
      operands[comb->rhs[i].get()] = lowered(r.source[i]);
    }
    Stmt s;
    if (out.size() == 1) {
      s = buffer_store(out[0], index, substitute(comb->result[0], operands));
    } else {
      std::vector<Stmt> stores;
      std::vector<Var> values;
      for (size_t i = 0; i < out.size(); ++i) {
        values.push_back(var(out[i]->name + ".next", out[i]->dtype));
        stores.push_back(buffer_store(out[i], index, values[i]));
      }
      s = seq(std::move(stores));
      for (size_t i = out.size(); i-- > 0;) s = let_stmt(values[i], substitute(comb->result[i], operands), s);
    }
    if (as_int_imm(r.condition)) return s;
    return if_then_else(lowered(r.condition), s);
  }

  /// Where a stage computed at its reader's loop keeps its part: a buffer of
  /// the part's shape from `start` (in the reader's loops, `reader_roots`
  /// giving the reader's axes in them).
  struct Region {
    Buffer buffer;
    std::vector<PrimExpr> start;
    VarMap reader_roots;
  };

  const Schedule& schedule_;
  std::unordered_map<const OperationNode*, PrimExpr> inlined_;
  std::unordered_map<const BufferNode*, Region> regions_;           // by the stage's whole buffer
  std::unordered_map<const BufferNode*, const BufferNode*> global_of_;  // a region's whole buffer
  std::map<std::pair<const OperationNode*, int>, Buffer> buffers_;
};

}  // namespace

LoweredFunc lower(const Schedule& schedule, std::string name, const std::vector<Tensor>& inputs) {
  return Lowering(schedule).run(std::move(name), inputs);
}

LoweredFunc lower(const std::vector<Tensor>& outputs, std::string name, const std::vector<Tensor>& inputs) {
  return lower(Schedule(outputs), std::move(name), inputs);
}

}  // namespace weft::te
