// Partitioning a fused main among targets (see partition.h). A group goes
// whole to the first target that supports all of its calls; one that only
// `ref` takes whole but a listed target could run part of is split into
// single-call groups, so that part runs there and only the rest falls back.
#include "partition.h"

#include <unordered_map>
#include <unordered_set>

#include "weft/functor.h"
#include "weft/pass.h"

namespace weft::build_detail {

bool is_group(const FunctionNode& fn) { return fn.attrs && fn.attrs->find("Primitive"); }

namespace {

/// The group a node calls, or nullptr when it is not a call of a group.
const FunctionNode* group_callee(const ExprNode& e) {
  if (e.kind != ExprKind::kCall) return nullptr;
  const Expr& callee = static_cast<const CallNode&>(e).op;
  if (callee->kind != ExprKind::kFunction) return nullptr;
  auto* fn = static_cast<const FunctionNode*>(callee.get());
  return is_group(*fn) ? fn : nullptr;
}

/// Calls fn(node) once for each node of `root`, children first, without
/// walking into the groups it calls.
template <typename F>
void visit_outside_groups(const Expr& root, F&& fn) {
  std::unordered_set<const ExprNode*> seen;
  detail::post_order(
      root, [&](const ExprNode* n) { return seen.count(n) > 0; },
      [&](const ExprNode* n) {
        seen.insert(n);
        fn(Expr(const_cast<ExprNode*>(n)));
      },
      [](const ExprNode& e, const auto& child) {
        if (!group_callee(e)) return for_each_child(e, child);
        for (const Expr& a : static_cast<const CallNode&>(e).args) child(a);
      });
}

/// The op calls of a group, in evaluation order.
std::vector<Call> op_calls(const FunctionNode& group) {
  std::vector<Call> calls;
  post_order_visit(group.body, [&](const Expr& e) {
    if (auto c = downcast<CallNode>(e); c && c->op->kind == ExprKind::kOp) calls.push_back(c);
  });
  return calls;
}

bool supports_all(const Target& target, const std::vector<Call>& calls) {
  for (const Call& c : calls)
    if (!target.supports(c)) return false;
  return true;
}

bool is_scalar_constant(const Expr& e) {
  auto c = e.as<ConstantNode>();
  return c && c->data.ndim() == 0;
}

/// Rewrites main so that every op call is in a group and no group that a
/// listed target could run part of falls back whole. Typed: a split group's
/// params take their arguments' types, so each node main rebuilds around a
/// split (a later group's call, a tuple, a let) must be typed when made.
class GroupSplitter : public TypedExprMutator {
 public:
  explicit GroupSplitter(std::span<const BuildTarget> targets) : listed_(targets.first(targets.size() - 1)) {}

  Function run(const Function& main) {
    // Groups stay as they are unless split: their bodies are not main's.
    visit_outside_groups(main->body, [&](const Expr& e) {
      if (group_callee(*e)) memo_.emplace(e.as<CallNode>()->op.get(), e.as<CallNode>()->op);
    });
    Expr body = mutate(main->body);
    if (body.same_as(main->body)) return main;
    Function out = function(main->params, body, main->ret_type, main->attrs);
    out->set_checked_type(main->checked_type());
    return out;
  }

 protected:
  Expr visit_call(const Call& c) override {
    if (const FunctionNode* group = group_callee(*c)) {
      std::vector<Call> calls = op_calls(*group);
      if (worth_splitting(calls)) return split(*group, c);
      if (called_.insert(group).second) return TypedExprMutator::visit_call(c);
      return call_copy(*group, c);
    }
    if (c->op->kind != ExprKind::kOp) return TypedExprMutator::visit_call(c);
    std::vector<Expr> args;
    for (const Expr& a : c->args) args.push_back(visit(a));
    return single_call_group(c, args);
  }

 private:
  /// Split when no listed target takes the group whole but one takes a call.
  bool worth_splitting(const std::vector<Call>& calls) const {
    if (calls.size() < 2) return false;
    bool some_call_taken = false;
    for (const BuildTarget& t : listed_) {
      if (supports_all(*t.target, calls)) return false;
      for (const Call& c : calls) some_call_taken = some_call_taken || t.target->supports(c);
    }
    return some_call_taken;
  }

