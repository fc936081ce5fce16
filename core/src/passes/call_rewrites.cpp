// The driver that applies ops' named rewrites bottom-up (see call_rewrites.h).
#include "weft/call_rewrites.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "snippet.h"
#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/op.h"

namespace weft {

namespace {

// Rewriting one call more often than this means two rewrites undo each other.
constexpr int kMaxRewritesPerCall = 1000;

// Its copies keep their originals' types, as rewrites keep types.
class CallRewriter : public TypedExprMutator {
 public:
  CallRewriter(std::string_view rewrite, std::string_view pass, bool fold_built_constants)
      : rewrite_(rewrite), pass_(pass), fold_built_constants_(fold_built_constants) {}

 protected:
  Expr visit_call(const Call& c) override {
    if (!c->has_type()) {
      throw Error(pass_ + " needs a typed program (run InferType first); this call has no type")
          .in(detail::expr_snippet(c));
    }
    return settle(TypedExprMutator::visit_call(c), c);
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    return projected(TypedExprMutator::visit_tuple_get_item(t));
  }

 private:
  // Offers `rebuilt` (the rewrite of the call `c`) to its op's rewrite until
  // one declines.
  Expr settle(Expr rebuilt, const Call& c) {
    for (int round = 0;; ++round) {
      auto* call = rebuilt.as<CallNode>();
      auto* op = call ? call->op.as<OpNode>() : nullptr;
      if (!op) return rebuilt;
      auto it = op->def->rewrites.find(rewrite_);
      if (it == op->def->rewrites.end()) return rebuilt;
      if (round == kMaxRewritesPerCall) {
        throw Error("rewrite '" + rewrite_ + "' rewrote a call " + std::to_string(round) +
                    " times without reaching a form it leaves alone")
            .op(op->name())
            .in(detail::expr_snippet(c));
      }
      Expr replacement = it->second(downcast<CallNode>(rebuilt));
      if (!replacement) return rebuilt;
      replacement = settle_built_nodes(replacement, op->name(), c);
      if (!type_equal(replacement->checked_type(), rebuilt->checked_type())) {
        throw Error("rewrite '" + rewrite_ + "' changed the call's type from " +
                    type_to_text(rebuilt->checked_type()) + " to " + type_to_text(replacement->checked_type()))
            .op(op->name())
            .in(detail::expr_snippet(c));
      }
      if (replacement->kind == ExprKind::kTuple) rewritten_tuples_.insert(replacement.get());
      rebuilt = replacement;
    }
  }

  // Types the nodes a rewrite built and offers the calls among them below its
  // root to their own ops' rewrites, children first, as the reference's
  // rewrites run to a fixed point: a pattern a rewrite creates inside its
  // output fires in this pass. The nodes it kept (typed) are already settled.
  // The root is left to the caller's loop.
  Expr settle_built_nodes(const Expr& replacement, const std::string& op, const Call& c) {
    std::vector<Expr> kept;
    detail::post_order(
        replacement, [](const ExprNode* n) { return n->has_type() || n->kind == ExprKind::kOp; },
        [&](const ExprNode* n) {
          for_each_child(*n, [&](const Expr& child) {
            if (child->has_type() && child->kind != ExprKind::kOp) kept.push_back(child);
          });
        });
    if (replacement->has_type()) return replacement;  // a node it was given
    type_new_nodes(replacement, op);
    if (++nesting_ > kMaxRewritesPerCall) {
      throw Error("rewrite '" + rewrite_ + "' keeps building calls that its rewrites rebuild without end")
          .op(op)
          .in(detail::expr_snippet(c));
    }
    Expr settled = BuiltNodes(*this, kept, replacement).mutate(replacement);
    --nesting_;
    return settled;
  }

  // Rewrites the nodes one rewrite built, with the nodes it kept as leaves.
  class BuiltNodes : public TypedExprMutator {
   public:
    BuiltNodes(CallRewriter& rewriter, const std::vector<Expr>& kept, const Expr& root)
        : rewriter_(rewriter), root_(root.get()) {
      for (const Expr& k : kept) {
        if (memo_.emplace(k.get(), k).second) keep_alive_.push_back(k);
      }
    }

   protected:
    Expr visit_call(const Call& c) override {
      Expr rebuilt = TypedExprMutator::visit_call(c);
      if (c.get() == root_) return rebuilt;
      if (Expr folded = rewriter_.fold(downcast<CallNode>(rebuilt))) return folded;
      return rewriter_.settle(rebuilt, c);
    }

    Expr visit_tuple_get_item(const TupleGetItem& t) override {
      return rewriter_.projected(TypedExprMutator::visit_tuple_get_item(t));
    }

