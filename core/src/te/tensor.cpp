#include "weft/te/tensor.h"

#include <limits>
#include <unordered_set>

#include "weft/te/functor.h"
#include "weft/te/printer.h"

namespace weft::te {
namespace {

void check_shape(const std::vector<int64_t>& shape, const std::string& name) {
  for (int64_t d : shape) {
    if (d < 0 || d > std::numeric_limits<int32_t>::max()) {
      throw Error("TE: tensor '" + name + "' has shape " + print_shape(shape))
          .expected("extents in [0, 2^31) (indices are int32)");
    }
  }
}

/// The reductions of a compute's bodies are all at the top, one combiner over
/// one axis set, or there are none; Error naming the compute otherwise.
void check_bodies(const std::string& name, const std::vector<PrimExpr>& body) {
  const ReduceNode* first = nullptr;
  for (size_t i = 0; i < body.size(); ++i) {
    if (!body[i]) throw Error("TE: compute '" + name + "' has an undefined body");
    const bool top = body[i]->kind == PrimKind::kReduce;
    const auto* r = top ? static_cast<const ReduceNode*>(body[i].get()) : nullptr;
    if (i > 0 && (r == nullptr) != (first == nullptr)) {
      throw Error("TE: compute '" + name + "' mixes reductions and plain values").expected("all bodies reductions or none");
    }
    if (i == 0) first = r;
    if (r && (!r->combiner.same_as(first->combiner) || r->axis != first->axis || r->value_index != static_cast<int>(i))) {
      throw Error("TE: compute '" + name + "' has reductions of different reducers or axes")
          .expected("output i = value i of one reduce() call");
    }
    auto nested = [&](const PrimExpr& root) {
      walk(root, [&](const PrimExpr& e) {
        if (e->kind == PrimKind::kReduce && !e.same_as(body[i])) {
          throw Error("TE: compute '" + name + "' has a reduction inside an expression")
              .expected("a reduction as the whole body (compute the reduction as its own stage)");
        }
      });
    };
    if (r) {
      for (const PrimExpr& s : r->source) nested(s);
      nested(r->condition);
    } else {
      nested(body[i]);
    }
  }
  if (first && first->source.size() != body.size()) {
    throw Error("TE: compute '" + name + "' has " + std::to_string(body.size()) + " outputs of a reducer of " +
                std::to_string(first->source.size()))
        .expected("one output per reducer value");
  }
}

std::vector<Var> index_vars(size_t rank) {
  std::vector<Var> vars;
  for (size_t d = 0; d < rank; ++d) {
    vars.push_back(var(rank <= 2 ? std::string(1, "ij"[d]) : "i" + std::to_string(d)));
  }
  return vars;
}

}  // namespace

int OperationNode::num_outputs() const {
  if (kind == OpKind::kPlaceholder) return 1;
  return static_cast<int>(static_cast<const ComputeOpNode*>(this)->body.size());
}

Tensor OperationNode::output(int i) const {
  WEFT_ICHECK(i >= 0 && i < num_outputs(), "output index out of range");
  Operation self(const_cast<OperationNode*>(this));
  if (kind == OpKind::kPlaceholder) {
    const auto* p = static_cast<const PlaceholderOpNode*>(this);
    return Tensor(make_ref<TensorNode>(self, 0, p->shape, p->dtype));
  }
  const auto* c = static_cast<const ComputeOpNode*>(this);
  std::vector<int64_t> shape;
  for (const IterVar& iv : c->axis) shape.push_back(iv->extent);
  return Tensor(make_ref<TensorNode>(self, i, std::move(shape), c->body[static_cast<size_t>(i)].dtype()));
}

bool same_tensor(const Tensor& a, const Tensor& b) {
  return a.same_as(b) || (a && b && a->op.same_as(b->op) && a->value_index == b->value_index);
}

const std::vector<IterVar>& ComputeOpNode::reduce_axis() const {
  static const std::vector<IterVar> none;
  const ReduceNode* r = reduction();
  return r ? r->axis : none;
}

const ReduceNode* ComputeOpNode::reduction() const {
  return body[0]->kind == PrimKind::kReduce ? static_cast<const ReduceNode*>(body[0].get()) : nullptr;
}

std::string Tensor::name() const {
  const Operation& op = get()->op;
  return op->num_outputs() == 1 ? op->name : op->name + "." + std::to_string(get()->value_index);
}

PrimExpr Tensor::operator()(std::vector<PrimExpr> indices) const {
  if (indices.size() != shape().size()) {
    throw Error("TE: read of '" + name() + "' with " + std::to_string(indices.size()) + " indices")
        .expected(std::to_string(shape().size()) + ", its rank");
  }
  for (PrimExpr& i : indices) {
    if (!i || i.dtype().is_float() || i.dtype().is_bool()) {
      throw Error("TE: read of '" + name() + "' with a non-integer index").expected("integer indices");
    }
  }
  return make_ref<TensorReadNode>(*this, std::move(indices));
}

Tensor placeholder(std::vector<int64_t> shape, DataType dtype, std::string name) {
  check_shape(shape, name);
  return make_ref<PlaceholderOpNode>(std::move(name), std::move(shape), dtype)->output(0);
}

Tensor compute(std::vector<int64_t> shape, const std::function<PrimExpr(const std::vector<Var>&)>& fcompute,
               std::string name) {
  return compute_multi(
      std::move(shape), [&](const std::vector<Var>& i) { return std::vector<PrimExpr>{fcompute(i)}; },
      std::move(name))[0];
}

std::vector<Tensor> compute_multi(std::vector<int64_t> shape,
                                  const std::function<std::vector<PrimExpr>(const std::vector<Var>&)>& fcompute,
                                  std::string name) {
  check_shape(shape, name);
  std::vector<Var> vars = index_vars(shape.size());
  std::vector<IterVar> axis;
  for (size_t d = 0; d < shape.size(); ++d) axis.push_back(make_ref<IterVarNode>(vars[d], 0, shape[d], IterKind::kDataParallel));
  std::vector<PrimExpr> body = fcompute(vars);
  return compute_over(std::move(axis), std::move(body), std::move(name));
}

std::vector<Tensor> compute_over(std::vector<IterVar> axis, std::vector<PrimExpr> body, std::string name) {
  std::vector<int64_t> shape;
  for (const IterVar& iv : axis) {
    if (!iv || iv->kind != IterKind::kDataParallel || iv->min != 0) {
      throw Error("TE: compute '" + name + "' over an axis that is not a data axis from 0")
          .expected("data-parallel axes starting at 0, one per output dimension");
    }
    shape.push_back(iv->extent);
  }
  check_shape(shape, name);
  for (size_t a = 0; a < axis.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if (axis[a].same_as(axis[b])) throw Error("TE: compute '" + name + "' uses one axis twice");
    }
  }
  if (body.empty()) throw Error("TE: compute '" + name + "' has no outputs");
  check_bodies(name, body);
  Operation op = make_ref<ComputeOpNode>(std::move(name), std::move(axis), std::move(body));
  std::vector<Tensor> out;
  for (int i = 0; i < op->num_outputs(); ++i) out.push_back(op->output(i));
  return out;
}

