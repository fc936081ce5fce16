// Well-formedness: every variable bound once and used only inside the scope
// that binds it, globals defined, literal or typed tuple indices in range.
// Like Relay's checker, a node shared by several places is checked in the
// first scope that reaches it.
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

struct Violation {
  std::string what;
};

class WellFormedChecker {
 public:
  /// mod: where globals are looked up (null for a lone expression, whose free
  /// variables are then allowed).
  explicit WellFormedChecker(const IRModule* mod) : mod_(mod) {}

  void check(const Expr& root) {
    // An explicit stack of tasks: visit a node, or close a variable's scope.
    struct Task {
      const ExprNode* node;
      const VarNode* unbind;
    };
    std::vector<Task> tasks{{root.get(), nullptr}};
    auto push = [&](const Expr& e) { tasks.push_back({e.get(), nullptr}); };
    while (!tasks.empty()) {
      Task task = tasks.back();
      tasks.pop_back();
      if (task.unbind) {
        in_scope_.erase(task.unbind);
        continue;
      }
      const ExprNode* n = task.node;
      if (n->kind == ExprKind::kVar) {
        use(static_cast<const VarNode*>(n));
        continue;
      }
      if (!visited_.insert(n).second) continue;
      switch (n->kind) {
        case ExprKind::kLet: {
          // The variable is in scope in its own value too, for recursive closures.
          auto* l = static_cast<const LetNode*>(n);
          bind(l->var.get());
          tasks.push_back({nullptr, l->var.get()});
          push(l->body);
          push(l->value);
          break;
        }
        case ExprKind::kFunction: {
          auto* f = static_cast<const FunctionNode*>(n);
          for (const Var& p : f->params) {
            bind(p.get());
            tasks.push_back({nullptr, p.get()});
          }
          push(f->body);
          break;
        }
        case ExprKind::kGlobalVar: {
          const std::string& name = static_cast<const GlobalVarNode*>(n)->name;
          if (mod_ && !mod_->contains(name)) throw Violation{"@" + name + " is not defined in the module"};
          break;
        }
        case ExprKind::kTupleGetItem: {
          auto* g = static_cast<const TupleGetItemNode*>(n);
          check_index(*g);
          push(g->tuple);
          break;
        }
        default: {
          std::vector<Expr> children;
          for_each_child(*n, [&](const Expr& c) { children.push_back(c); });
          for (auto it = children.rbegin(); it != children.rend(); ++it) push(*it);
          break;
        }
      }
    }
  }

  /// Variables used but bound nowhere around their use.
  void check_free_uses(bool allow_free) const {
    for (const VarNode* v : free_uses_) {
      if (bound_.count(v)) throw Violation{"variable %" + v->name_hint + " is used outside the scope that binds it"};
      if (!allow_free) throw Violation{"free variable %" + v->name_hint + " (bound nowhere)"};
    }
  }

 private:
  void bind(const VarNode* v) {
    if (!bound_.insert(v).second) throw Violation{"variable %" + v->name_hint + " is bound more than once"};
    in_scope_.insert(v);
  }

  void use(const VarNode* v) {
    if (in_scope_.count(v)) return;
    if (bound_.count(v)) throw Violation{"variable %" + v->name_hint + " is used outside the scope that binds it"};
    free_uses_.push_back(v);  // may still be bound later, out of this use's scope
  }

  static void check_index(const TupleGetItemNode& g) {
    size_t size = 0;
    if (auto* t = g.tuple.as<TupleNode>()) {
      size = t->fields.size();
    } else if (g.tuple->has_type() && g.tuple->checked_type()->kind == TypeKind::kTuple) {
      size = g.tuple->checked_type().as<TupleTypeNode>()->fields.size();
    } else {
      return;
    }
    if (g.index < 0 || static_cast<size_t>(g.index) >= size)
      throw Violation{"tuple index " + std::to_string(g.index) + " is out of range for a tuple of " +
                      std::to_string(size) + " fields"};
  }

  const IRModule* mod_;
  std::unordered_set<const VarNode*> bound_, in_scope_;
  std::vector<const VarNode*> free_uses_;
  std::unordered_set<const ExprNode*> visited_;  // the root keeps the nodes alive
};

}  // namespace

std::optional<std::string> well_formed_violation(const IRModule& mod) {
  for (const auto& [gv, fn] : mod.functions()) {
    try {
      WellFormedChecker checker(&mod);
      checker.check(fn);
      checker.check_free_uses(/*allow_free=*/false);
    } catch (const Violation& v) {
      return "in @" + gv->name + ": " + v.what;
    }
  }
  return std::nullopt;
}

std::optional<std::string> well_formed_violation(const Expr& expr) {
  try {
    WellFormedChecker checker(nullptr);
    checker.check(expr);
    checker.check_free_uses(/*allow_free=*/true);
  } catch (const Violation& v) {
    return v.what;
  }
  return std::nullopt;
}

Pass WellFormedCheck() {
  return create_module_pass({"WellFormedCheck", 0, {}}, [](IRModule mod, const PassContext&) {
    if (auto violation = well_formed_violation(mod)) throw Error("ill-formed module: " + *violation);
    return mod;
  });
}

}  // namespace weft
