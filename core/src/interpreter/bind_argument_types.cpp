// Re-typing a function for the arguments of one call (see bind_argument_types.h).
#include "bind_argument_types.h"

#include <unordered_map>

#include "weft/functor.h"

namespace weft::interpreter {

namespace {

/// The type an argument gives its parameter: its own shapes in place of the
/// declared `?` extents. A closure keeps the declared (function) type.
Type argument_type(const Value& v, const Type& declared) {
  if (v.is_tensor()) return tensor_type(v.tensor().shape(), v.tensor().dtype());
  if (auto tuple = declared.as<TupleTypeNode>(); tuple && v.is_tuple()) {
    std::vector<Type> fields;
    for (size_t i = 0; i < tuple->fields.size(); ++i) fields.push_back(argument_type(v.fields().at(i), tuple->fields[i]));
    return tuple_type(std::move(fields));
  }
  return declared;
}

}  // namespace

bool has_dynamic_extent(const Type& t) {
  if (auto tensor = t.as<TensorTypeNode>()) return !tensor->is_static();
  if (auto tuple = t.as<TupleTypeNode>()) {
    for (const Type& field : tuple->fields)
      if (has_dynamic_extent(field)) return true;
  }
  return false;
}

}  // namespace weft::interpreter

namespace weft {

IRModule bind_argument_types(const IRModule& mod, const std::string& name, const std::vector<Value>& args) {
  Function fn = mod.lookup(name);
  std::unordered_map<const VarNode*, Expr> replacement;
  std::vector<Var> params;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const Var& p = fn->params[i];
    if (!interpreter::has_dynamic_extent(p->checked_type())) {
      params.push_back(p);
      continue;
    }
    Var bound = var(p->name_hint, interpreter::argument_type(args.at(i), p->checked_type()));
    if (p->span) const_cast<VarNode*>(bound.get())->span = p->span;  // errors still point at the program
    replacement.emplace(p.get(), bound);
    params.push_back(bound);
  }
  Expr body = substitute_vars(fn->body, std::move(replacement));
  Type ret = fn->ret_type && !interpreter::has_dynamic_extent(fn->ret_type) ? fn->ret_type : Type();
  IRModule bound = mod;
  bound.add(mod.global_var(name), function(std::move(params), std::move(body), std::move(ret), fn->attrs));
  return bound;
}

}  // namespace weft
