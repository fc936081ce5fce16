// The gradient pass's entry points (function, mode names, registered pass) and
// the helpers its two modes share.
#include "gradient_common.h"

#include <string>

#include "weft/gradient.h"
#include "weft/passes.h"

namespace weft {

namespace gradient_detail {

Function first_order_gradient(const Function& fn);
Function higher_order_gradient(const Function& fn, const IRModule& mod);

Expr typed(Expr e, const Type& t) {
  e->set_checked_type(t);
  return e;
}

Var typed_var(const std::string& name, const Type& t) {
  Var v = var(name, t);
  v->set_checked_type(t);
  return v;
}

Var LetList::push(Expr value, const Type& t, const std::string& name) {
  Var v = typed_var(name, t);
  bindings_.emplace_back(v, std::move(value));
  return v;
}

void LetList::bind(const Var& var, Expr value) { bindings_.emplace_back(var, std::move(value)); }

Expr LetList::wrap(Expr body) const {
  for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it) body = let(it->first, it->second, body);
  return body;
}

Expr add(const Expr& a, const Expr& b) { return call("add", {a, b}); }
Expr zeros_like(const Expr& e) { return call("zeros_like", {e}); }
Expr ones_like(const Expr& e) { return call("ones_like", {e}); }

bool carries_gradient(const Type& t) {
  if (auto tt = downcast<TensorTypeNode>(t)) return tt->dtype.is_float();
  if (auto tup = downcast<TupleTypeNode>(t)) {
    for (const Type& f : tup->fields)
      if (carries_gradient(f)) return true;
  }
  return false;
}

const Gradient& op_gradient(const OpDef& def) {
  if (!def.gradient) {
    throw Error("the gradient pass needs the gradient of this op, and it has none registered").op(def.name);
  }
  return def.gradient;
}

std::vector<Expr> call_gradient(const OpDef& def, const Call& call, const Expr& output_grad) {
  std::vector<Expr> grads = op_gradient(def)(call, output_grad);
  if (grads.size() != call->args.size()) {
    throw Error("its gradient returned " + std::to_string(grads.size()) + " expressions for " +
                std::to_string(call->args.size()) + " arguments")
        .op(def.name);
  }
  return grads;
}

namespace {

bool is_tensor_tree(const Type& t) {
  if (downcast<TensorTypeNode>(t)) return true;
  if (auto tup = downcast<TupleTypeNode>(t)) {
    for (const Type& f : tup->fields)
      if (!is_tensor_tree(f)) return false;
    return true;
  }
  return false;
}

}  // namespace

TypedInput typed_function(const Function& fn, const IRModule& mod, std::string_view mode) {
  IRModule m = mod;
  GlobalVar target = m.add("__gradient_input", fn);
  IRModule typed_mod = infer_type(m);
  Function typed = typed_mod.lookup(target->name);
  for (const Var& p : typed->params) {
    if (!downcast<TensorTypeNode>(p->checked_type())) {
      throw Error("parameter %" + p->name_hint + " has type " + type_to_text(p->checked_type()) +
                  "; the gradient pass differentiates with respect to tensor parameters only")
          .note(std::string("in ") + std::string(mode) + " mode");
    }
  }
  if (!is_tensor_tree(typed->body->checked_type())) {
    throw Error("the function returns " + type_to_text(typed->body->checked_type()) +
                "; the gradient pass needs a tensor or a tuple of tensors to seed")
        .note(std::string("in ") + std::string(mode) + " mode");
  }
  return {typed, typed_mod};
}

}  // namespace gradient_detail

std::string_view gradient_mode_name(GradientMode mode) {
  return mode == GradientMode::kFirstOrder ? "first_order" : "higher_order";
}

GradientMode parse_gradient_mode(std::string_view name) {
  if (name == "first_order") return GradientMode::kFirstOrder;
  if (name == "higher_order") return GradientMode::kHigherOrder;
  throw Error("unknown gradient mode '" + std::string(name) + "'").expected("first_order or higher_order");
}

Function gradient(const Function& fn, const IRModule& mod, GradientMode mode) {
  gradient_detail::TypedInput typed = gradient_detail::typed_function(fn, mod, gradient_mode_name(mode));
  return mode == GradientMode::kFirstOrder ? gradient_detail::first_order_gradient(typed.fn)
                                           : gradient_detail::higher_order_gradient(typed.fn, typed.mod);
}

namespace {
// Registered when the core loads, so a context can set it before the pass exists.
const bool kModeConfigRegistered = [] {
  PassContext::register_config("weft.gradient.mode", AttrType::kString, AttrValue("higher_order"));
  return true;
}();
}  // namespace

Pass GradientPass() {
  return create_module_pass({"Gradient", 0, {}}, [](IRModule mod, const PassContext& ctx) {
    GradientMode mode = parse_gradient_mode(ctx.get_config("weft.gradient.mode").as_string());
    IRModule out = mod;
    out.add(mod.global_var("main"), gradient(mod.main(), mod, mode));
    return out;
  });
}

}  // namespace weft
