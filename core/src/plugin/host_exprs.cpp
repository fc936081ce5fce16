// Host functions of plugin.h that build and inspect expressions and modules.
#include <memory>

#include "host_tables.h"
#include "plugin_requirements.h"
#include "weft/module.h"
#include "weft/op.h"
#include "weft/passes.h"

namespace weft::plugin_host {

namespace {

std::vector<Expr> exprs_of(weft_expr_t* const* handles, size_t n) {
  if (n && !handles) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "expression array is NULL"};
  std::vector<Expr> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(expr_of(handles[i]));
  return out;
}

Var var_of(weft_expr_t* h) { return from_handle<VarNode>(h, "a Var"); }

void set_expr(weft_expr_t** out, Expr e) { *out_param(out, "out_expr") = new_handle<weft_expr_t>(std::move(e)); }

void check_index(size_t i, size_t n, const char* what) {
  if (i >= n) {
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                      std::string(what) + " " + std::to_string(i) + " out of range (size " + std::to_string(n) + ")"};
  }
}

// ---- Builders ---------------------------------------------------------------

weft_status_t expr_var(const char* name, weft_type_t* type, weft_expr_t** out) {
  return guard([&] { set_expr(out, var(require_string(name, "name"), type_of(type, true))); });
}
weft_status_t expr_global_var(const char* name, weft_expr_t** out) {
  return guard([&] { set_expr(out, global_var(require_string(name, "name"))); });
}
weft_status_t expr_constant(const DLTensor* data, weft_expr_t** out) {
  return guard([&] {
    if (!data) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "tensor is NULL"};
    // The plugin's memory is only borrowed for the call: copy it.
    Tensor view = Tensor::from_dlpack(*data, nullptr);
    set_expr(out, constant(view.clone()));
  });
}
weft_status_t expr_op(const char* name, weft_expr_t** out) {
  return guard([&] {
    const OpDef* def = OpRegistry::global().find(require_string(name, "op name"));
    if (!def) throw StatusError{WEFT_STATUS_NOT_FOUND, std::string("unknown op '") + name + "'"};
    check_op_use(*def);
    set_expr(out, def->expr());
  });
}
weft_status_t expr_call_op(const char* op_name, weft_expr_t* const* args, size_t n, weft_attrs_t* attrs,
                           weft_expr_t** out) {
  return guard([&] {
    const OpDef* def = OpRegistry::global().find(require_string(op_name, "op name"));
    if (!def) throw StatusError{WEFT_STATUS_NOT_FOUND, std::string("unknown op '") + op_name + "'"};
    check_op_use(*def);
    set_expr(out, call(def->expr(), exprs_of(args, n), attrs ? attrs_of(attrs) : Attrs()));
  });
}
weft_status_t expr_call_function(weft_expr_t* callee, weft_expr_t* const* args, size_t n, weft_expr_t** out) {
  return guard([&] { set_expr(out, call_function(expr_of(callee), exprs_of(args, n))); });
}
weft_status_t expr_function(weft_expr_t* const* params, size_t n, weft_expr_t* body, weft_type_t* ret,
                            weft_attrs_t* attrs, weft_expr_t** out) {
  return guard([&] {
    if (n && !params) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "params are NULL"};
    std::vector<Var> vars;
    for (size_t i = 0; i < n; ++i) vars.push_back(var_of(params[i]));
    set_expr(out, function(std::move(vars), expr_of(body), type_of(ret, true), attrs ? attrs_of(attrs) : Attrs()));
  });
}
weft_status_t expr_tuple(weft_expr_t* const* fields, size_t n, weft_expr_t** out) {
  return guard([&] { set_expr(out, tuple(exprs_of(fields, n))); });
}
weft_status_t expr_free_vars(weft_expr_t* e, weft_expr_t** out) {
  return guard([&] {
    std::vector<Expr> vars;
    for (Var& v : free_vars(expr_of(e))) vars.push_back(std::move(v));
    set_expr(out, tuple(std::move(vars)));
  });
}
weft_status_t expr_tuple_get_item(weft_expr_t* t, int index, weft_expr_t** out) {
  return guard([&] { set_expr(out, get_item(expr_of(t), index)); });
}
weft_status_t expr_let(weft_expr_t* v, weft_expr_t* value, weft_expr_t* body, weft_expr_t** out) {
  return guard([&] { set_expr(out, let(var_of(v), expr_of(value), expr_of(body))); });
}
weft_status_t expr_if(weft_expr_t* c, weft_expr_t* t, weft_expr_t* e, weft_expr_t** out) {
  return guard([&] { set_expr(out, if_then_else(expr_of(c), expr_of(t), expr_of(e))); });
}

// ---- Inspection ---------------------------------------------------------------

