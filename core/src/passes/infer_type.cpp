// Relay-style type inference.
//
// One walk over the program (children first, iteratively) gives every
// expression a type term, possibly with holes. Ops contribute constraints: a
// call's relation runs once its argument types are complete, and a TupleGetItem
// resolves once its tuple's type is known to be a tuple. Everything else
// unifies on the spot. Constraints that cannot run yet wait on one hole and are
// woken when it gets bound, so the whole solve is linear in the program size.
// Then the resolved types are written to checked_type, and missing annotations
// are filled in as Relay's resolver does. A node's type, once set, never
// changes (nodes are shared between modules and threads): a node that already
// holds a different type is copied, with the nodes above it, as Relay's
// copy on write does.
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "snippet.h"
#include "type_solver.h"
#include "weft/error.h"
#include "weft/functor.h"
#include "weft/op.h"
#include "weft/passes.h"

namespace weft {

namespace {

using detail::expr_snippet;
using detail::UnifyFailure;

std::string types_text(const std::vector<Type>& types) {
  std::string out;
  for (const Type& t : types) out += (out.empty() ? "" : ", ") + type_to_text(t);
  return out;
}

Error located(Error err, const Expr& where) {
  err.in(expr_snippet(where));
  if (where->span && !err.loc().known()) err.at(*where->span);
  return err;
}

class Inferencer {
 public:
  explicit Inferencer(const IRModule* mod) : mod_(mod) {
    solver_.on_bind = [this](const IncompleteTypeNode* hole) {
      auto it = waiting_.find(hole);
      if (it == waiting_.end()) return;
      for (size_t c : it->second) queue_.push_back(c);
      waiting_.erase(it);
    };
    if (!mod_) return;
    // A global's type starts from its annotations, so calls may come before the
    // definition, and recursion works wherever the annotations fix the type.
    for (const auto& [gv, fn] : mod_->functions()) {
      std::vector<Type> params;
      for (const Var& p : fn->params) params.push_back(p->type_annotation ? p->type_annotation : incomplete_type());
      globals_[gv->name] = func_type(std::move(params), fn->ret_type ? fn->ret_type : incomplete_type());
    }
  }

  /// Walks one module function; its type joins its GlobalVar's.
  void add_function(const GlobalVar& gv, const Function& fn) {
    current_global_ = gv->name;
    walk(fn);
    unify_at(fn, globals_.at(gv->name), terms_.at(fn.get()), [&](const Type& decl, const Type& body) {
      return "function @" + gv->name + " has type " + type_to_text(body) + ", but its uses need " +
             type_to_text(decl);
    });
  }

  void add_root(const Expr& e) {
    current_global_.clear();
    walk(e);
  }

  /// Reports what stayed unknown, then writes the types to checked_type
  /// where nodes have none (those typed otherwise are left to Retyper).
  void finish() {
    drain();
    for (const auto& [v, where] : bound_vars_) {
      if (!solver_.first_hole(term(v))) continue;
      throw Error("cannot infer the type of variable %" + v.as<VarNode>()->name_hint +
                  (where.empty() ? "" : " in @" + where))
          .note("nothing fixes it: annotate it, or use it where its type is known");
    }
    for (const Constraint& c : constraints_) {
      if (c.done) continue;
      std::vector<Type> inputs;
      for (const Type& t : c.inputs) inputs.push_back(solver_.resolve(t));
      throw located(Error("cannot infer the type of this expression: its operands' types are not known (" +
                          types_text(inputs) + ")"),
                    c.expr);
    }
    // All or nothing: a program that does not type keeps its old types.
    std::vector<Type> types(order_.size());
    for (size_t i = 0; i < order_.size(); ++i) {
      const Expr& e = order_[i];
      if (e->kind == ExprKind::kOp) continue;
      types[i] = solver_.resolve(term(e));
      if (!solver_.first_hole(types[i])) continue;
      if (auto* v = e.as<VarNode>())  // a free variable of a lone expression
        throw Error("cannot infer the type of free variable %" + v->name_hint)
            .note("nothing fixes it: annotate it, or use it where its type is known");
      throw located(Error("cannot infer the type of this expression"), e);
    }
    for (size_t i = 0; i < order_.size(); ++i)
      if (types[i] && !order_[i]->try_set_checked_type(types[i])) retyped_.emplace(order_[i].get(), types[i]);
  }

