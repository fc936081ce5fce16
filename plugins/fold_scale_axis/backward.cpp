// BackwardFoldScaleAxis (Relay's BackwardPrep and BackwardTransformer): first,
// children first, each call used once learns along which axes its value may be
// scaled at its source; then, parents first, each multiply asks its operand to
// absorb the scale, and the request travels to the conv2d or dense that folds
// it into its weight; last, children first, the graph is rebuilt by the plans.
#include <unordered_map>

#include "op_rules.h"
#include "passes.h"

namespace weft::fold_scale_axis {

namespace {

using Messages = std::unordered_map<const weft_expr_t*, Message>;

Messages prepare(const std::vector<Expr>& nodes) {
  auto uses = use_counts(nodes);
  Messages messages;
  for (const Expr& n : nodes) {
    const OpRules* rules = op_rules(op_name(n));
    // Only a value used once can carry a scale back to where it is made.
    if (!rules || !rules->backward_prep || uses[key(n)] != 1) continue;
    std::vector<MaybeMessage> in;
    for (const Expr& a : n.args()) {
      auto it = messages.find(key(a));
      in.push_back(it == messages.end() ? MaybeMessage() : MaybeMessage(it->second));
    }
    if (MaybeMessage m = rules->backward_prep(n, in)) messages.emplace(key(n), *m);
  }
  return messages;
}

}  // namespace

Expr backward_fold(const Expr& function) {
  std::vector<Expr> nodes = post_order(function);
  Messages messages = prepare(nodes);
  if (messages.empty()) return function;
  MessageOf message_of = [&](const Expr& e) -> MaybeMessage {
    auto it = messages.find(key(e));
    return it == messages.end() ? MaybeMessage() : MaybeMessage(it->second);
  };
  std::unordered_map<const weft_expr_t*, ScaleRequest> requests;
  std::unordered_map<const weft_expr_t*, BackwardPlan> plans;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const OpRules* rules = op_rules(op_name(*it));
    if (!rules || !rules->backward_transform) continue;
    auto req = requests.find(key(*it));
    std::optional<ScaleRequest> request;
    if (req != requests.end()) request = req->second;
    std::optional<BackwardPlan> plan = rules->backward_transform(*it, request, message_of);
    if (!plan) continue;
    std::vector<Expr> args = it->args();
    for (size_t i = 0; i < args.size(); ++i)
      if (plan->requests[i]) requests.emplace(key(args[i]), *plan->requests[i]);
    plans.emplace(key(*it), std::move(*plan));
  }
  std::unordered_map<const weft_expr_t*, Expr> result;
  for (const Expr& n : nodes) {
    Expr built;
    if (auto p = plans.find(key(n)); p != plans.end()) {
      std::vector<Expr> args;
      for (const Expr& a : n.args()) args.push_back(result.at(key(a)));
      built = p->second.build(args);
    } else {
      std::vector<Expr> kids;
      for (const Expr& c : children(n)) kids.push_back(result.at(key(c)));
      built = rebuild(n, kids);
      // A scale asked of a node that cannot absorb it is applied right there
      // (Relay stops with "outstanding scale").
      if (auto r = requests.find(key(n)); r != requests.end())
        built = multiply(built, expand_to_axes(r->second.scale, static_cast<int64_t>(n.type().ndim()),
                                                r->second.message.axes));
    }
    result.emplace(key(n), built);
  }
  return result.at(key(function));
}

}  // namespace weft::fold_scale_axis