   private:
    CallRewriter& rewriter_;
    const ExprNode* root_;
  };

  // A projection of a tuple a rewrite returned becomes that field.
  Expr projected(const Expr& rebuilt) const {
    auto* item = rebuilt.as<TupleGetItemNode>();
    if (!rewritten_tuples_.count(item->tuple.get())) return rebuilt;
    return item->tuple.as<TupleNode>()->fields.at(static_cast<size_t>(item->index));
  }

  // The value of a call a rewrite built on constants alone, as the reference's
  // rewrites fold the constants they combine (FoldConstantExpr); null when
  // folding is off or the call is not all constants.
  Expr fold(const Call& call) const {
    auto* op = call->op.as<OpNode>();
    if (!fold_built_constants_ || !op || call->args.empty() || !op->def->kernel) return {};
    std::vector<Value> values;
    for (const Expr& a : call->args) {
      auto* k = a.as<ConstantNode>();
      if (!k) return {};
      values.emplace_back(k->data);
    }
    Value value = run_op(call, values, call->checked_type());
    if (!value.is_tensor()) return {};
    Expr folded = constant(value.tensor());
    folded->set_checked_type(call->checked_type());
    return folded;
  }

  // Types the nodes a rewrite built (those without a type), children first.
  void type_new_nodes(const Expr& replacement, const std::string& op) {
    detail::post_order(
        replacement, [](const ExprNode* n) { return n->has_type() || n->kind == ExprKind::kOp; },
        [&](const ExprNode* n) {
          Expr e(const_cast<ExprNode*>(n));
          try {
            n->set_checked_type(type_from_operands(e));
          } catch (Error& err) {
            throw Error("rewrite '" + rewrite_ + "' built an expression that does not type-check: " + err.what())
                .op(op)
                .in(detail::expr_snippet(e));
          }
        });
  }

  static Type type_from_operands(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar:
        if (auto& t = e.as<VarNode>()->type_annotation) return t;
        throw Error("a variable it made has no type annotation");
      case ExprKind::kConstant: {
        const Tensor& data = e.as<ConstantNode>()->data;
        return tensor_type(data.shape(), data.dtype());
      }
      case ExprKind::kCall: {
        auto* c = e.as<CallNode>();
        auto* op = c->op.as<OpNode>();
        if (!op) throw Error("only calls of ops can be typed here");
        std::vector<Type> args;
        for (const Expr& a : c->args) args.push_back(a->checked_type());
        Type t = op->def->relation(args, c->attrs ? c->attrs : empty_attrs());
        if (!t) throw Error("the type relation of " + op->name() + " returned no type");
        return t;
      }
      case ExprKind::kTuple: {
        std::vector<Type> fields;
        for (const Expr& f : e.as<TupleNode>()->fields) fields.push_back(f->checked_type());
        return tuple_type(std::move(fields));
      }
      case ExprKind::kTupleGetItem: {
        auto* item = e.as<TupleGetItemNode>();
        auto* tt = item->tuple->checked_type().as<TupleTypeNode>();
        if (!tt || item->index < 0 || static_cast<size_t>(item->index) >= tt->fields.size())
          throw Error("a projection [" + std::to_string(item->index) + "] of " + type_to_text(item->tuple->checked_type()));
        return tt->fields[static_cast<size_t>(item->index)];
      }
      case ExprKind::kLet: return e.as<LetNode>()->body->checked_type();
      case ExprKind::kIf: return e.as<IfNode>()->then_branch->checked_type();
      default: throw Error("a rewrite may build calls of ops, tuples, projections, constants, lets and ifs, not a " +
                           std::string(expr_kind_name(e->kind)));
    }
  }

  std::string rewrite_, pass_;
  bool fold_built_constants_;
  std::unordered_set<const ExprNode*> rewritten_tuples_;
  int nesting_ = 0;
};

}  // namespace

Expr rewrite_calls(const Expr& expr, std::string_view rewrite_name, std::string_view pass_name,
                   bool fold_built_constants) {
  return CallRewriter(rewrite_name, pass_name, fold_built_constants).mutate(expr);
}

Pass create_call_rewrite_pass(PassInfo info, std::string rewrite_name, bool fold_built_constants) {
  std::string pass_name = info.name;
  return create_function_pass(std::move(info), [rewrite_name, pass_name, fold_built_constants](
                                                   Function fn, const IRModule&, const PassContext&) {
    return downcast<FunctionNode>(rewrite_calls(fn, rewrite_name, pass_name, fold_built_constants));
  });
}

}  // namespace weft