  /// Whether the program must be rebuilt: some bound var or function lacks
  /// the annotation inference fills, or some node holds another type.
  bool needs_rebuild() const { return needs_annotations_ || !retyped_.empty(); }
  bool is_bound(const VarNode* v) const { return bound_set_.count(v) > 0; }
  /// The type inferred for a visited node (already its checked type unless
  /// it held another).
  const Type& type_of(const ExprNode* n) const {
    auto it = retyped_.find(n);
    return it == retyped_.end() ? n->checked_type() : it->second;
  }

 private:
  struct Constraint {
    enum Kind { kOpCall, kTupleGetItem } kind;
    Expr expr;
    std::vector<Type> inputs;
    Type output;
    bool done = false;
  };

  // Children first, iteratively, as functor.h's post_order, except that a
  // let's variable is unified with its value before the body is walked, so
  // the body's uses are checked against the value (as Relay does).
  void walk(const Expr& root) {
    enum class Step { kEnter, kBindLet, kExit };
    std::vector<std::pair<const ExprNode*, Step>> stack{{root.get(), Step::kEnter}};
    std::vector<const ExprNode*> children;
    while (!stack.empty()) {
      auto [n, step] = stack.back();
      stack.pop_back();
      if (step == Step::kBindLet) {
        bind_let(*static_cast<const LetNode*>(n));
        continue;
      }
      if (terms_.count(n)) continue;  // shared, already typed
      if (step == Step::kExit) {
        Expr e(const_cast<ExprNode*>(n));
        Type t = infer(e);
        terms_.emplace(n, std::move(t));
        order_.push_back(std::move(e));
        continue;
      }
      stack.emplace_back(n, Step::kExit);
      if (n->kind == ExprKind::kLet) {
        auto* l = static_cast<const LetNode*>(n);
        stack.emplace_back(l->body.get(), Step::kEnter);
        stack.emplace_back(n, Step::kBindLet);
        stack.emplace_back(l->value.get(), Step::kEnter);
        stack.emplace_back(l->var.get(), Step::kEnter);
        continue;
      }
      children.clear();
      for_each_child(*n, [&](const Expr& c) { children.push_back(c.get()); });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.emplace_back(*it, Step::kEnter);
    }
  }

  void bind_let(const LetNode& l) {
    bind_var(l.var);
    unify_at(l.value, term(l.var), term(l.value), [&](const Type& var, const Type& value) {
      return "variable %" + l.var->name_hint + " is annotated " + type_to_text(var) + ", but its value has type " +
             type_to_text(value);
    });
  }

  // The term of an already visited child; an Op has none, being no value.
  const Type& term(const Expr& e) const {
    const Type& t = terms_.at(e.get());
    if (!t) throw located(Error("op " + e.as<OpNode>()->name() + " is used as a value").expected("ops only as callees"), e);
    return t;
  }

  template <typename Describe>
  Type unify_at(const Expr& where, const Type& a, const Type& b, Describe describe) {
    try {
      return solver_.unify(a, b);
    } catch (const UnifyFailure& failure) {
      Type ra = solver_.resolve(a), rb = solver_.resolve(b);
      Error err = located(Error(describe(ra, rb)), where);
      // Inside tuples and function types, say which part differs.
      auto nested = [](const Type& t) { return t->kind == TypeKind::kTuple || t->kind == TypeKind::kFunc; };
      if (nested(ra) || nested(rb)) err.note(failure.detail);
      throw err;
    }
  }

