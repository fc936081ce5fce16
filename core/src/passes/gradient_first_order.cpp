// First-order reverse mode: the forward graph is re-emitted as a let list (one
// binding per call, tuple and projection, in evaluation order), then one sweep
// over it backwards gives each binding's adjoint, accumulated with `add` where a
// value has several uses. Everything is iterative: a 10,000-op chain is fine.
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gradient_common.h"
#include "weft/functor.h"
#include "weft/gradient.h"

namespace weft::gradient_detail {

namespace {

/// The first construct first-order mode cannot differentiate, as an error.
void reject_higher_order(const Function& fn) {
  post_order_visit(fn->body, [&](const Expr& e) {
    std::string what;
    if (e->kind == ExprKind::kFunction)
      what = "closures (a function inside the function)";
    else if (e->kind == ExprKind::kIf)
      what = "if";
    else if (auto g = downcast<GlobalVarNode>(e))
      what = "references to global functions (@" + g->name + ")";
    else if (auto c = downcast<CallNode>(e); c && c->op->kind != ExprKind::kOp)
      what = "calls of functions or closures";
    if (!what.empty()) {
      throw Error("first_order gradient does not support " + what)
          .note("higher_order mode handles closures, calls of functions and if");
    }
  });
}

/// The gradient accumulated so far for one value: a sum for a tensor, one
/// entry per field for a tuple. Empty until something flows into it.
struct Adjoint {
  Type type;
  std::optional<Expr> sum;
  std::vector<Adjoint> fields;

  explicit Adjoint(Type t) : type(std::move(t)) {
    if (auto tup = downcast<TupleTypeNode>(type))
      for (const Type& f : tup->fields) fields.emplace_back(f);
  }
  bool any() const {
    if (sum) return true;
    for (const Adjoint& f : fields)
      if (f.any()) return true;
    return false;
  }
};

/// Re-emits the forward graph as bindings; each original node maps to an
/// atom: a parameter, a constant, or the variable bound to its value.
class ForwardEmitter : public ExprFunctor<Expr> {
 public:
  ForwardEmitter(LetList& bindings, std::vector<std::pair<Var, Expr>>& tape,
                 const std::unordered_map<const VarNode*, Expr>& let_values)
      : bindings_(bindings), tape_(tape), let_values_(let_values) {}

 protected:
  Expr visit_var(const Var& v) override {
    // A let-bound variable is another name for its value's atom.
    if (auto it = let_values_.find(v.get()); it != let_values_.end()) return visit(it->second);
    return v;
  }
  Expr visit_global_var(const GlobalVar& g) override { return g; }
  Expr visit_constant(const Constant& c) override { return c; }
  Expr visit_op(const Op& o) override { return o; }
  Expr visit_call(const Call& c) override {
    const OpDef& def = *downcast<OpNode>(c->op)->def;
    if (carries_gradient(c->checked_type())) op_gradient(def);  // fail early, naming the op
    std::vector<Expr> args;
    for (const Expr& a : c->args) args.push_back(visit(a));
    return emit(make_ref<CallNode>(c->op, std::move(args), c->attrs), c->checked_type());
  }
  Expr visit_function(const Function& f) override { return f; }  // rejected before emission
  Expr visit_tuple(const Tuple& t) override {
    std::vector<Expr> fields;
    for (const Expr& f : t->fields) fields.push_back(visit(f));
    return emit(tuple(std::move(fields)), t->checked_type());
  }
  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    return emit(get_item(visit(t->tuple), t->index), t->checked_type());
  }
  Expr visit_let(const Let& l) override { return visit(l->body); }
  Expr visit_if(const If& i) override { return i; }  // rejected before emission

 private:
  Expr emit(Expr value, const Type& t) {
    typed(value, t);
    Var v = bindings_.push(value, t);
    tape_.emplace_back(v, value);
    return v;
  }
  LetList& bindings_;
  std::vector<std::pair<Var, Expr>>& tape_;
  const std::unordered_map<const VarNode*, Expr>& let_values_;
};

class ReverseSweep {
 public:
  explicit ReverseSweep(LetList& bindings) : bindings_(bindings) {}

  Adjoint& adjoint_of(const Expr& atom) {
    auto it = adjoints_.find(atom.get());
    if (it == adjoints_.end()) it = adjoints_.emplace(atom.get(), Adjoint(atom->checked_type())).first;
    return it->second;
  }

