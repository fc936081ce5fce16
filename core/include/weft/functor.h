// Memoized visitors and mutators over expression DAGs, safe on very deep graphs.
//
// visit(e) first walks the not-yet-visited part of e's graph with an explicit
// stack, handling each node only after its children (in evaluation order: a
// Let's var, value, then body; a Function's params, then body). So when a
// handler calls visit(child), the child is already memoized and the call
// returns at once: recursion depth stays constant however long the chain.
// Each node is handled once per functor, however many times it is shared.
//
// Binding variables are children visited before the expressions that use them,
// so a mutator can rename a Var in visit_var and every use sees the new one.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "weft/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Calls fn(child) for each direct sub-expression of e, in evaluation order.
/// The callee of a call counts (an Op, a Function, a GlobalVar or a Var).
template <typename F>
void for_each_child(const ExprNode& e, F&& fn) {
  switch (e.kind) {
    case ExprKind::kCall: {
      auto& c = static_cast<const CallNode&>(e);
      fn(c.op);
      for (auto& a : c.args) fn(a);
      break;
    }
    case ExprKind::kFunction: {
      auto& f = static_cast<const FunctionNode&>(e);
      for (auto& p : f.params) fn(Expr(p));
      fn(f.body);
      break;
    }
    case ExprKind::kTuple:
      for (auto& f : static_cast<const TupleNode&>(e).fields) fn(f);
      break;
    case ExprKind::kTupleGetItem:
      fn(static_cast<const TupleGetItemNode&>(e).tuple);
      break;
    case ExprKind::kLet: {
      auto& l = static_cast<const LetNode&>(e);
      fn(Expr(l.var));
      fn(l.value);
      fn(l.body);
      break;
    }
    case ExprKind::kIf: {
      auto& i = static_cast<const IfNode&>(e);
      fn(i.cond);
      fn(i.then_branch);
      fn(i.else_branch);
      break;
    }
    default:
      break;  // leaves
  }
}

namespace detail {
/// Iterative post-order walk from `root` over nodes for which done(node) is
/// false, calling handle(node) once each, children first. expand(node, fn)
/// calls fn(child) for the children to walk into (for_each_child by default;
/// the printer walks only dataflow children).
template <typename Done, typename Handle, typename Expand>
void post_order(const Expr& root, Done&& done, Handle&& handle, Expand&& expand) {
  if (done(root.get())) return;
  struct Frame {
    const ExprNode* node;
    bool expanded;
  };
  std::vector<Frame> stack{{root.get(), false}};
  std::vector<const ExprNode*> children;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.expanded) {
      const ExprNode* n = top.node;
      stack.pop_back();
      if (!done(n)) handle(n);  // a node shared below may have been handled already
      continue;
    }
    if (done(top.node)) {
      stack.pop_back();
      continue;
    }
    top.expanded = true;
    children.clear();
    expand(*top.node, [&](const Expr& c) {
      if (c && !done(c.get())) children.push_back(c.get());
    });
    // Push in reverse so the first child is handled first.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, false});
  }
}

template <typename Done, typename Handle>
void post_order(const Expr& root, Done&& done, Handle&& handle) {
  post_order(root, std::forward<Done>(done), std::forward<Handle>(handle),
             [](const ExprNode& e, const auto& fn) { for_each_child(e, fn); });
}
}  // namespace detail

/// Calls fn(expr) once for every node reachable from root, children first.
template <typename F>
void post_order_visit(const Expr& root, F&& fn) {
  std::unordered_set<const ExprNode*> seen;
  detail::post_order(
      root, [&](const ExprNode* n) { return seen.count(n) > 0; },
      [&](const ExprNode* n) {
        seen.insert(n);
        fn(Expr(const_cast<ExprNode*>(n)));
      });
}

/// A memoized function from expressions to R. Override the visit_* handlers;
/// inside them, call visit(child) freely (it is memoized and shallow).
template <typename R>
class ExprFunctor {
 public:
  virtual ~ExprFunctor() = default;

  R visit(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    detail::post_order(
        e, [&](const ExprNode* n) { return memo_.count(n) > 0; },
        [&](const ExprNode* n) { memo_.emplace(n, dispatch(Expr(const_cast<ExprNode*>(n)))); });
    return memo_.at(e.get());
  }

 protected:
  virtual R visit_var(const Var& v) = 0;
  virtual R visit_global_var(const GlobalVar& g) = 0;
  virtual R visit_constant(const Constant& c) = 0;
  virtual R visit_op(const Op& o) = 0;
  virtual R visit_call(const Call& c) = 0;
  virtual R visit_function(const Function& f) = 0;
  virtual R visit_tuple(const Tuple& t) = 0;
  virtual R visit_tuple_get_item(const TupleGetItem& t) = 0;
  virtual R visit_let(const Let& l) = 0;
  virtual R visit_if(const If& i) = 0;