  Type infer(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar: {
        auto* v = e.as<VarNode>();
        return v->type_annotation ? v->type_annotation : Type(incomplete_type());
      }
      case ExprKind::kGlobalVar: return infer_global(e);
      case ExprKind::kConstant: {
        const Tensor& data = e.as<ConstantNode>()->data;
        return tensor_type(data.shape(), data.dtype());
      }
      case ExprKind::kOp: return nullptr;
      case ExprKind::kCall: return infer_call(e);
      case ExprKind::kFunction: return infer_function(e);
      case ExprKind::kTuple: {
        std::vector<Type> fields;
        for (const Expr& f : e.as<TupleNode>()->fields) fields.push_back(term(f));
        return tuple_type(std::move(fields));
      }
      case ExprKind::kTupleGetItem: return infer_get_item(e);
      case ExprKind::kLet: return term(e.as<LetNode>()->body);  // the binding is made in walk()
      case ExprKind::kIf: {
        auto* i = e.as<IfNode>();
        unify_at(i->cond, term(i->cond), scalar_type(DataType::Bool()), [](const Type& cond, const Type&) {
          return "the condition of an if has type " + type_to_text(cond) + "; expected a bool scalar, Tensor[(), bool]";
        });
        return unify_at(e, term(i->then_branch), term(i->else_branch), [](const Type& then_t, const Type& else_t) {
          return "the branches of an if have different types: " + type_to_text(then_t) + " and " +
                 type_to_text(else_t);
        });
      }
    }
    throw InternalError(__FILE__, __LINE__, "unknown expression kind");
  }

  Type infer_global(const Expr& e) {
    const std::string& name = e.as<GlobalVarNode>()->name;
    if (!mod_) throw located(Error("global @" + name + " outside a module has no type"), e);
    auto it = globals_.find(name);
    if (it == globals_.end())
      throw located(Error("unknown global function @" + name).expected("a function defined in the module"), e);
    return it->second;
  }

  Type infer_function(const Expr& e) {
    auto* f = e.as<FunctionNode>();
    std::vector<Type> params;
    for (const Var& p : f->params) {
      bind_var(p);
      params.push_back(term(p));
    }
    Type ret = term(f->body);
    if (f->ret_type) {
      unify_at(e, f->ret_type, ret, [](const Type& annotated, const Type& body) {
        return "the function's body has type " + type_to_text(body) + ", but its return type is annotated " +
               type_to_text(annotated);
      });
      ret = f->ret_type;
    } else {
      needs_annotations_ = true;
    }
    return func_type(std::move(params), std::move(ret));
  }

  Type infer_call(const Expr& e) {
    auto* c = e.as<CallNode>();
    std::vector<Type> args;
    for (const Expr& a : c->args) args.push_back(term(a));
    if (c->op->kind == ExprKind::kOp) {
      const OpDef* def = c->op.as<OpNode>()->def;
      if (!def->variadic && args.size() != def->inputs.size())
        throw located(Error("takes " + std::to_string(def->inputs.size()) + " arguments, the call passes " +
                            std::to_string(args.size()))
                          .op(def->name),
                      e);
      return add_constraint(Constraint::kOpCall, e, std::move(args));
    }
    Type callee = solver_.find(term(c->op));
    if (callee->kind == TypeKind::kIncomplete) {
      Type ret = incomplete_type();
      unify_at(e, callee, func_type(std::move(args), ret), [](const Type& has, const Type& needs) {
        return "the callee has type " + type_to_text(has) + ", but the call needs " + type_to_text(needs);
      });
      return ret;
    }
    auto* ft = callee.as<FuncTypeNode>();
    if (!ft)
      throw located(Error("cannot call an expression of type " + type_to_text(solver_.resolve(callee)))
                        .expected("a function"),
                    e);
    if (ft->params.size() != args.size())
      throw located(Error("the function of type " + type_to_text(solver_.resolve(callee)) + " takes " +
                          std::to_string(ft->params.size()) + " arguments, the call passes " +
                          std::to_string(args.size())),
                    e);
    for (size_t i = 0; i < args.size(); ++i) {
      unify_at(e, ft->params[i], args[i], [i](const Type& param, const Type& arg) {
        return "argument " + std::to_string(i) + " has type " + type_to_text(arg) + ", but the function expects " +
               type_to_text(param);
      });
    }
    return ft->ret;
  }

  Type infer_get_item(const Expr& e) {
    auto* g = e.as<TupleGetItemNode>();
    Type tuple = solver_.find(term(g->tuple));
    if (tuple->kind == TypeKind::kIncomplete) return add_constraint(Constraint::kTupleGetItem, e, {tuple});
    return field_of(e, tuple);
  }