std::vector<Tensor> input_tensors(const Operation& op) {
  std::vector<Tensor> inputs;
  if (op->kind != OpKind::kCompute) return inputs;
  for (const PrimExpr& body : static_cast<const ComputeOpNode*>(op.get())->body) {
    walk(body, [&](const PrimExpr& e) {
      if (e->kind != PrimKind::kTensorRead) return;
      const Tensor& t = static_cast<const TensorReadNode*>(e.get())->tensor;
      for (const Tensor& seen : inputs) {
        if (same_tensor(seen, t)) return;
      }
      inputs.push_back(t);
    });
  }
  return inputs;
}

std::vector<Operation> collect_operations(const std::vector<Tensor>& outputs) {
  // Iterative post-order: a fused chain's stages may be many.
  std::vector<Operation> order;
  std::unordered_set<const OperationNode*> done, entered;
  std::vector<std::pair<Operation, bool>> stack;
  for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) stack.emplace_back((*it)->op, false);
  while (!stack.empty()) {
    auto [op, expanded] = stack.back();
    stack.pop_back();
    if (done.count(op.get())) continue;
    if (expanded) {
      done.insert(op.get());
      order.push_back(op);
      continue;
    }
    if (!entered.insert(op.get()).second) {
      throw Error("TE: operation '" + op->name + "' depends on itself");
    }
    stack.emplace_back(op, true);
    std::vector<Tensor> inputs = input_tensors(op);
    for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) {
      if (!done.count((*it)->op.get())) stack.emplace_back((*it)->op, false);
    }
  }
  return order;
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pad_before, const std::vector<int64_t>& pad_after,
           PrimExpr pad_value, std::string name) {
  const size_t rank = x.shape().size();
  if (pad_before.size() != rank || pad_after.size() != rank) {
    throw Error("TE: pad of '" + x.name() + "' with " + std::to_string(pad_before.size()) + " and " +
                std::to_string(pad_after.size()) + " widths")
        .expected(std::to_string(rank) + " each, one per axis");
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    if (pad_before[d] < 0 || pad_after[d] < 0) throw Error("TE: pad of '" + x.name() + "' with a negative width");
    shape.push_back(x.shape()[d] + pad_before[d] + pad_after[d]);
  }
  PrimExpr value = cast(x.dtype(), std::move(pad_value));
  return compute(
      shape,
      [&](const std::vector<Var>& out) {
        std::vector<PrimExpr> in;
        PrimExpr inside = bool_imm(true);
        for (size_t d = 0; d < rank; ++d) {
          if (pad_before[d] == 0 && pad_after[d] == 0) {
            in.push_back(out[d]);
            continue;
          }
          PrimExpr i = out[d] - PrimExpr(pad_before[d]);
          in.push_back(i);
          inside = logical_and(inside, logical_and(i >= 0, i < PrimExpr(x.shape()[d])));
        }
        return select(inside, x(in), value);
      },
      std::move(name));
}

}  // namespace weft::te