weft_expr_kind_t expr_kind(weft_expr_t* e) {
  auto* node = dynamic_cast<const ExprNode*>(to_object(e));
  // A non-expression handle is a plugin bug; a Var is the least harmful answer.
  return node ? static_cast<weft_expr_kind_t>(node->kind) : WEFT_EXPR_VAR;
}

weft_status_t expr_checked_type(weft_expr_t* e, weft_type_t** out) {
  return guard([&] {
    Expr expr = expr_of(e);
    if (!expr->has_type()) {
      throw StatusError{WEFT_STATUS_NOT_FOUND, "the expression has no type yet (run type inference first)"};
    }
    *out_param(out, "out_type") = new_handle<weft_type_t>(expr->checked_type());
  });
}

weft_status_t expr_name(weft_expr_t* e, const char** out) {
  return guard([&] {
    Expr expr = expr_of(e);
    const std::string* name = nullptr;
    if (auto* v = expr.as<VarNode>()) name = &v->name_hint;
    else if (auto* g = expr.as<GlobalVarNode>()) name = &g->name;
    else if (auto* o = expr.as<OpNode>()) name = &o->name();
    if (!name) throw StatusError{WEFT_STATUS_TYPE_MISMATCH, "only a Var, GlobalVar or Op has a name"};
    *out_param(out, "out_name") = name->c_str();
  });
}

weft_status_t expr_var_type(weft_expr_t* e, weft_type_t** out) {
  return guard([&] {
    Var v = var_of(e);
    *out_param(out, "out_type") = v->type_annotation ? new_handle<weft_type_t>(v->type_annotation) : nullptr;
  });
}

weft_status_t expr_constant_data(weft_expr_t* e, DLTensor* out) {
  return guard([&] { *out_param(out, "out_view") = from_handle<ConstantNode>(e, "a Constant")->data.dlpack_view(); });
}

Call call_of(weft_expr_t* e) { return from_handle<CallNode>(e, "a Call"); }

weft_status_t expr_call_callee(weft_expr_t* e, weft_expr_t** out) {
  return guard([&] { set_expr(out, call_of(e)->op); });
}
weft_status_t expr_call_num_args(weft_expr_t* e, size_t* out) {
  return guard([&] { *out_param(out, "out_count") = call_of(e)->args.size(); });
}
weft_status_t expr_call_arg(weft_expr_t* e, size_t i, weft_expr_t** out) {
  return guard([&] {
    Call c = call_of(e);
    check_index(i, c->args.size(), "argument");
    set_expr(out, c->args[i]);
  });
}
weft_status_t expr_call_attrs(weft_expr_t* e, weft_attrs_t** out) {
  return guard([&] {
    Call c = call_of(e);
    *out_param(out, "out_attrs") = new_handle<weft_attrs_t>(c->attrs ? c->attrs : empty_attrs());
  });
}

Function function_of(weft_expr_t* e) { return from_handle<FunctionNode>(e, "a Function"); }

weft_status_t expr_function_num_params(weft_expr_t* e, size_t* out) {
  return guard([&] { *out_param(out, "out_count") = function_of(e)->params.size(); });
}
weft_status_t expr_function_param(weft_expr_t* e, size_t i, weft_expr_t** out) {
  return guard([&] {
    Function f = function_of(e);
    check_index(i, f->params.size(), "parameter");
    set_expr(out, f->params[i]);
  });
}
weft_status_t expr_function_body(weft_expr_t* e, weft_expr_t** out) {
  return guard([&] { set_expr(out, function_of(e)->body); });
}
weft_status_t expr_function_ret_type(weft_expr_t* e, weft_type_t** out) {
  return guard([&] {
    Function f = function_of(e);
    *out_param(out, "out_type") = f->ret_type ? new_handle<weft_type_t>(f->ret_type) : nullptr;
  });
}
weft_status_t expr_function_attrs(weft_expr_t* e, weft_attrs_t** out) {
  return guard([&] {
    Function f = function_of(e);
    *out_param(out, "out_attrs") = new_handle<weft_attrs_t>(f->attrs ? f->attrs : empty_attrs());
  });
}

