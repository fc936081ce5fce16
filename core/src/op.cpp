// The operator registry.
#include "weft/op.h"

#include "weft/error.h"

namespace weft {

std::string_view op_pattern_name(OpPattern p) {
  switch (p) {
    case OpPattern::kElemWise: return "elemwise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kCommReduce: return "comm_reduce";
    case OpPattern::kOutEWiseFusable: return "out_elemwise_fusable";
    case OpPattern::kTuple: return "tuple";
    case OpPattern::kOpaque: return "opaque";
  }
  return "?";
}

ReferenceKernel OpDef::kernel_for(const Call& call) const {
  if (!prepare_kernel) return kernel;
  std::vector<Type> arg_types;
  for (const Expr& a : call->args) {
    if (!a->has_type()) return kernel;  // untyped: nothing to prepare from
    arg_types.push_back(a->checked_type());
  }
  return prepare_kernel(arg_types, call->attrs ? call->attrs : empty_attrs());
}

const Op& OpDef::expr() const {
  WEFT_ICHECK(expr_.defined(), "op '" + name + "' was not registered through OpRegistry::add");
  return expr_;
}

OpRegistry& OpRegistry::global() {
  // Leaked on purpose: Op nodes held by other statics point at its definitions.
  static OpRegistry* registry = new OpRegistry();
  return *registry;
}

void OpRegistry::check(const OpDef& def) const {
  if (!def.relation) throw Error("op has no type relation").op(def.name).expected("a TypeRelation");
}

void OpRegistry::adopted(OpDef& def) { def.expr_ = make_ref<OpNode>(&def); }

Error OpRegistry::located(Error error, std::string_view name) const {
  error.op(std::string(name));
  return error;
}

Error OpRegistry::unknown(std::string_view name) const {
  return located(Error("unknown operator '" + std::string(name) + "'"), name)
      .note("no registered op or plugin manifest provides it")
      .status(StatusCode::kNotFound);
}

}  // namespace weft
