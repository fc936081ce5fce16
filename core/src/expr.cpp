// Expression builders: validate what they are given, then make the node.
#include "weft/expr.h"

#include "weft/op.h"

namespace weft {

const std::string& OpNode::name() const { return def->name; }

Var var(std::string name_hint, Type type_annotation) {
  return make_ref<VarNode>(std::move(name_hint), std::move(type_annotation));
}

GlobalVar global_var(std::string name) {
  if (name.empty()) throw Error("a global function needs a name");
  return make_ref<GlobalVarNode>(std::move(name));
}

Constant constant(Tensor data) {
  if (!data.defined()) throw Error("a constant needs a tensor").expected("a defined Tensor");
  return make_ref<ConstantNode>(std::move(data));
}

Op op(const std::string& name) { return OpRegistry::global().get(name).expr(); }

Call call(const Op& callee, std::vector<Expr> args, Attrs attrs, AttrDefaults defaults) {
  WEFT_ICHECK(callee.defined(), "call of a null op");
  const OpDef& def = *callee->def;
  if (!def.variadic && args.size() != def.inputs.size()) {
    std::string names;
    for (const auto& in : def.inputs) names += (names.empty() ? "" : ", ") + in.name;
    throw Error("takes " + std::to_string(def.inputs.size()) + " input" + (def.inputs.size() == 1 ? "" : "s") +
                " (" + names + "), got " + std::to_string(args.size()))
        .op(def.name);
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i]) throw Error("argument " + std::to_string(i) + " is null").op(def.name);
  Attrs normalized = def.attrs.normalize(def.name, attrs, defaults);
  return make_ref<CallNode>(callee, std::move(args), std::move(normalized));
}

Call call(const std::string& op_name, std::vector<Expr> args, std::vector<std::pair<std::string, AttrValue>> attrs) {
  return call(op(op_name), std::move(args), make_attrs(std::move(attrs)));
}

Call call_function(Expr callee, std::vector<Expr> args) {
  if (!callee) throw Error("call of a null function");
  if (callee->kind == ExprKind::kOp)
    throw Error("call_function used with op " + static_cast<const OpNode&>(*callee).name())
        .expected("call(op, args, attrs) for ops");
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i]) throw Error("argument " + std::to_string(i) + " of a function call is null");
  return make_ref<CallNode>(std::move(callee), std::move(args), empty_attrs());
}

Function function(std::vector<Var> params, Expr body, Type ret_type, Attrs attrs) {
  if (!body) throw Error("a function needs a body");
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i]) throw Error("function parameter " + std::to_string(i) + " is null");
  return make_ref<FunctionNode>(std::move(params), std::move(body), std::move(ret_type),
                                attrs ? std::move(attrs) : empty_attrs());
}

Tuple tuple(std::vector<Expr> fields) {
  for (size_t i = 0; i < fields.size(); ++i)
    if (!fields[i]) throw Error("tuple field " + std::to_string(i) + " is null");
  return make_ref<TupleNode>(std::move(fields));
}

TupleGetItem get_item(Expr tuple, int index) {
  if (!tuple) throw Error("tuple index of a null expression");
  if (index < 0) throw Error("tuple index " + std::to_string(index) + " is negative").expected("an index >= 0");
  return make_ref<TupleGetItemNode>(std::move(tuple), index);
}

Let let(Var var, Expr value, Expr body) {
  if (!var || !value || !body) throw Error("a let needs a variable, a value and a body");
  return make_ref<LetNode>(std::move(var), std::move(value), std::move(body));
}

If if_then_else(Expr cond, Expr then_branch, Expr else_branch) {
  if (!cond || !then_branch || !else_branch) throw Error("an if needs a condition and two branches");
  return make_ref<IfNode>(std::move(cond), std::move(then_branch), std::move(else_branch));
}

std::string_view expr_kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::kVar: return "var";
    case ExprKind::kGlobalVar: return "global var";
    case ExprKind::kConstant: return "constant";
    case ExprKind::kOp: return "op";
    case ExprKind::kCall: return "call";
    case ExprKind::kFunction: return "function";
    case ExprKind::kTuple: return "tuple";
    case ExprKind::kTupleGetItem: return "tuple get item";
    case ExprKind::kLet: return "let";
    case ExprKind::kIf: return "if";
  }
  return "?";
}

}  // namespace weft