  /// The group's body inlined into main, each op call a group of its own.
  Expr split(const FunctionNode& group, const Call& site) {
    std::unordered_map<const ExprNode*, Expr> in_main;  // a node of the group's body -> its value in main
    for (size_t i = 0; i < group.params.size(); ++i) in_main[group.params[i].get()] = visit(site->args[i]);
    auto mapped = [&](const Expr& e) { return in_main.at(e.get()); };
    detail::post_order(
        group.body, [&](const ExprNode* n) { return in_main.count(n) > 0; },
        [&](const ExprNode* n) {
          Expr e(const_cast<ExprNode*>(n));
          Expr value;
          switch (e->kind) {
            case ExprKind::kConstant:
            case ExprKind::kOp:
              value = e;
              break;
            case ExprKind::kCall: {
              auto c = downcast<CallNode>(e);
              std::vector<Expr> args;
              for (const Expr& a : c->args) args.push_back(mapped(a));
              value = single_call_group(c, args);
              break;
            }
            case ExprKind::kTuple: {
              std::vector<Expr> fields;
              for (const Expr& f : downcast<TupleNode>(e)->fields) fields.push_back(mapped(f));
              value = tuple(std::move(fields));
              break;
            }
            case ExprKind::kTupleGetItem: {
              auto item = downcast<TupleGetItemNode>(e);
              value = get_item(mapped(item->tuple), item->index);
              break;
            }
            default:
              throw Error("a fused group holds a " + std::string(expr_kind_name(e->kind)) +
                          "; weft::build splits groups of op calls, tuples and projections");
          }
          if (!value->has_type() && e->has_type()) value->set_checked_type(e->checked_type());
          in_main.emplace(n, std::move(value));
        });
    return mapped(group.body);
  }

  /// `call` as a group of its own, called with `args` (values in main). Each
  /// distinct argument is a parameter, but scalar constants stay inside, as
  /// FuseOps leaves them.
  static Expr single_call_group(const Call& call, const std::vector<Expr>& args) {
    std::vector<Var> params;
    std::vector<Type> param_types;
    std::vector<Expr> passed, inner;
    for (const Expr& a : args) {
      if (is_scalar_constant(a)) {
        inner.push_back(a);
        continue;
      }
      size_t i = 0;
      while (i < passed.size() && !passed[i].same_as(a)) ++i;
      if (i == passed.size()) {
        Var p = var("p" + std::to_string(i), a->checked_type());
        p->set_checked_type(a->checked_type());
        params.push_back(p);
        param_types.push_back(a->checked_type());
        passed.push_back(a);
      }
      inner.push_back(params[i]);
    }
    Expr body(new CallNode(call->op, std::move(inner), call->attrs));
    const_cast<ExprNode&>(*body).span = call->span;
    body->set_checked_type(call->checked_type());
    Function fn = function(std::move(params), body, call->checked_type(), make_attrs({{"Primitive", int64_t{1}}}));
    fn->set_checked_type(func_type(std::move(param_types), call->checked_type()));
    Call site = call_function(fn, std::move(passed));
    site->set_checked_type(call->checked_type());
    return site;
  }

  /// A group called again: the call of a copy of it, since each group is
  /// compiled for one call site (CompiledModule::group_of).
  Expr call_copy(const FunctionNode& group, const Call& site) {
    Function copy = function(group.params, group.body, group.ret_type, group.attrs);
    copy->set_checked_type(group.checked_type());
    std::vector<Expr> args;
    for (const Expr& a : site->args) args.push_back(visit(a));
    Call call = call_function(copy, std::move(args));
    call->set_checked_type(site->checked_type());
    return call;
  }

  std::span<const BuildTarget> listed_;  // the targets before ref
  std::unordered_set<const FunctionNode*> called_;
};

}  // namespace

Partition partition(const Function& main, std::span<const BuildTarget> targets) {
  Partition result;
  result.main = GroupSplitter(targets).run(main);
  const size_t ref = targets.size() - 1;
  visit_outside_groups(result.main->body, [&](const Expr& e) {
    const FunctionNode* group = group_callee(*e);
    if (!group) return;
    GroupPlan plan;
    plan.site = downcast<CallNode>(e);
    plan.primitive = downcast<FunctionNode>(plan.site->op);
    plan.calls = op_calls(*group);
    for (size_t t = 0; t < targets.size(); ++t)
      if (plan.calls.empty() ? t == ref : supports_all(*targets[t].target, plan.calls)) plan.takers.push_back(t);
    for (const Call& c : plan.calls) {
      bool listed = false;
      for (size_t t = 0; t < ref && !listed; ++t) listed = targets[t].target->supports(c);
      plan.listed_support.push_back(listed);
    }
    result.groups.push_back(std::move(plan));
  });
  return result;
}

}  // namespace weft::build_detail
