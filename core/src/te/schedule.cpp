#include "weft/te/schedule.h"

#include <algorithm>

#include "weft/te/functor.h"

namespace weft::te {
namespace {

IterVar derived(const std::string& name, int64_t extent, IterKind kind) {
  return make_ref<IterVarNode>(var(name), 0, extent, kind);
}

}  // namespace

Stage::Stage(Operation op) : op_(std::move(op)) {
  if (op_->kind != OpKind::kCompute) return;
  const auto& c = *static_cast<const ComputeOpNode*>(op_.get());
  body_ = c.body;
  leaves_ = c.axis;
  for (const IterVar& r : c.reduce_axis()) leaves_.push_back(r);
}

const ReduceNode* Stage::reduction() const {
  return !body_.empty() && body_[0]->kind == PrimKind::kReduce ? static_cast<const ReduceNode*>(body_[0].get()) : nullptr;
}

const std::vector<IterVar>& Stage::reduce_axis() const {
  static const std::vector<IterVar> none;
  const ReduceNode* r = reduction();
  return r ? r->axis : none;
}

ForKind Stage::for_kind(const IterVar& iv) const {
  auto it = kinds_.find(iv.get());
  return it == kinds_.end() ? ForKind::kSerial : it->second;
}

size_t Stage::leaf_position(const IterVar& iv, const char* primitive) const {
  if (op_->kind != OpKind::kCompute) {
    throw Error(std::string("schedule: ") + primitive + " on placeholder '" + op_->name + "'")
        .expected("a compute stage");
  }
  auto it = std::find(leaves_.begin(), leaves_.end(), iv);
  if (!iv || it == leaves_.end()) {
    throw Error(std::string("schedule: ") + primitive + " of stage '" + op_->name + "' on loop '" +
                (iv ? iv->var->name : std::string("(null)")) + "'")
        .expected("one of the stage's current loops (an axis not yet split or fused away)");
  }
  return static_cast<size_t>(it - leaves_.begin());
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& parent, int64_t factor, Predication predication) {
  const size_t pos = leaf_position(parent, "split");
  require_unattached("split");
  if (factor <= 0) {
    throw Error("schedule: split of '" + parent->var->name + "' in stage '" + op_->name + "' by " +
                std::to_string(factor))
        .expected("a positive factor");
  }
  const int64_t outer_extent = (parent->extent + factor - 1) / factor;
  IterVar outer = derived(parent->var->name + ".outer", outer_extent, parent->kind);
  IterVar inner = derived(parent->var->name + ".inner", factor, parent->kind);
  relations_.push_back({IterRelation::kSplit, parent, outer, inner, factor, predication == Predication::kGuarded});
  leaves_[pos] = outer;
  leaves_.insert(leaves_.begin() + static_cast<std::ptrdiff_t>(pos) + 1, inner);
  return {outer, inner};
}

std::pair<IterVar, IterVar> Stage::split_by_nparts(const IterVar& parent, int64_t nparts, Predication predication) {
  leaf_position(parent, "split");
  if (nparts <= 0) {
    throw Error("schedule: split of '" + parent->var->name + "' in stage '" + op_->name + "' into " +
                std::to_string(nparts) + " parts")
        .expected("a positive number of parts");
  }
  return split(parent, (parent->extent + nparts - 1) / nparts, predication);
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner) {
  const size_t pos = leaf_position(outer, "fuse");
  require_unattached("fuse");
  if (leaf_position(inner, "fuse") != pos + 1) {
    throw Error("schedule: fuse of '" + outer->var->name + "' and '" + inner->var->name + "' in stage '" + op_->name +
                "'")
        .expected("adjacent loops, the first just outside the second (reorder them first)");
  }
  if (outer->kind != inner->kind) {
    throw Error("schedule: fuse of data axis and reduce axis in stage '" + op_->name + "'")
        .expected("two data-parallel or two reduce loops");
  }
  IterVar fused = derived(outer->var->name + "." + inner->var->name + ".fused", outer->extent * inner->extent, outer->kind);
  relations_.push_back({IterRelation::kFuse, fused, outer, inner, 0, true});
  leaves_[pos] = fused;
  leaves_.erase(leaves_.begin() + static_cast<std::ptrdiff_t>(pos) + 1);
  return fused;
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<size_t> positions;
  for (const IterVar& iv : order) positions.push_back(leaf_position(iv, "reorder"));
  std::vector<size_t> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw Error("schedule: reorder of stage '" + op_->name + "' names a loop twice").expected("distinct loops");
  }
  for (size_t i = 0; i < order.size(); ++i) leaves_[sorted[i]] = order[i];
}

void Stage::mark(const IterVar& iv, ForKind kind, const char* primitive) {
  leaf_position(iv, primitive);
  if (kind != ForKind::kUnrolled && iv->kind == IterKind::kReduce) {
    // Iterations of a reduce loop update one accumulator: they cannot run at once.
    throw Error(std::string("schedule: ") + primitive + " of reduce loop '" + iv->var->name + "' in stage '" +
                op_->name + "'")
        .expected("a data-parallel loop");
  }
  kinds_[iv.get()] = kind;
}