weft_status_t expr_tuple_size(weft_expr_t* e, size_t* out) {
  return guard([&] { *out_param(out, "out_count") = from_handle<TupleNode>(e, "a Tuple")->fields.size(); });
}
weft_status_t expr_tuple_field(weft_expr_t* e, size_t i, weft_expr_t** out) {
  return guard([&] {
    auto t = from_handle<TupleNode>(e, "a Tuple");
    check_index(i, t->fields.size(), "field");
    set_expr(out, t->fields[i]);
  });
}
weft_status_t expr_tuple_get_item_info(weft_expr_t* e, weft_expr_t** out_tuple, int* out_index) {
  return guard([&] {
    auto g = from_handle<TupleGetItemNode>(e, "a TupleGetItem");
    if (out_index) *out_index = g->index;
    if (out_tuple) *out_tuple = new_handle<weft_expr_t>(g->tuple);
  });
}
weft_status_t expr_let_info(weft_expr_t* e, weft_expr_t** out_var, weft_expr_t** out_value, weft_expr_t** out_body) {
  return guard([&] {
    auto l = from_handle<LetNode>(e, "a Let");
    if (out_var) *out_var = new_handle<weft_expr_t>(Expr(l->var));
    if (out_value) *out_value = new_handle<weft_expr_t>(l->value);
    if (out_body) *out_body = new_handle<weft_expr_t>(l->body);
  });
}
weft_status_t expr_if_info(weft_expr_t* e, weft_expr_t** out_cond, weft_expr_t** out_then, weft_expr_t** out_else) {
  return guard([&] {
    auto i = from_handle<IfNode>(e, "an If");
    if (out_cond) *out_cond = new_handle<weft_expr_t>(i->cond);
    if (out_then) *out_then = new_handle<weft_expr_t>(i->then_branch);
    if (out_else) *out_else = new_handle<weft_expr_t>(i->else_branch);
  });
}

// ---- Modules --------------------------------------------------------------------

weft_status_t module_create(const char* const* names, weft_expr_t* const* fns, size_t n, weft_module_t** out) {
  return guard([&] {
    if (n && (!names || !fns)) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "names or functions are NULL"};
    IRModule mod;
    for (size_t i = 0; i < n; ++i) {
      if (mod.contains(require_string(names[i], "function name"))) {
        throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string("function '") + names[i] + "' given twice"};
      }
      mod.add(names[i], function_of(fns[i]));
    }
    *out_param(out, "out_module") = new_module_handle(std::move(mod));
  });
}

size_t module_size(weft_module_t* m) {
  auto* box = dynamic_cast<const ModuleBox*>(to_object(m));
  return box ? box->module.functions().size() : 0;
}

weft_status_t module_entry(weft_module_t* m, size_t i, const char** out_name, weft_expr_t** out_fn) {
  return guard([&] {
    auto box = from_handle<ModuleBox>(m, "a module");
    const auto& defs = box->module.functions();
    check_index(i, defs.size(), "function");
    if (out_name) *out_name = defs[i].first->name.c_str();
    if (out_fn) *out_fn = new_handle<weft_expr_t>(Expr(defs[i].second));
  });
}

weft_status_t module_infer_type(weft_module_t* m, weft_module_t** out) {
  return guard([&] { *out_param(out, "out_module") = new_module_handle(infer_type(module_of(m))); });
}

weft_status_t module_run_pass(weft_module_t* m, const char* name, weft_module_t** out) {
  return guard([&] {
    if (!name) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "module_run_pass: name is NULL"};
    *out_param(out, "out_module") = new_module_handle(PassRegistry::global().create(name)(module_of(m)));
  });
}

}  // namespace

void fill_expr_api(weft_host_api_t& api) {
  api.expr_var = expr_var;
  api.expr_global_var = expr_global_var;
  api.expr_constant = expr_constant;
  api.expr_op = expr_op;
  api.expr_call_op = expr_call_op;
  api.expr_call_function = expr_call_function;
  api.expr_function = expr_function;
  api.expr_tuple = expr_tuple;
  api.expr_tuple_get_item = expr_tuple_get_item;
  api.expr_let = expr_let;
  api.expr_if = expr_if;
  api.expr_kind = expr_kind;
  api.expr_checked_type = expr_checked_type;
  api.expr_name = expr_name;
  api.expr_var_type = expr_var_type;
  api.expr_constant_data = expr_constant_data;
  api.expr_call_callee = expr_call_callee;
  api.expr_call_num_args = expr_call_num_args;
  api.expr_call_arg = expr_call_arg;
  api.expr_call_attrs = expr_call_attrs;
  api.expr_function_num_params = expr_function_num_params;
  api.expr_function_param = expr_function_param;
  api.expr_function_body = expr_function_body;
  api.expr_function_ret_type = expr_function_ret_type;
  api.expr_function_attrs = expr_function_attrs;
  api.expr_tuple_size = expr_tuple_size;
  api.expr_tuple_field = expr_tuple_field;
  api.expr_tuple_get_item_info = expr_tuple_get_item_info;
  api.expr_let_info = expr_let_info;
  api.expr_if_info = expr_if_info;
  api.module_create = module_create;
  api.module_size = module_size;
  api.module_entry = module_entry;
  api.module_infer_type = module_infer_type;
  api.expr_free_vars = expr_free_vars;
  api.module_run_pass = module_run_pass;
}

}  // namespace weft::plugin_host
