// Higher-order reverse mode without mutable references.
//
// Relay's higher-order mode pairs each tensor with a reference cell that the
// backward pass accumulates into. weft's IR has no references, so each tensor
// of type T becomes a pair (value: T, backpropagator: fn(T) -> G), where G is
// the tuple of the root function's parameter types: a backpropagator takes the
// value's gradient straight to the gradients of the parameters. Tuples map
// field by field, functions to functions on the mapped types, so closures,
// calls of them, `if` and `let` carry over unchanged; only op calls change:
// each becomes a small closure that computes the op on the values and builds
// the result's backpropagator from the op's registered gradient.
//
// The price of having no accumulator: a value with several uses has its
// backpropagator run once per path to the output, not once in all (see
// docs/autodiff.md). The transformation itself is iterative (ExprFunctor).
#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gradient_common.h"
#include "weft/functor.h"
#include "weft/gradient.h"

namespace weft::gradient_detail {

namespace {

class HigherOrderAD : public ExprFunctor<Expr> {
 public:
  /// `mod` holds the global functions the root calls; their lifted forms are
  /// bound in `top`, the root's let list.
  HigherOrderAD(TupleType grads_type, Var zero_grads, const IRModule& mod, LetList& top)
      : grads_type_(std::move(grads_type)), zero_(std::move(zero_grads)), mod_(mod), top_(top) {}

  /// Uses `dual` wherever the root parameter `p` appears.
  void bind_param(const Var& p, const Expr& dual) {
    keep_alive_.push_back(p);
    memo_.emplace(p.get(), dual);
  }

  /// T -> (T, fn(T) -> G) for tensors; tuples and functions map through.
  Type lift(const Type& t) const {
    if (downcast<TensorTypeNode>(t)) return tuple_type({t, func_type({t}, grads_type_)});
    if (auto tup = downcast<TupleTypeNode>(t)) {
      std::vector<Type> fields;
      for (const Type& f : tup->fields) fields.push_back(lift(f));
      return tuple_type(std::move(fields));
    }
    if (auto fn = downcast<FuncTypeNode>(t)) {
      std::vector<Type> params;
      for (const Type& p : fn->params) params.push_back(lift(p));
      return func_type(std::move(params), lift(fn->ret));
    }
    throw Error("higher_order gradient cannot differentiate a value of type " + type_to_text(t));
  }

  /// The plain value inside a lifted one of original type t.
  Expr primal(const Expr& lifted, const Type& t) const {
    if (auto tup = downcast<TupleTypeNode>(t)) {
      std::vector<Expr> fields;
      for (size_t i = 0; i < tup->fields.size(); ++i)
        fields.push_back(primal(get_item(lifted, static_cast<int>(i)), tup->fields[i]));
      return typed(tuple(std::move(fields)), t);
    }
    if (downcast<FuncTypeNode>(t)) throw Error("higher_order gradient: a function is not a differentiable value");
    return typed(get_item(lifted, 0), t);
  }

  /// The parameters' gradients (type G) given gradient `grad` of lifted value
  /// `lifted` (original type t): runs its backpropagators.
  Expr backprop(LetList& ll, const Expr& lifted, const Type& t, const Expr& grad) const {
    Var g = ll.push(grad, t, "g");
    if (auto tup = downcast<TupleTypeNode>(t)) {
      Expr total = zero_;
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        if (!carries_gradient(tup->fields[i])) continue;
        Expr part = backprop(ll, get_item(lifted, static_cast<int>(i)), tup->fields[i],
                             typed(get_item(g, static_cast<int>(i)), tup->fields[i]));
        total = total.get() == zero_.get() ? part : add_grads(ll, total, part);
      }
      return total;
    }
    return ll.push(call_function(get_item(lifted, 1), {g}), grads_type_, "grads");
  }

  /// a + b, parameter by parameter.
  Expr add_grads(LetList& ll, const Expr& a, const Expr& b) const {
    Var va = ll.push(a, grads_type_, "grads"), vb = ll.push(b, grads_type_, "grads");
    std::vector<Expr> sums;
    for (size_t i = 0; i < grads_type_->fields.size(); ++i) {
      sums.push_back(add(get_item(va, static_cast<int>(i)), get_item(vb, static_cast<int>(i))));
    }
    return ll.push(tuple(std::move(sums)), grads_type_, "grads");
  }