  Type field_of(const Expr& e, const Type& tuple) {
    auto* g = e.as<TupleGetItemNode>();
    auto* tt = tuple.as<TupleTypeNode>();
    if (!tt)
      throw located(Error("cannot take field " + std::to_string(g->index) + " of a value of type " +
                          type_to_text(solver_.resolve(tuple)))
                        .expected("a tuple"),
                    e);
    if (g->index < 0 || static_cast<size_t>(g->index) >= tt->fields.size())
      throw located(Error("tuple index " + std::to_string(g->index) + " is out of range for " +
                          type_to_text(solver_.resolve(tuple)) + ", which has " + std::to_string(tt->fields.size()) +
                          " fields"),
                    e);
    return tt->fields[static_cast<size_t>(g->index)];
  }

  void bind_var(const Var& v) {
    if (!bound_set_.insert(v.get()).second) return;
    bound_vars_.emplace_back(v, current_global_);
    if (!v->type_annotation) needs_annotations_ = true;
  }

  Type add_constraint(Constraint::Kind kind, const Expr& e, std::vector<Type> inputs) {
    Type out = incomplete_type();
    constraints_.push_back(Constraint{kind, e, std::move(inputs), out});
    queue_.push_back(constraints_.size() - 1);
    drain();
    return out;
  }

  // Runs every constraint that can run; the rest wait on a hole.
  void drain() {
    while (!queue_.empty()) {
      size_t index = queue_.front();
      queue_.pop_front();
      if (constraints_[index].done) continue;
      if (const IncompleteTypeNode* hole = try_run(constraints_[index])) {
        waiting_[hole].push_back(index);
      } else {
        constraints_[index].done = true;
      }
    }
  }

  // c's argument types as far as known; the first hole among them, if any.
  const IncompleteTypeNode* resolved_args(const Constraint& c, std::vector<Type>& args) {
    args.clear();
    const IncompleteTypeNode* missing = nullptr;
    for (const Type& in : c.inputs) {
      args.push_back(solver_.resolve(in));
      if (!missing) missing = solver_.first_hole(args.back());
    }
    return missing;
  }

  // Unifies each argument with the type the op's infer_inputs gives it.
  void infer_inputs(const Constraint& c, const OpDef& def, const std::vector<Type>& args, const Attrs& attrs) {
    std::vector<Type> given;
    try {
      given = def.infer_inputs(args, attrs);
    } catch (Error& err) {
      if (err.op_name().empty()) err.op(def.name);
      err.in(expr_snippet(c.expr));
      err.note("argument types: " + types_text(args));
      throw;
    }
    for (size_t i = 0; i < given.size() && i < c.inputs.size(); ++i) {
      if (!given[i]) continue;
      try {
        unify_at(c.expr, c.inputs[i], given[i], [&](const Type& has, const Type& needs) {
          return "argument " + std::to_string(i) + " has type " + type_to_text(has) + ", but the op needs " +
                 type_to_text(needs);
        });
      } catch (Error& err) {
        err.op(def.name);
        throw;
      }
    }
  }

  // Runs c, or returns the hole it has to wait for.
  const IncompleteTypeNode* try_run(const Constraint& c) {
    if (c.kind == Constraint::kTupleGetItem) {
      Type tuple = solver_.find(c.inputs[0]);
      if (auto* hole = tuple.as<IncompleteTypeNode>()) return hole;
      Type field = field_of(c.expr, tuple);
      unify_at(c.expr, c.output, field, [](const Type& expected, const Type& got) {
        return "the tuple field has type " + type_to_text(got) + ", but its use needs " + type_to_text(expected);
      });
      return nullptr;
    }
    auto* call = c.expr.as<CallNode>();
    const OpDef* def = call->op.as<OpNode>()->def;
    Attrs attrs = call->attrs ? call->attrs : empty_attrs();
    // A call made without the call() builder may lack its defaults.
    if (attrs->empty() && !def->attrs.empty()) {
      try {
        attrs = def->attrs.normalize(def->name, attrs);
      } catch (Error& err) {
        throw located(std::move(err), c.expr);
      }
    }
    std::vector<Type> args;
    const IncompleteTypeNode* missing = resolved_args(c, args);
    if (missing && def->infer_inputs) {
      // As Relay's relations assign a weight's type from the data's: the op
      // may fill in arguments the others determine (an untyped conv weight).
      infer_inputs(c, *def, args, attrs);
      missing = resolved_args(c, args);
    }
    if (missing) return missing;
    Type result;
    try {
      result = def->relation(args, attrs);
    } catch (Error& err) {
      if (err.op_name().empty()) err.op(def->name);
      err.in(expr_snippet(c.expr));
      err.note("argument types: " + types_text(args));
      if (c.expr->span && !err.loc().known()) err.at(*c.expr->span);
      throw;
    }
    if (!result) throw located(Error("the type relation returned no type").op(def->name), c.expr);
    try {
      unify_at(c.expr, c.output, result, [&](const Type& expected, const Type& got) {
        return "the relation gives the call type " + type_to_text(got) + ", but its use needs " +
               type_to_text(expected);
      });
    } catch (Error& err) {
      err.op(def->name);
      throw;
    }
    return nullptr;
  }