  /// Results so far, by node (for functors that look back at them).
  std::unordered_map<const ExprNode*, R> memo_;
  /// Keeps every visited node alive while its address is a memo key.
  std::vector<Expr> keep_alive_;

 private:
  R dispatch(const Expr& e) {
    keep_alive_.push_back(e);
    switch (e->kind) {
      case ExprKind::kVar: return visit_var(downcast<VarNode>(e));
      case ExprKind::kGlobalVar: return visit_global_var(downcast<GlobalVarNode>(e));
      case ExprKind::kConstant: return visit_constant(downcast<ConstantNode>(e));
      case ExprKind::kOp: return visit_op(downcast<OpNode>(e));
      case ExprKind::kCall: return visit_call(downcast<CallNode>(e));
      case ExprKind::kFunction: return visit_function(downcast<FunctionNode>(e));
      case ExprKind::kTuple: return visit_tuple(downcast<TupleNode>(e));
      case ExprKind::kTupleGetItem: return visit_tuple_get_item(downcast<TupleGetItemNode>(e));
      case ExprKind::kLet: return visit_let(downcast<LetNode>(e));
      case ExprKind::kIf: return visit_if(downcast<IfNode>(e));
    }
    throw InternalError(__FILE__, __LINE__, "unknown expression kind");
  }
};

/// Visits every node once, children first. Override a handler to look at a
/// kind of node; children have already been visited when it runs.
class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  void visit(const Expr& e);

 protected:
  virtual void visit_var(const Var&) {}
  virtual void visit_global_var(const GlobalVar&) {}
  virtual void visit_constant(const Constant&) {}
  virtual void visit_op(const Op&) {}
  virtual void visit_call(const Call&) {}
  virtual void visit_function(const Function&) {}
  virtual void visit_tuple(const Tuple&) {}
  virtual void visit_tuple_get_item(const TupleGetItem&) {}
  virtual void visit_let(const Let&) {}
  virtual void visit_if(const If&) {}

 private:
  std::unordered_set<const ExprNode*> visited_;
  std::vector<Expr> keep_alive_;
};

/// Rebuilds a graph bottom-up. Each default handler returns the node itself if
/// no child changed (so untouched subgraphs stay shared) or a copy with the new
/// children (keeping the span; type caches are not copied).
class ExprMutator : public ExprFunctor<Expr> {
 public:
  Expr mutate(const Expr& e) { return visit(e); }

 protected:
  Expr visit_var(const Var& v) override { return v; }
  Expr visit_global_var(const GlobalVar& g) override { return g; }
  Expr visit_constant(const Constant& c) override { return c; }
  Expr visit_op(const Op& o) override { return o; }
  Expr visit_call(const Call& c) override;
  Expr visit_function(const Function& f) override;
  Expr visit_tuple(const Tuple& t) override;
  Expr visit_tuple_get_item(const TupleGetItem& t) override;
  Expr visit_let(const Let& l) override;
  Expr visit_if(const If& i) override;

  /// visit(v) as a Var: a mutator may only map binding Vars to Vars.
  Var visit_binding(const Var& v);
};

/// `e` with every use of a variable in `replacement` replaced by its value
/// (Relay's Bind of an expression); untouched subgraphs stay shared. A variable
/// that a let or function inside `e` binds may only be replaced by a Var.
Expr substitute_vars(const Expr& e, std::unordered_map<const VarNode*, Expr> replacement);

/// An ExprMutator whose copies are typed: each call, function, tuple,
/// projection, let and if it rebuilds gets type_of(the node it replaces), for
/// passes that keep types (call rewrites) and for InferType itself. A node left
/// as it is whose type is not type_of(it) is copied (copy on write: a node's
/// type never changes).
class TypedExprMutator : public ExprMutator {
 protected:
  Expr visit_call(const Call& c) override { return typed(ExprMutator::visit_call(c), c); }
  Expr visit_function(const Function& f) override { return typed(ExprMutator::visit_function(f), f); }
  Expr visit_tuple(const Tuple& t) override { return typed(ExprMutator::visit_tuple(t), t); }
  Expr visit_tuple_get_item(const TupleGetItem& t) override { return typed(ExprMutator::visit_tuple_get_item(t), t); }
  Expr visit_let(const Let& l) override { return typed(ExprMutator::visit_let(l), l); }
  Expr visit_if(const If& i) override { return typed(ExprMutator::visit_if(i), i); }

  /// The type a copy of `original` gets: its checked type unless overridden
  /// (null: the copy stays untyped).
  virtual Type type_of(const Expr& original) const { return original->checked_type(); }
  /// `rebuilt` (the mutation of `original`) with type_of(original).
  Expr typed(Expr rebuilt, const Expr& original) const;
};

}  // namespace weft

#pragma GCC visibility pop
