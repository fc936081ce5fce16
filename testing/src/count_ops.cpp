#include "weft/testing/count_ops.h"

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

}  // namespace weft::testing