  const IRModule* mod_;
  detail::TypeSolver solver_;
  std::unordered_map<std::string, Type> globals_;
  std::string current_global_;  // the module function being walked, for messages
  std::unordered_map<const ExprNode*, Type> terms_;
  std::vector<Expr> order_;  // visited nodes, children first
  std::vector<std::pair<Var, std::string>> bound_vars_;  // params and let vars, with their function
  std::unordered_set<const VarNode*> bound_set_;
  bool needs_annotations_ = false;
  std::vector<Constraint> constraints_;
  std::deque<size_t> queue_;
  std::unordered_map<const IncompleteTypeNode*, std::vector<size_t>> waiting_;
  std::unordered_map<const ExprNode*, Type> retyped_;  // nodes typed before with another type: their new one
};

// Rebuilds where inference changes something: a bound var or function lacking
// the annotation inference fills gets it, a node typed before with another type
// is copied, and so is every node above a copy; each copy gets its inferred type.
class Retyper : public TypedExprMutator {
 public:
  explicit Retyper(const Inferencer& inferencer) : inferencer_(inferencer) {}

 protected:
  Expr visit_var(const Var& v) override {
    bool annotate = !v->type_annotation && inferencer_.is_bound(v.get());
    if (!annotate) return typed(v, v);
    auto annotated = make_ref<VarNode>(v->name_hint, type_of(v));
    annotated->span = v->span;
    annotated->set_checked_type(type_of(v));
    return Var(annotated);
  }
  Expr visit_global_var(const GlobalVar& g) override { return typed(g, g); }
  Expr visit_function(const Function& f) override {
    if (f->ret_type) return TypedExprMutator::visit_function(f);
    std::vector<Var> params;
    for (const Var& p : f->params) params.push_back(visit_binding(p));
    auto rebuilt = make_ref<FunctionNode>(std::move(params), visit(f->body), type_of(f).as<FuncTypeNode>()->ret,
                                          f->attrs);
    rebuilt->span = f->span;
    rebuilt->set_checked_type(type_of(f));
    return Function(rebuilt);
  }
  Type type_of(const Expr& original) const override { return inferencer_.type_of(original.get()); }

 private:
  const Inferencer& inferencer_;
};

}  // namespace

IRModule infer_type(const IRModule& mod) {
  Inferencer inferencer(&mod);
  for (const auto& [gv, fn] : mod.functions()) inferencer.add_function(gv, fn);
  inferencer.finish();
  IRModule out = mod;
  std::optional<Retyper> retyper;
  if (inferencer.needs_rebuild()) retyper.emplace(inferencer);
  for (const auto& [gv, fn] : mod.functions()) {
    Function typed = retyper ? downcast<FunctionNode>(retyper->mutate(fn)) : fn;
    // A global shared with a module where its function has another type gets a twin with this one.
    GlobalVar name = gv;
    if (!name->try_set_checked_type(typed->checked_type())) {
      name = downcast<GlobalVarNode>(copy_untyped(gv));
      name->set_checked_type(typed->checked_type());
    }
    if (!typed.same_as(fn) || !name.same_as(gv)) out.add(name, typed);
  }
  return out;
}

Expr infer_type(const Expr& expr) {
  Inferencer inferencer(nullptr);
  inferencer.add_root(expr);
  inferencer.finish();
  if (!inferencer.needs_rebuild()) return expr;
  return Retyper(inferencer).mutate(expr);
}

Pass InferType() {
  return create_module_pass({"InferType", 0, {}}, [](IRModule mod, const PassContext&) { return infer_type(mod); });
}

}  // namespace weft