void Stage::vectorize(const IterVar& iv) { mark(iv, ForKind::kVectorized, "vectorize"); }
void Stage::unroll(const IterVar& iv) { mark(iv, ForKind::kUnrolled, "unroll"); }
void Stage::parallel(const IterVar& iv) { mark(iv, ForKind::kParallel, "parallel"); }

void Stage::compute_inline() {
  if (op_->kind != OpKind::kCompute || reduction()) {
    throw Error("schedule: compute_inline of stage '" + op_->name + "'").expected("an injective compute stage (no reduction)");
  }
  if (op_->num_outputs() != 1) {
    throw Error("schedule: compute_inline of stage '" + op_->name + "' with several outputs").expected("one output");
  }
  inlined_ = true;
}

void Stage::require_unattached(const char* primitive) const {
  if (attach_op_) {
    throw Error(std::string("schedule: ") + primitive + " of stage '" + op_->name + "', computed at '" +
                attach_op_->name + "'")
        .expected("reorder, vectorize, unroll or parallel (its loops are the axes of the part it computes)")
        .status(StatusCode::kUnsupported);
  }
}

void Stage::compute_at(const Stage& consumer, const IterVar& at) {
  consumer.leaf_position(at, "compute_at");
  if (op_->kind != OpKind::kCompute || inlined_) {
    throw Error("schedule: compute_at of stage '" + op_->name + "'").expected("a compute stage that is not inlined");
  }
  if (!relations_.empty()) {
    throw Error("schedule: compute_at of stage '" + op_->name + "', whose loops are split or fused")
        .expected("compute_at before any split or fuse of the stage")
        .status(StatusCode::kUnsupported);
  }
  if (consumer.attach_op_) {
    throw Error("schedule: compute_at of stage '" + op_->name + "' into '" + consumer.op_->name +
                "', which is itself computed at '" + consumer.attach_op_->name + "'")
        .expected("a consumer with loops of its own")
        .status(StatusCode::kUnsupported);
  }
  attach_op_ = consumer.op_;
  attach_loop_ = at;
}

Schedule::Schedule(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  if (outputs_.empty()) throw Error("schedule: no output tensors");
  for (const Operation& op : collect_operations(outputs_)) stages_.push_back(std::make_unique<Stage>(op));
}

std::vector<Tensor> Schedule::cache_write(const Tensor& t) {
  Stage& st = (*this)[t];
  if (st.op_->kind != OpKind::kCompute) throw Error("schedule: cache_write of placeholder '" + st.op_->name + "'");
  if (!st.relations_.empty() || !st.kinds_.empty() || st.inlined_ || st.attach_op_ ||
      st.cached_) {
    throw Error("schedule: cache_write of stage '" + st.op_->name + "' after it was scheduled")
        .expected("cache_write first, then the other primitives");
  }
  const auto& c = *static_cast<const ComputeOpNode*>(st.op_.get());
  // The cache computes the same bodies over axes of its own.
  std::vector<IterVar> axis;
  VarMap to_cache_axis;
  for (const IterVar& a : c.axis) {
    axis.push_back(make_ref<IterVarNode>(var(a->var->name), 0, a->extent, IterKind::kDataParallel));
    to_cache_axis[a->var.get()] = axis.back()->var;
  }
  std::vector<PrimExpr> body;
  for (const PrimExpr& b : st.body_) body.push_back(substitute(b, to_cache_axis));
  Operation cache = make_ref<ComputeOpNode>(st.op_->name + ".local", std::move(axis), std::move(body));
  std::vector<Tensor> cache_out;
  std::vector<PrimExpr> index;
  for (const IterVar& a : c.axis) index.push_back(a->var);
  for (int i = 0; i < cache->num_outputs(); ++i) {
    cache_out.push_back(cache->output(i));
    st.body_[static_cast<size_t>(i)] = cache_out.back()(index);
  }
  st.leaves_ = c.axis;
  st.cached_ = true;
  auto pos = std::find_if(stages_.begin(), stages_.end(), [&](const auto& s) { return s.get() == &st; });
  stages_.insert(pos, std::make_unique<Stage>(cache));
  return cache_out;
}

Stage& Schedule::operator[](const Tensor& t) { return const_cast<Stage&>(stage(t->op)); }

const Stage& Schedule::stage(const Operation& op) const {
  for (const auto& s : stages_) {
    if (s->op().same_as(op)) return *s;
  }
  throw Error("schedule: operation '" + op->name + "' is not in the scheduled graph")
      .expected("a stage the outputs depend on");
}

bool Schedule::is_output(const Operation& op) const {
  return std::any_of(outputs_.begin(), outputs_.end(), [&](const Tensor& t) { return t->op.same_as(op); });
}

}  // namespace weft::te