  /// fn(%d: t) -> G { body(%d) }.
  template <typename Body>
  Expr backpropagator(const Type& t, Body&& body) const {
    Var d = typed_var("d", t);
    LetList ll;
    Expr result = body(ll, Expr(d));
    return function({d}, ll.wrap(result), grads_type_);
  }

  /// The lifted form of `value` (type t), whose gradient goes to G through
  /// `to_grads(ll, gradient of the whole value)`.
  using ToGrads = std::function<Expr(LetList&, const Expr&)>;
  Expr lifted(const Expr& value, const Type& t, const ToGrads& to_grads) const {
    if (auto tup = downcast<TupleTypeNode>(t)) {
      std::vector<Expr> fields;
      for (size_t j = 0; j < tup->fields.size(); ++j) {
        Expr field = typed(get_item(value, static_cast<int>(j)), tup->fields[j]);
        // A field's gradient is the whole value's with zeros in the other fields.
        fields.push_back(lifted(field, tup->fields[j], [&, j](LetList& ll, const Expr& g) {
          std::vector<Expr> whole;
          for (size_t k = 0; k < tup->fields.size(); ++k) {
            whole.push_back(k == j ? g : zeros_like(typed(get_item(value, static_cast<int>(k)), tup->fields[k])));
          }
          return to_grads(ll, typed(tuple(std::move(whole)), t));
        }));
      }
      return tuple(std::move(fields));
    }
    return tuple({value, backpropagator(t, to_grads)});
  }

  Expr constant_gradient(LetList&, const Expr&) const { return zero_; }

 protected:
  Expr visit_var(const Var& v) override { return typed_var(v->name_hint, lift(v->checked_type())); }
  // As Relay's ReverseAD, a global function is differentiated once per
  // gradient (its backpropagators yield this root's parameter gradients). The
  // lifted function is let-bound in the root before its first use, so it may
  // call itself; two globals calling each other cannot be ordered that way.
  Expr visit_global_var(const GlobalVar& g) override {
    if (auto it = lifted_globals_.find(g->name); it != lifted_globals_.end()) {
      auto lifting = std::find(lifting_.begin(), lifting_.end(), g->name);
      if (lifting != lifting_.end() && g->name != lifting_.back()) {
        std::string cycle;
        for (auto k = lifting; k != lifting_.end(); ++k) cycle += "@" + *k + " -> ";
        throw Error("higher_order gradient does not support mutually recursive global functions (" + cycle + "@" +
                    g->name + ")")
            .note("a function that calls itself is fine");
      }
      return it->second;
    }
    Var lifted = typed_var(g->name + "_grad", lift(g->checked_type()));
    lifted_globals_.emplace(g->name, lifted);
    lifting_.push_back(g->name);
    Expr fn = visit(mod_.lookup(g->name));
    lifting_.pop_back();
    top_.bind(lifted, fn);
    return lifted;
  }
  Expr visit_constant(const Constant& c) override {
    return lifted(c, c->checked_type(), [this](LetList& ll, const Expr& g) { return constant_gradient(ll, g); });
  }
  Expr visit_op(const Op& o) override { return o; }  // only ever a callee, handled in visit_call
  Expr visit_call(const Call& c) override {
    std::vector<Expr> args;
    for (const Expr& a : c->args) args.push_back(visit(a));
    if (c->op->kind != ExprKind::kOp) return call_function(visit(c->op), std::move(args));
    return call_function(op_closure(c), std::move(args));
  }
  Expr visit_function(const Function& f) override {
    std::vector<Var> params;
    for (const Var& p : f->params) params.push_back(downcast<VarNode>(visit(p)));
    return function(std::move(params), visit(f->body), f->ret_type ? lift(f->ret_type) : Type(), f->attrs);
  }
  Expr visit_tuple(const Tuple& t) override {
    std::vector<Expr> fields;
    for (const Expr& f : t->fields) fields.push_back(visit(f));
    return tuple(std::move(fields));
  }
  Expr visit_tuple_get_item(const TupleGetItem& t) override { return get_item(visit(t->tuple), t->index); }
  Expr visit_let(const Let& l) override {
    return let(downcast<VarNode>(visit(l->var)), visit(l->value), visit(l->body));
  }
  Expr visit_if(const If& i) override {
    return if_then_else(primal(visit(i->cond), i->cond->checked_type()), visit(i->then_branch), visit(i->else_branch));
  }

