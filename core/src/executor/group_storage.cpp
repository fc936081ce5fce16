// Which groups the memory plan may run in place or as views (group_storage.h).
#include "weft/group_storage.h"

#include <algorithm>

#include "weft/functor.h"
#include "weft/op.h"
#include "weft/type.h"

namespace weft {
namespace {

const OpDef* op_of(const CallNode& call) {
  return call.op->kind == ExprKind::kOp ? static_cast<const OpNode&>(*call.op).def : nullptr;
}

// Shape and dtype, static: what the bytes of a tensor are.
bool same_tensor_type(const Type& a, const Type& b) {
  auto ta = downcast<TensorTypeNode>(a), tb = downcast<TensorTypeNode>(b);
  return ta && tb && ta->is_static() && ta->shape == tb->shape && ta->dtype == tb->dtype;
}

std::optional<size_t> parameter_index(const Function& fn, const Expr& e) {
  auto it = std::find_if(fn->params.begin(), fn->params.end(), [&](const Var& p) { return p.get() == e.get(); });
  if (it == fn->params.end()) return std::nullopt;
  return static_cast<size_t>(it - fn->params.begin());
}

size_t static_bytes(const Type& t) {
  auto tt = downcast<TensorTypeNode>(t);
  return tt && tt->is_static() ? static_cast<size_t>(tt->numel()) * tt->dtype.bytes() : 0;
}

// How many tensors a value of type `t` passes: tuples flattened.
size_t tensor_leaves(const Type& t) {
  if (auto tuple = downcast<TupleTypeNode>(t)) {
    size_t n = 0;
    for (const Type& f : tuple->fields) n += tensor_leaves(f);
    return n;
  }
  return 1;
}

}  // namespace

std::optional<size_t> inplace_parameter(const Function& primitive) {
  bool elementwise = true;
  post_order_visit(primitive->body, [&](const Expr& e) {
    switch (e->kind) {
      case ExprKind::kCall: {
        const OpDef* op = op_of(static_cast<const CallNode&>(*e));
        elementwise = elementwise && op && (op->pattern == OpPattern::kElemWise || op->pattern == OpPattern::kBroadcast);
        break;
      }
      case ExprKind::kVar:
      case ExprKind::kConstant:
      case ExprKind::kOp:
        break;
      default:  // tuples, projections, lets: not a plain elementwise body
        elementwise = false;
    }
  });
  if (!elementwise) return std::nullopt;
  for (size_t i = 0; i < primitive->params.size(); ++i)
    if (has_result_type(primitive, i)) return i;
  return std::nullopt;
}

bool has_result_type(const Function& primitive, size_t param) {
  return param < primitive->params.size() &&
         same_tensor_type(primitive->params[param]->checked_type(), primitive->body->checked_type());
}

std::optional<size_t> reshaped_parameter(const Function& primitive) {
  Expr at = primitive->body;
  bool reshaped = false;
  while (auto* call = at.as<CallNode>()) {
    const OpDef* op = op_of(*call);
    if (!op || !op->is_reshape || call->args.empty()) return std::nullopt;
    at = call->args[0];
    reshaped = true;
  }
  std::optional<size_t> param = parameter_index(primitive, at);
  const size_t bytes = static_bytes(primitive->body->checked_type());
  if (!reshaped || !param || bytes == 0 || static_bytes(at->checked_type()) != bytes) return std::nullopt;
  return param;
}

std::optional<std::vector<size_t>> concatenated_parameters(const Function& primitive) {
  auto* call = primitive->body.as<CallNode>();
  const OpDef* op = call ? op_of(*call) : nullptr;
  if (!op || op->name != "concatenate" || call->args.size() != 1) return std::nullopt;
  auto result = downcast<TensorTypeNode>(primitive->body->checked_type());
  if (!result || !result->is_static()) return std::nullopt;
  const AttrValue* axis_attr = call->attrs ? call->attrs->find("axis") : nullptr;
  if (!axis_attr) return std::nullopt;
  int64_t axis = axis_attr->as_int();
  const auto rank = static_cast<int64_t>(result->shape.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  for (int64_t d = 0; d < axis; ++d)
    if (result->shape[d] != 1) return std::nullopt;
  // Where each parameter's tensors start among the launch's arguments.
  std::vector<size_t> first_leaf;
  size_t leaves = 0;
  for (const Var& p : primitive->params) {
    first_leaf.push_back(leaves);
    leaves += tensor_leaves(p->checked_type());
  }
  std::vector<size_t> order;
  if (auto p = parameter_index(primitive, call->args[0])) {
    auto tuple = downcast<TupleTypeNode>(primitive->params[*p]->checked_type());
    if (!tuple) return std::nullopt;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      if (!downcast<TensorTypeNode>(tuple->fields[i])) return std::nullopt;
      order.push_back(first_leaf[*p] + i);
    }
    return order;
  }
  auto inputs = call->args[0].as<TupleNode>();
  if (!inputs) return std::nullopt;
  for (const Expr& input : inputs->fields) {
    std::optional<size_t> p = parameter_index(primitive, input);
    if (!p || !downcast<TensorTypeNode>(primitive->params[*p]->checked_type()) ||
        std::find(order.begin(), order.end(), first_leaf[*p]) != order.end())
      return std::nullopt;
    order.push_back(first_leaf[*p]);
  }
  return order;
}

}  // namespace weft
