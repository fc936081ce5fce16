// An expression's checked type: written at most once, then only read.
//
// Nodes are shared: between the modules a pass makes, between the module the
// interpreter re-types per call and the one it was given, and between threads
// running one program. So a type is published once (a compare-and-swap claims
// the slot, a release store makes the written Type visible), and a pass that
// infers a different type for a node copies the node instead (copy_untyped).
#include <thread>

#include "weft/expr.h"

namespace weft {

const Type& ExprNode::no_type() {
  static const Type kNone;
  return kNone;
}

bool ExprNode::try_set_checked_type(Type t) const {
  WEFT_ICHECK(t.defined(), "a null checked type");
  uint8_t untyped = kUntyped;
  if (type_state_.compare_exchange_strong(untyped, kWriting, std::memory_order_acquire)) {
    checked_type_ = std::move(t);
    type_state_.store(kTyped, std::memory_order_release);
    return true;
  }
  // Another thread is writing it: a Type assignment, done in a moment.
  while (!has_type()) std::this_thread::yield();
  return type_equal(checked_type_, t);
}

void ExprNode::set_checked_type(Type t) const {
  if (try_set_checked_type(t)) return;
  throw InternalError(__FILE__, __LINE__,
                      "a " + std::string(expr_kind_name(kind)) + " typed " + type_to_text(checked_type_) +
                          " was given type " + type_to_text(t) + "; a node's type never changes (copy the node)");
}

namespace {

template <typename T>
Expr located_like(Ref<T> copy, const ExprNode& original) {
  copy->span = original.span;
  return Expr(std::move(copy));
}

}  // namespace

Expr copy_untyped(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kVar: {
      auto* v = e.as<VarNode>();
      return located_like(make_ref<VarNode>(v->name_hint, v->type_annotation), *e);
    }
    case ExprKind::kGlobalVar: return located_like(make_ref<GlobalVarNode>(e.as<GlobalVarNode>()->name), *e);
    case ExprKind::kConstant: return located_like(make_ref<ConstantNode>(e.as<ConstantNode>()->data), *e);
    case ExprKind::kOp: break;
    case ExprKind::kCall: {
      auto* c = e.as<CallNode>();
      return located_like(make_ref<CallNode>(c->op, c->args, c->attrs), *e);
    }
    case ExprKind::kFunction: {
      auto* f = e.as<FunctionNode>();
      return located_like(make_ref<FunctionNode>(f->params, f->body, f->ret_type, f->attrs), *e);
    }
    case ExprKind::kTuple: return located_like(make_ref<TupleNode>(e.as<TupleNode>()->fields), *e);
    case ExprKind::kTupleGetItem: {
      auto* t = e.as<TupleGetItemNode>();
      return located_like(make_ref<TupleGetItemNode>(t->tuple, t->index), *e);
    }
    case ExprKind::kLet: {
      auto* l = e.as<LetNode>();
      return located_like(make_ref<LetNode>(l->var, l->value, l->body), *e);
    }
    case ExprKind::kIf: {
      auto* i = e.as<IfNode>();
      return located_like(make_ref<IfNode>(i->cond, i->then_branch, i->else_branch), *e);
    }
  }
  throw InternalError(__FILE__, __LINE__, "an op node cannot be copied: its identity is its definition");
}

}  // namespace weft
