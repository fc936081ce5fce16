// ForwardFoldScaleAxis (Relay's ForwardPrep and ForwardRewrite): first each
// node learns, from all its consumers, along which axes it may arrive scaled
// (parents before children); then, children first, multiplies become scaled
// values that flow down to the conv2d or dense that absorbs them.
#include <unordered_map>

#include "op_rules.h"
#include "passes.h"

namespace weft::fold_scale_axis {

namespace {

using Messages = std::unordered_map<const weft_expr_t*, MaybeMessage>;

// Consumers' messages meet: a node used where no scale may go takes none.
void update(Messages& messages, const Expr& node, const MaybeMessage& m) {
  auto [it, inserted] = messages.emplace(key(node), m);
  if (!inserted) it->second = intersect(it->second, m);
}

MaybeMessage message_at(const Messages& messages, const Expr& node) {
  auto it = messages.find(key(node));
  return it == messages.end() ? std::nullopt : it->second;
}

Messages prepare(const std::vector<Expr>& nodes) {
  Messages messages;
  update(messages, nodes.back(), std::nullopt);  // the function itself
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Expr& n = *it;
    switch (n.kind()) {
      case WEFT_EXPR_CALL: {
        const OpRules* rules = op_rules(op_name(n));
        std::vector<Expr> args = n.args();
        std::vector<MaybeMessage> in(args.size());
        if (rules && rules->forward_prep) in = rules->forward_prep(n, message_at(messages, n));
        for (size_t i = 0; i < args.size(); ++i) update(messages, args[i], in[i]);
        break;
      }
      case WEFT_EXPR_TUPLE_GET_ITEM:
        break;  // as Relay: a projection sends its tuple nothing
      default:
        // Tuples, lets, ifs and functions pass no scale into what they hold.
        for (const Expr& c : children(n)) update(messages, c, std::nullopt);
    }
  }
  return messages;
}

int64_t rank_of(const Expr& e) { return static_cast<int64_t>(e.type().ndim()); }

}  // namespace

Expr forward_fold(const Expr& function) {
  std::vector<Expr> nodes = post_order(function);
  Messages messages = prepare(nodes);
  bool any = false;
  for (const auto& [node, m] : messages) any = any || m.has_value();
  if (!any) return function;
  std::unordered_map<const weft_expr_t*, ForwardValue> result;
  for (const Expr& n : nodes) {
    if (const OpRules* rules = op_rules(op_name(n)); rules && rules->forward_rewrite) {
      std::vector<ForwardValue> args;
      for (const Expr& a : n.args()) args.push_back(result.at(key(a)));
      if (auto rewritten = rules->forward_rewrite(n, args, message_at(messages, n))) {
        result.emplace(key(n), *rewritten);
        continue;
      }
    }
    // Not rewritten: a scaled operand is multiplied out here.
    std::vector<Expr> kids;
    for (const Expr& c : children(n)) {
      const ForwardValue& v = result.at(key(c));
      kids.push_back(v.scaled() ? realize(v, rank_of(c)) : v.value);
    }
    result.emplace(key(n), ForwardValue{rebuild(n, kids), {}, Expr()});
  }
  return result.at(key(function)).value;
}

}  // namespace weft::fold_scale_axis
