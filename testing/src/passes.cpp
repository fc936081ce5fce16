#include "weft/testing/passes.h"

#include "weft/module.h"
#include "weft/passes.h"

namespace weft::testing {

Expr run_opt_pass(const Expr& expr, const Pass& pass) {
  IRModule mod = pass(IRModule::from_expr(expr));
  Function main = mod.main();
  if (expr->kind == ExprKind::kFunction) return main;
  return main->body;
}

Expr run_opt_pass(const Expr& expr, const std::vector<Pass>& passes) {
  return run_opt_pass(expr, sequential(passes));
}

Expr run_infer_type(const Expr& expr) { return run_opt_pass(expr, InferType()); }

}  // namespace weft::testing
