// ExprVisitor dispatch, ExprMutator's default rebuilding handlers and the typing
// of TypedExprMutator's copies.
#include "weft/functor.h"

namespace weft {

namespace {

// Copies the span of `from` onto a freshly built `to`.
template <typename T>
Ref<const T> with_span(Ref<T> to, const ExprNode& from) {
  to->span = from.span;
  return Ref<const T>(std::move(to));
}

}  // namespace

void ExprVisitor::visit(const Expr& e) {
  detail::post_order(
      e, [&](const ExprNode* n) { return visited_.count(n) > 0; },
      [&](const ExprNode* n) {
        visited_.insert(n);
        Expr node(const_cast<ExprNode*>(n));
        keep_alive_.push_back(node);
        switch (n->kind) {
          case ExprKind::kVar: return visit_var(downcast<VarNode>(node));
          case ExprKind::kGlobalVar: return visit_global_var(downcast<GlobalVarNode>(node));
          case ExprKind::kConstant: return visit_constant(downcast<ConstantNode>(node));
          case ExprKind::kOp: return visit_op(downcast<OpNode>(node));
          case ExprKind::kCall: return visit_call(downcast<CallNode>(node));
          case ExprKind::kFunction: return visit_function(downcast<FunctionNode>(node));
          case ExprKind::kTuple: return visit_tuple(downcast<TupleNode>(node));
          case ExprKind::kTupleGetItem: return visit_tuple_get_item(downcast<TupleGetItemNode>(node));
          case ExprKind::kLet: return visit_let(downcast<LetNode>(node));
          case ExprKind::kIf: return visit_if(downcast<IfNode>(node));
        }
      });
}

Var ExprMutator::visit_binding(const Var& v) {
  Expr mapped = visit(v);
  Var out = downcast<VarNode>(mapped);
  WEFT_ICHECK(out.defined(), "a mutator mapped binding variable %" + v->name_hint + " to a " +
                                 std::string(expr_kind_name(mapped->kind)) + ", not a variable");
  return out;
}

Expr ExprMutator::visit_call(const Call& c) {
  Expr op = visit(c->op);
  bool changed = !op.same_as(c->op);
  std::vector<Expr> args;
  args.reserve(c->args.size());
  for (const auto& a : c->args) {
    args.push_back(visit(a));
    changed |= !args.back().same_as(a);
  }
  if (!changed) return c;
  return with_span(Ref<CallNode>(new CallNode(op, std::move(args), c->attrs)), *c);
}

Expr ExprMutator::visit_function(const Function& f) {
  bool changed = false;
  std::vector<Var> params;
  params.reserve(f->params.size());
  for (const auto& p : f->params) {
    params.push_back(visit_binding(p));
    changed |= !params.back().same_as(p);
  }
  Expr body = visit(f->body);
  if (!changed && body.same_as(f->body)) return f;
  return with_span(Ref<FunctionNode>(new FunctionNode(std::move(params), body, f->ret_type, f->attrs)), *f);
}

Expr ExprMutator::visit_tuple(const Tuple& t) {
  bool changed = false;
  std::vector<Expr> fields;
  fields.reserve(t->fields.size());
  for (const auto& f : t->fields) {
    fields.push_back(visit(f));
    changed |= !fields.back().same_as(f);
  }
  if (!changed) return t;
  return with_span(Ref<TupleNode>(new TupleNode(std::move(fields))), *t);
}

Expr ExprMutator::visit_tuple_get_item(const TupleGetItem& t) {
  Expr tuple = visit(t->tuple);
  if (tuple.same_as(t->tuple)) return t;
  return with_span(Ref<TupleGetItemNode>(new TupleGetItemNode(tuple, t->index)), *t);
}

Expr ExprMutator::visit_let(const Let& l) {
  Var v = visit_binding(l->var);
  Expr value = visit(l->value);
  Expr body = visit(l->body);
  if (v.same_as(l->var) && value.same_as(l->value) && body.same_as(l->body)) return l;
  return with_span(Ref<LetNode>(new LetNode(v, value, body)), *l);
}

Expr ExprMutator::visit_if(const If& i) {
  Expr cond = visit(i->cond);
  Expr then_branch = visit(i->then_branch);
  Expr else_branch = visit(i->else_branch);
  if (cond.same_as(i->cond) && then_branch.same_as(i->then_branch) && else_branch.same_as(i->else_branch)) return i;
  return with_span(Ref<IfNode>(new IfNode(cond, then_branch, else_branch)), *i);
}

namespace {

class VarSubstituter : public ExprMutator {
 public:
  explicit VarSubstituter(std::unordered_map<const VarNode*, Expr> replacement) : replacement_(std::move(replacement)) {}

 protected:
  Expr visit_var(const Var& v) override {
    auto it = replacement_.find(v.get());
    return it == replacement_.end() ? Expr(v) : it->second;
  }

 private:
  std::unordered_map<const VarNode*, Expr> replacement_;
};

}  // namespace

Expr substitute_vars(const Expr& e, std::unordered_map<const VarNode*, Expr> replacement) {
  return VarSubstituter(std::move(replacement)).mutate(e);
}

Expr TypedExprMutator::typed(Expr rebuilt, const Expr& original) const {
  Type t = type_of(original);
  if (!t) return rebuilt;
  if (rebuilt.same_as(original)) {
    if (original->checked_type().same_as(t)) return rebuilt;
    rebuilt = copy_untyped(original);
  }
  rebuilt->set_checked_type(std::move(t));
  return rebuilt;
}

}  // namespace weft
