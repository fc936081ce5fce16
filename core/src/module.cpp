// IRModule and free-variable analysis.
#include "weft/module.h"

#include <unordered_set>

#include "weft/functor.h"

namespace weft {

IRModule IRModule::from_function(Function fn) {
  IRModule mod;
  mod.add("main", std::move(fn));
  return mod;
}

IRModule IRModule::from_expr(const Expr& expr) {
  if (!expr) throw Error("cannot make a module from a null expression");
  if (auto fn = downcast<FunctionNode>(expr)) return from_function(fn);
  return from_function(function(free_vars(expr), expr));
}

void IRModule::add(const GlobalVar& gv, Function fn) {
  if (!gv) throw Error("module function with a null name");
  if (!fn) throw Error("module function @" + gv->name + " is null");
  for (auto& def : defs_) {
    if (def.first->name == gv->name) {
      def = {gv, std::move(fn)};
      return;
    }
  }
  defs_.emplace_back(gv, std::move(fn));
}

GlobalVar IRModule::add(std::string_view name, Function fn) {
  for (const auto& def : defs_) {
    if (def.first->name == name) {
      GlobalVar gv = def.first;
      add(gv, std::move(fn));
      return gv;
    }
  }
  GlobalVar gv = weft::global_var(std::string(name));
  add(gv, std::move(fn));
  return gv;
}

bool IRModule::contains(std::string_view name) const {
  for (const auto& def : defs_)
    if (def.first->name == name) return true;
  return false;
}

GlobalVar IRModule::global_var(std::string_view name) const {
  for (const auto& def : defs_)
    if (def.first->name == name) return def.first;
  throw Error("module has no function @" + std::string(name));
}

Function IRModule::lookup(std::string_view name) const {
  for (const auto& def : defs_)
    if (def.first->name == name) return def.second;
  throw Error("module has no function @" + std::string(name));
}

std::vector<Var> free_vars(const Expr& expr) {
  // As Relay's FreeVars: every Var reached, in first-use order, minus those a
  // Function or Let binds.
  std::unordered_set<const ExprNode*> bound;
  std::vector<Var> used;
  post_order_visit(expr, [&](const Expr& e) {
    switch (e->kind) {
      case ExprKind::kFunction:
        for (const auto& p : static_cast<const FunctionNode&>(*e).params) bound.insert(p.get());
        break;
      case ExprKind::kLet:
        bound.insert(static_cast<const LetNode&>(*e).var.get());
        break;
      case ExprKind::kVar:
        used.push_back(downcast<VarNode>(e));
        break;
      default:
        break;
    }
  });
  std::vector<Var> out;
  for (auto& v : used)
    if (!bound.count(v.get())) out.push_back(std::move(v));
  return out;
}

}  // namespace weft