  /// Adds `contribution` (an expression of a's type) into `a`.
  void accumulate(Adjoint& a, const Expr& contribution) {
    if (!a.fields.empty() || downcast<TupleTypeNode>(a.type)) {
      Expr whole = contribution;
      auto literal = downcast<TupleNode>(contribution);
      if (!literal) whole = bindings_.push(contribution, a.type, "grad");
      for (size_t i = 0; i < a.fields.size(); ++i) {
        Expr field = literal ? literal->fields[i] : typed(get_item(whole, static_cast<int>(i)), a.fields[i].type);
        accumulate(a.fields[i], field);
      }
      return;
    }
    a.sum = a.sum ? bindings_.push(add(*a.sum, contribution), a.type, "grad") : contribution;
  }

  /// The adjoint as one typed expression, zeros where nothing flowed in.
  Expr materialize(Adjoint& a, const Expr& primal) {
    if (auto tup = downcast<TupleTypeNode>(a.type)) {
      std::vector<Expr> fields;
      for (size_t i = 0; i < a.fields.size(); ++i) {
        fields.push_back(materialize(a.fields[i], typed(get_item(primal, static_cast<int>(i)), a.fields[i].type)));
      }
      return typed(tuple(std::move(fields)), a.type);
    }
    a.sum = bindings_.push(a.sum ? *a.sum : zeros_like(primal), a.type, "grad");
    return *a.sum;
  }

  /// Propagates each binding's adjoint to the atoms it was computed from.
  void run(const std::vector<std::pair<Var, Expr>>& tape) {
    for (auto it = tape.rbegin(); it != tape.rend(); ++it) {
      const auto& [v, value] = *it;
      Adjoint& out = adjoint_of(v);
      if (!out.any() || !carries_gradient(out.type)) continue;
      switch (value->kind) {
        case ExprKind::kCall: {
          Call c = downcast<CallNode>(value);
          std::vector<Expr> grads = call_gradient(*downcast<OpNode>(c->op)->def, c, materialize(out, v));
          for (size_t i = 0; i < grads.size(); ++i) flow(c->args[i], grads[i]);
          break;
        }
        case ExprKind::kTuple: {
          const auto& fields = downcast<TupleNode>(value)->fields;
          for (size_t i = 0; i < fields.size(); ++i) {
            if (out.fields[i].any())
              flow(fields[i], materialize(out.fields[i], typed(get_item(v, static_cast<int>(i)), out.fields[i].type)));
          }
          break;
        }
        case ExprKind::kTupleGetItem: {
          auto item = downcast<TupleGetItemNode>(value);
          if (!is_atom_with_adjoint(item->tuple)) break;
          accumulate(adjoint_of(item->tuple).fields.at(item->index), materialize(out, v));
          break;
        }
        default:
          throw InternalError(__FILE__, __LINE__, "unexpected binding in the first-order tape");
      }
    }
  }

  void flow(const Expr& atom, const Expr& grad) {
    if (is_atom_with_adjoint(atom)) accumulate(adjoint_of(atom), grad);
  }

 private:
  // Constants take no gradient.
  static bool is_atom_with_adjoint(const Expr& atom) { return atom->kind == ExprKind::kVar; }

  LetList& bindings_;
  std::unordered_map<const ExprNode*, Adjoint> adjoints_;
};

/// ones_like for every tensor in a value of type t.
Expr seed(const Expr& primal, const Type& t) {
  if (auto tup = downcast<TupleTypeNode>(t)) {
    std::vector<Expr> fields;
    for (size_t i = 0; i < tup->fields.size(); ++i)
      fields.push_back(seed(typed(get_item(primal, static_cast<int>(i)), tup->fields[i]), tup->fields[i]));
    return typed(tuple(std::move(fields)), t);
  }
  return typed(ones_like(primal), t);
}

}  // namespace

Function first_order_gradient(const Function& fn) {
  reject_higher_order(fn);
  std::unordered_map<const VarNode*, Expr> let_values;
  post_order_visit(fn->body, [&](const Expr& e) {
    if (auto l = downcast<LetNode>(e)) let_values.emplace(l->var.get(), l->value);
  });

  LetList bindings;
  std::vector<std::pair<Var, Expr>> tape;
  ForwardEmitter forward(bindings, tape, let_values);
  Expr output = forward.visit(fn->body);
  const Type& out_type = fn->body->checked_type();

  ReverseSweep sweep(bindings);
  sweep.flow(output, seed(output, out_type));
  sweep.run(tape);

  std::vector<Expr> grads;
  for (const Var& p : fn->params) grads.push_back(sweep.materialize(sweep.adjoint_of(p), p));
  Expr body = bindings.wrap(tuple({output, tuple(std::move(grads))}));
  return function(fn->params, body, nullptr, fn->attrs);
}

}  // namespace weft::gradient_detail
