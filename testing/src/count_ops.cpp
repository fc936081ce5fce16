#include "weft/testing/count_ops.h"

#include <unordered_set>

#include "weft/functor.h"

namespace weft::testing {

std::map<std::string, int> count_ops(const Expr& expr) {
  std::map<std::string, int> counts;
  post_order_visit(expr, [&](const Expr& e) {
    if (e->kind != ExprKind::kCall) return;
    const auto& call = static_cast<const CallNode&>(*e);
    if (call.op->kind == ExprKind::kOp) ++counts[static_cast<const OpNode&>(*call.op).name()];
  });
  return counts;
}

std::map<std::string, int> count_ops(const IRModule& mod) { return count_ops(mod.main()); }

std::vector<const CallNode*> own_calls(const Function& fn) {
  std::unordered_set<const ExprNode*> nested;
  post_order_visit(fn->body, [&](const Expr& e) {
    if (auto* inner = e.as<FunctionNode>()) post_order_visit(inner->body, [&](const Expr& n) { nested.insert(n.get()); });
  });
  std::vector<const CallNode*> calls;
  post_order_visit(fn->body, [&](const Expr& e) {
    if (auto* call = e.as<CallNode>(); call && !nested.count(call)) calls.push_back(call);
  });
  return calls;
}

}  // namespace weft::testing
