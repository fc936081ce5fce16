// Structural equality and hashing with variable mapping, iterative on deep graphs.
#include "weft/structural.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "weft/functor.h"

namespace weft {

namespace {

size_t combine(size_t seed, size_t h) { return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

struct PairHash {
  size_t operator()(const std::pair<const ExprNode*, const ExprNode*>& p) const noexcept {
    return combine(std::hash<const void*>()(p.first), std::hash<const void*>()(p.second));
  }
};

// Compares two graphs with an explicit work list. A pair is compared once, so
// shared subgraphs are not re-walked. Binding sites (Function params, Let vars)
// record the variable correspondence before their bodies are compared; a work
// list processed depth first sees a binder before any use inside its scope.
class StructuralEqual {
 public:
  explicit StructuralEqual(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  bool run(const Expr& a, const Expr& b) {
    push(a, b);
    while (!work_.empty()) {
      auto [x, y] = work_.back();
      work_.pop_back();
      if (!compare(*x, *y)) return false;
    }
    return ok_;
  }

 private:
  void push(const Expr& a, const Expr& b) {
    if (!a || !b) {
      ok_ = ok_ && !a && !b;
      return;
    }
    if (!seen_.insert({a.get(), b.get()}).second) return;
    work_.emplace_back(a.get(), b.get());
  }

  // Declares that a (in the left graph) and b (right) are the same variable.
  bool bind(const VarNode& a, const VarNode& b) {
    if (!type_equal(a.type_annotation, b.type_annotation)) return false;
    lhs_[&a] = &b;
    rhs_[&b] = &a;
    return true;
  }

  bool compare_var(const VarNode& a, const VarNode& b) {
    auto l = lhs_.find(&a);
    auto r = rhs_.find(&b);
    if (l != lhs_.end() || r != rhs_.end())
      return l != lhs_.end() && r != rhs_.end() && l->second == &b && r->second == &a;
    if (&a == &b) return true;  // the same free variable
    return map_free_vars_ && bind(a, b);
  }

  bool compare(const ExprNode& a, const ExprNode& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case ExprKind::kVar:
        return compare_var(static_cast<const VarNode&>(a), static_cast<const VarNode&>(b));
      case ExprKind::kGlobalVar:
        return static_cast<const GlobalVarNode&>(a).name == static_cast<const GlobalVarNode&>(b).name;
      case ExprKind::kConstant:
        return static_cast<const ConstantNode&>(a).data.bitwise_equal(static_cast<const ConstantNode&>(b).data);
      case ExprKind::kOp:
        return static_cast<const OpNode&>(a).def == static_cast<const OpNode&>(b).def;
      case ExprKind::kCall: {
        auto& x = static_cast<const CallNode&>(a);
        auto& y = static_cast<const CallNode&>(b);
        if (x.args.size() != y.args.size() || !attrs_equal(x.attrs, y.attrs)) return false;
        // Pushed in reverse so the work list compares them in evaluation order.
        for (size_t i = x.args.size(); i-- > 0;) push(x.args[i], y.args[i]);
        push(x.op, y.op);
        return ok_;
      }
      case ExprKind::kFunction: {
        auto& x = static_cast<const FunctionNode&>(a);
        auto& y = static_cast<const FunctionNode&>(b);
        if (x.params.size() != y.params.size() || !type_equal(x.ret_type, y.ret_type) ||
            !attrs_equal(x.attrs, y.attrs))
          return false;
        for (size_t i = 0; i < x.params.size(); ++i)
          if (!bind(*x.params[i], *y.params[i])) return false;
        push(x.body, y.body);
        return ok_;
      }
      case ExprKind::kTuple: {
        auto& x = static_cast<const TupleNode&>(a).fields;
        auto& y = static_cast<const TupleNode&>(b).fields;
        if (x.size() != y.size()) return false;
        for (size_t i = x.size(); i-- > 0;) push(x[i], y[i]);
        return ok_;
      }
      case ExprKind::kTupleGetItem: {
        auto& x = static_cast<const TupleGetItemNode&>(a);
        auto& y = static_cast<const TupleGetItemNode&>(b);
        if (x.index != y.index) return false;
        push(x.tuple, y.tuple);
        return ok_;
      }
      case ExprKind::kLet: {
        auto& x = static_cast<const LetNode&>(a);
        auto& y = static_cast<const LetNode&>(b);
        if (!bind(*x.var, *y.var)) return false;
        push(x.body, y.body);
        push(x.value, y.value);
        return ok_;
      }
      case ExprKind::kIf: {
        auto& x = static_cast<const IfNode&>(a);
        auto& y = static_cast<const IfNode&>(b);
        push(x.else_branch, y.else_branch);
        push(x.then_branch, y.then_branch);
        push(x.cond, y.cond);
        return ok_;
      }
    }
    return false;
  }

  bool map_free_vars_;
  bool ok_ = true;
  std::vector<std::pair<const ExprNode*, const ExprNode*>> work_;
  std::unordered_set<std::pair<const ExprNode*, const ExprNode*>, PairHash> seen_;
  std::unordered_map<const VarNode*, const VarNode*> lhs_, rhs_;
};

// Hashes bottom-up with a memo. Variables hash by position, never identity:
// a free variable by the order in which a pre-order walk (binders before their
// scopes, children in evaluation order) first meets it, which corresponds
// between equal graphs; a bound variable by its place in its binder (param i,
// or 0 for a let), which stays the same whether a binder is shared or copied.
class StructuralHash {
 public:
  size_t run(const Expr& root) {
    number_vars(root);
    std::unordered_map<const ExprNode*, size_t> memo;
    detail::post_order(
        root, [&](const ExprNode* n) { return memo.count(n) > 0; },
        [&](const ExprNode* n) { memo.emplace(n, hash_node(*n, memo)); });
    return memo.at(root.get());
  }

 private:
  void number_vars(const Expr& root) {
    std::unordered_set<const ExprNode*> seen;
    std::vector<const ExprNode*> stack{root.get()};
    std::vector<const ExprNode*> children;
    size_t next_free = 0;
    while (!stack.empty()) {
      const ExprNode* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      if (n->kind == ExprKind::kFunction) {
        const auto& params = static_cast<const FunctionNode*>(n)->params;
        for (size_t i = 0; i < params.size(); ++i) var_key_.emplace(params[i].get(), combine(0xb0, i));
      } else if (n->kind == ExprKind::kLet) {
        var_key_.emplace(static_cast<const LetNode*>(n)->var.get(), combine(0xb0, 0));
      } else if (n->kind == ExprKind::kVar && !var_key_.count(n)) {
        var_key_.emplace(n, combine(0xf0, next_free++));  // not bound by the time it is used: free
      }
      children.clear();
      for_each_child(*n, [&](const Expr& c) { children.push_back(c.get()); });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
  }

  size_t hash_node(const ExprNode& n, const std::unordered_map<const ExprNode*, size_t>& memo) {
    auto child = [&](const Expr& e) { return memo.at(e.get()); };
    size_t h = combine(0x51ed27, static_cast<size_t>(n.kind));
    switch (n.kind) {
      case ExprKind::kVar:
        return combine(combine(h, var_key_.at(&n)), type_hash(static_cast<const VarNode&>(n).type_annotation));
      case ExprKind::kGlobalVar:
        return combine(h, std::hash<std::string>()(static_cast<const GlobalVarNode&>(n).name));
      case ExprKind::kConstant: {
        const Tensor& t = static_cast<const ConstantNode&>(n).data;
        h = combine(h, (size_t{t.dtype().code} << 24) | (size_t{t.dtype().bits} << 16) | t.dtype().lanes);
        for (int64_t d : t.shape()) h = combine(h, std::hash<int64_t>()(d));
        return combine(h, std::hash<std::string_view>()(
                              std::string_view(static_cast<const char*>(t.data()), t.nbytes())));
      }
      case ExprKind::kOp:
        return combine(h, std::hash<std::string>()(static_cast<const OpNode&>(n).name()));
      case ExprKind::kCall: {
        auto& c = static_cast<const CallNode&>(n);
        h = combine(h, child(c.op));
        for (const auto& a : c.args) h = combine(h, child(a));
        return combine(combine(h, c.args.size()), attrs_hash(c.attrs));
      }
      case ExprKind::kFunction: {
        auto& f = static_cast<const FunctionNode&>(n);
        for (const auto& p : f.params) h = combine(h, child(p));
        h = combine(combine(h, f.params.size()), child(f.body));
        return combine(combine(h, type_hash(f.ret_type)), attrs_hash(f.attrs));
      }
      case ExprKind::kTuple: {
        auto& t = static_cast<const TupleNode&>(n);
        for (const auto& f : t.fields) h = combine(h, child(f));
        return combine(h, t.fields.size());
      }
      case ExprKind::kTupleGetItem: {
        auto& t = static_cast<const TupleGetItemNode&>(n);
        return combine(combine(h, child(t.tuple)), static_cast<size_t>(t.index));
      }
      case ExprKind::kLet: {
        auto& l = static_cast<const LetNode&>(n);
        return combine(combine(combine(h, child(l.var)), child(l.value)), child(l.body));
      }
      case ExprKind::kIf: {
        auto& i = static_cast<const IfNode&>(n);
        return combine(combine(combine(h, child(i.cond)), child(i.then_branch)), child(i.else_branch));
      }
    }
    return h;
  }

  std::unordered_map<const ExprNode*, size_t> var_key_;
};

}  // namespace

bool structural_equal(const Expr& a, const Expr& b, bool map_free_vars) {
  if (!a || !b) return !a && !b;
  return StructuralEqual(map_free_vars).run(a, b);
}

bool structural_equal(const IRModule& a, const IRModule& b) {
  if (a.functions().size() != b.functions().size()) return false;
  for (const auto& [gv, fn] : a.functions()) {
    if (!b.contains(gv->name)) return false;
    if (!structural_equal(fn, b.lookup(gv->name), /*map_free_vars=*/false)) return false;
  }
  return true;
}

size_t structural_hash(const Expr& e) {
  if (!e) return 0;
  return StructuralHash().run(e);
}

size_t structural_hash(const IRModule& m) {
  // Order-free, like equality: definitions match by name.
  size_t h = 0;
  for (const auto& [gv, fn] : m.functions()) h += combine(std::hash<std::string>()(gv->name), structural_hash(fn));
  return combine(h, m.functions().size());
}

}  // namespace weft
