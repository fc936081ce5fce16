#include "weft/te/function_te.h"

#include <unordered_map>
#include <unordered_set>

#include "weft/functor.h"
#include "weft/op.h"
#include "weft/printer.h"
#include "weft/te/printer.h"

namespace weft::te {
namespace {

bool static_tensors(const Type& t) {
  std::vector<TensorType> tensors = flat_tensor_types(t);
  if (tensors.empty()) return false;
  for (const TensorType& tensor : tensors) {
    if (!tensor->is_static()) return false;
  }
  return true;
}

std::vector<int64_t> shape_of(const TensorType& t) { return std::vector<int64_t>(t->shape.begin(), t->shape.end()); }

std::string describe(const Tensor& t) { return print_shape(t.shape()) + " " + t.dtype().str(); }

/// The flattened tensors of `type` as placeholders named after `name`.
std::vector<Tensor> placeholders(const Type& type, const std::string& name, const std::string& what) {
  if (!static_tensors(type)) {
    throw Error(what + " has type " + (type ? type_to_text(type) : std::string("(none)")))
        .expected("tensors or tuples of tensors of static shape (TE describes static shapes)");
  }
  std::vector<TensorType> types = flat_tensor_types(type);
  std::vector<Tensor> out;
  for (size_t i = 0; i < types.size(); ++i) {
    out.push_back(placeholder(shape_of(types[i]), types[i]->dtype,
                              types.size() == 1 ? name : name + "." + std::to_string(i)));
  }
  return out;
}

/// A compute copying t: an output that is no compute of its own.
Tensor copy_of(const Tensor& t) {
  return compute(t.shape(), [&](const std::vector<Var>& i) { return t(std::vector<PrimExpr>(i.begin(), i.end())); },
                 t.name() + ".copy");
}

/// The value of a one-element tensor as an immediate of its dtype.
PrimExpr immediate(const weft::Tensor& t) {
  const DataType dt = t.dtype();
  if (dt.is_float()) return float_imm(t.element_as_double(0), dt);
  int64_t value = 0;  // integers and bool exactly, as int64
  switch (dt.bits) {
    case 1:
    case 8: value = dt.is_int() ? *t.data_as<int8_t>() : *t.data_as<uint8_t>(); break;
    case 16: value = dt.is_int() ? *t.data_as<int16_t>() : *t.data_as<uint16_t>(); break;
    case 32: value = dt.is_int() ? *t.data_as<int32_t>() : *t.data_as<uint32_t>(); break;
    case 64: value = *t.data_as<int64_t>(); break;
    default: throw Error("TE: a constant of dtype " + dt.str()).expected("a float, integer or bool dtype");
  }
  return int_imm(value, dt);
}

}  // namespace

bool has_te(const Call& call) {
  auto op = call->op.as<OpNode>();
  if (!op || !op->def->te_compute || !static_tensors(call->checked_type())) return false;
  for (const Expr& a : call->args) {
    if (!static_tensors(a->checked_type())) return false;
  }
  return true;
}

std::vector<Tensor> call_te(const Call& call, std::span<const Tensor> inputs) {
  auto op = call->op.as<OpNode>();
  if (!op) throw Error("TE describes calls of ops; this call's callee is a " + std::string(expr_kind_name(call->op->kind)));
  const OpDef& def = *op->def;
  if (!def.te_compute) throw Error("the op has no TE compute").op(def.name).status(StatusCode::kUnsupported);
  std::vector<TensorType> types = flat_tensor_types(call->checked_type());
  std::vector<Tensor> outputs = def.te_compute(inputs, call->attrs, call->checked_type());
  if (outputs.size() != types.size()) {
    throw Error("the te_compute gave " + std::to_string(outputs.size()) + " tensors")
        .op(def.name)
        .expected(std::to_string(types.size()) + ", one per output tensor of " + type_to_text(call->checked_type()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) throw Error("the te_compute left output " + std::to_string(i) + " unset").op(def.name);
    if (outputs[i].shape() != shape_of(types[i]) || outputs[i].dtype() != types[i]->dtype) {
      throw Error("the te_compute's output " + std::to_string(i) + " is " + describe(outputs[i]))
          .op(def.name)
          .expected(type_to_text(types[i]) + ", the call's type");
    }
  }
  return outputs;
}

std::vector<Tensor> FunctionTe::inputs() const {
  std::vector<Tensor> all = params;
  for (const auto& [placeholder, data] : constants) all.push_back(placeholder);
  return all;
}

FunctionTe function_te(const Function& fn) {
  FunctionTe out;
  std::unordered_map<const ExprNode*, std::vector<Tensor>> tensors;
  for (const weft::Var& p : fn->params) {
    tensors[p.get()] = placeholders(p->checked_type(), p->name_hint, "parameter %" + p->name_hint);
    out.params.insert(out.params.end(), tensors[p.get()].begin(), tensors[p.get()].end());
  }
  auto unsupported = [&](const Expr& e) {
    return Error("TE describes functions of op calls, tuples and projections; this one has a " +
                 std::string(expr_kind_name(e->kind)))
        .in(to_text(Expr(fn), {.show_types = false, .header = false, .show_meta_data = false}));
  };
  post_order_visit(fn->body, [&](const Expr& e) {
    std::vector<Tensor>& mine = tensors[e.get()];
    switch (e->kind) {
      case ExprKind::kVar:
        if (mine.empty()) throw unsupported(e);  // a free variable: not one of the parameters
        return;
      case ExprKind::kOp:
        return;  // a callee
      case ExprKind::kConstant: {
        const weft::Tensor& data = downcast<ConstantNode>(e)->data;
        if (data.numel() == 1) {  // a scalar: an immediate in the loops, not a buffer
          mine = {compute(data.shape(), [&](const std::vector<Var>&) { return immediate(data); }, "constant")};
          return;
        }
        mine = placeholders(e->checked_type(), "constant" + std::to_string(out.constants.size()), "a constant");
        out.constants.emplace_back(mine[0], data);
        return;
      }
      case ExprKind::kTuple:
        for (const Expr& field : downcast<TupleNode>(e)->fields) {
          const std::vector<Tensor>& of_field = tensors.at(field.get());
          mine.insert(mine.end(), of_field.begin(), of_field.end());
        }
        return;
      case ExprKind::kTupleGetItem: {
        auto item = downcast<TupleGetItemNode>(e);
        const std::vector<Tensor>& of_tuple = tensors.at(item->tuple.get());
        auto fields = downcast<TupleTypeNode>(item->tuple->checked_type())->fields;
        size_t first = 0;
        for (int i = 0; i < item->index; ++i) first += flat_tensor_count(fields[i]);
        mine.assign(of_tuple.begin() + first, of_tuple.begin() + first + flat_tensor_count(fields[item->index]));
        return;
      }
      case ExprKind::kCall: {
        auto call = downcast<weft::CallNode>(e);
        if (call->op->kind != ExprKind::kOp) throw unsupported(e);
        std::vector<Tensor> inputs;
        for (const Expr& a : call->args) {
          const std::vector<Tensor>& of_arg = tensors.at(a.get());
          inputs.insert(inputs.end(), of_arg.begin(), of_arg.end());
        }
        mine = call_te(call, inputs);
        return;
      }
      default:
        throw unsupported(e);
    }
  });
  // A result is its compute's own buffer when nothing else is: a compute of
  // one output, returned once. A multi-output compute stays an intermediate
  // (its other outputs are no results), and a parameter is copied.
  std::unordered_set<const OperationNode*> taken;
  for (const Tensor& t : tensors.at(fn->body.get())) {
    bool own = t->op->kind == OpKind::kCompute && t->op->num_outputs() == 1 && taken.insert(t->op.get()).second;
    out.outputs.push_back(own ? t : copy_of(t));
  }
  return out;
}

}  // namespace weft::te