 private:
  /// fn(%a1, ..., %an) { op on the values; (result, its backpropagator) },
  /// taking the lifted arguments of call `c`.
  Expr op_closure(const Call& c) const {
    const OpDef& def = *downcast<OpNode>(c->op)->def;
    const Type& out_type = c->checked_type();
    bool differentiable = carries_gradient(out_type);
    if (differentiable) op_gradient(def);  // fail early, naming the op

    std::vector<Var> params;
    std::vector<Expr> values;
    LetList ll;
    for (const Expr& a : c->args) {
      const Type& t = a->checked_type();
      params.push_back(typed_var("a", lift(t)));
      values.push_back(ll.push(primal(params.back(), t), t, "x"));
    }
    Call forward = downcast<CallNode>(typed(make_ref<CallNode>(c->op, values, c->attrs), out_type));
    Var result = ll.push(forward, out_type, "y");
    if (!differentiable) {
      return function(params, ll.wrap(lifted(result, out_type,
                                             [this](LetList& l, const Expr& g) { return constant_gradient(l, g); })));
    }
    auto to_grads = [this, &def, forward, params, out_type](LetList& l, const Expr& grad) -> Expr {
      Var g = l.push(grad, out_type, "g");
      std::vector<Expr> arg_grads = call_gradient(def, forward, g);
      Expr total = zero_;
      for (size_t i = 0; i < arg_grads.size(); ++i) {
        const Type& t = forward->args[i]->checked_type();
        if (!carries_gradient(t)) continue;
        Expr part = backprop(l, params[i], t, arg_grads[i]);
        total = total.get() == zero_.get() ? part : add_grads(l, total, part);
      }
      return total;
    };
    return function(params, ll.wrap(lifted(result, out_type, to_grads)));
  }

  TupleType grads_type_;
  Var zero_;
  const IRModule& mod_;
  LetList& top_;
  std::unordered_map<std::string, Var> lifted_globals_;
  std::vector<std::string> lifting_;  // the globals being lifted, outermost first
};

/// ones_like for every tensor in a value of type t.
Expr seed(LetList& ll, const Expr& value, const Type& t) {
  if (auto tup = downcast<TupleTypeNode>(t)) {
    std::vector<Expr> fields;
    for (size_t i = 0; i < tup->fields.size(); ++i)
      fields.push_back(seed(ll, typed(get_item(value, static_cast<int>(i)), tup->fields[i]), tup->fields[i]));
    return typed(tuple(std::move(fields)), t);
  }
  return ll.push(ones_like(value), t, "seed");
}

}  // namespace

Function higher_order_gradient(const Function& fn, const IRModule& mod) {
  std::vector<Type> param_types;
  std::vector<Expr> zeros;
  for (const Var& p : fn->params) {
    param_types.push_back(p->checked_type());
    zeros.push_back(zeros_like(p));
  }
  TupleType grads_type = tuple_type(param_types);
  LetList top;
  Var zero = top.push(tuple(zeros), grads_type, "zero_grads");
  HigherOrderAD ad(grads_type, zero, mod, top);

  // A parameter's backpropagator puts its gradient in its own slot.
  for (size_t k = 0; k < fn->params.size(); ++k) {
    const Var& p = fn->params[k];
    Expr dual = tuple({p, ad.backpropagator(p->checked_type(), [&](LetList&, const Expr& d) {
                         std::vector<Expr> slots;
                         for (size_t j = 0; j < fn->params.size(); ++j)
                           slots.push_back(j == k ? d : get_item(zero, static_cast<int>(j)));
                         return tuple(std::move(slots));
                       })});
    ad.bind_param(p, top.push(dual, ad.lift(p->checked_type()), p->name_hint + "_ad"));
  }

  const Type& out_type = fn->body->checked_type();
  Var out = top.push(ad.visit(fn->body), ad.lift(out_type), "out");
  Var value = top.push(ad.primal(out, out_type), out_type, "output");
  Expr grads = ad.backprop(top, out, out_type, seed(top, value, out_type));
  return function(fn->params, top.wrap(tuple({value, grads})), nullptr, fn->attrs);
}

}  // namespace weft::gradient_detail
