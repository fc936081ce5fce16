// ToANormalForm: every non-atomic expression (calls, tuples, projections,
// constants, ifs, closures) bound by a let in the innermost scope common to
// its uses, as Relay's (src/relay/transforms/to_a_normal_form.cc: a
// dependency graph with a scope per function body, let body and if branch;
// each node's scope the lowest common ancestor of its users'; then Fill). Both
// phases run on explicit stacks, so deep graphs need no deep recursion.
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

bool is_primitive(const FunctionNode& f) {
  const AttrValue* v = f.attrs ? f.attrs->find("Primitive") : nullptr;
  return v && v->type() == AttrType::kInt && v->as_int() != 0;
}

// The dependency graph of one function and the scope of each of its nodes.
class Scopes {
 public:
  explicit Scopes(const Expr& root) {
    node_of(root.get());
    for (size_t i = 0; i < exprs_.size(); ++i) add_edges(i);
    assign();
  }

  /// The scope an expression's binding goes to.
  int scope(const ExprNode* e) const { return scope_[ids_.at(e)]; }
  /// The scope of an expression's i-th scope child (if branches 1 and 2, a
  /// function's or let's body 0), as Relay's GetSubScope.
  int sub_scope(const ExprNode* e, size_t i) const { return scope_[children_[ids_.at(e)].at(i)]; }

 private:
  int node_of(const ExprNode* e) {
    auto [it, fresh] = ids_.try_emplace(e, static_cast<int>(children_.size()));
    if (fresh) {
      exprs_.push_back(static_cast<int>(children_.size()));
      expr_at_.push_back(e);
      new_node(false);
    }
    return it->second;
  }
  int new_node(bool new_scope) {
    children_.emplace_back();
    parents_.emplace_back();
    opens_scope_.push_back(new_scope);
    if (!new_scope) return static_cast<int>(children_.size()) - 1;
    expr_at_.push_back(nullptr);
    return static_cast<int>(children_.size()) - 1;
  }
  void depend(int parent, int child) {
    children_[parent].push_back(child);
    parents_[child].push_back(parent);
  }
  void depend(int parent, const Expr& child) { depend(parent, node_of(child.get())); }
  // A scope node between `parent` and the expressions it encloses.
  int scope_node(int parent) {
    int s = new_node(true);
    depend(parent, s);
    return s;
  }

  void add_edges(size_t index) {
    const int n = exprs_[index];
    const ExprNode& e = *expr_at_[n];
    switch (e.kind) {
      case ExprKind::kCall: {
        auto& c = static_cast<const CallNode&>(e);
        depend(n, c.op);
        for (const Expr& a : c.args) depend(n, a);
        break;
      }
      case ExprKind::kTuple:
        for (const Expr& f : static_cast<const TupleNode&>(e).fields) depend(n, f);
        break;
      case ExprKind::kTupleGetItem:
        depend(n, static_cast<const TupleGetItemNode&>(e).tuple);
        break;
      case ExprKind::kIf: {
        auto& i = static_cast<const IfNode&>(e);
        depend(n, i.cond);
        int t = scope_node(n), f = scope_node(n);
        depend(t, i.then_branch);
        depend(f, i.else_branch);
        break;
      }
      case ExprKind::kFunction: {
        auto& f = static_cast<const FunctionNode&>(e);
        int b = scope_node(n);
        for (const Var& p : f.params) depend(b, p);
        depend(b, f.body);
        break;
      }
      case ExprKind::kLet: {
        auto& l = static_cast<const LetNode&>(e);
        int b = scope_node(n);
        depend(b, l.var);
        depend(b, l.value);
        depend(b, l.body);
        break;
      }
      default:
        break;
    }
  }

  int lca(int a, int b) const {
    while (a != b) {
      if (level_[a] > level_[b]) a = parent_scope_[a];
      else if (level_[a] < level_[b]) b = parent_scope_[b];
      else a = parent_scope_[a], b = parent_scope_[b];
    }
    return a;
  }

  // Parents before children (Kahn's order): each node's scope is the lowest
  // common ancestor of its parents'; a scope node opens a child scope.
  void assign() {
    const size_t count = children_.size();
    scope_.assign(count, -1);
    parent_scope_ = {-1};
    level_ = {0};
    std::vector<size_t> waiting(count);
    std::vector<int> ready;
    for (size_t n = 0; n < count; ++n) {
      waiting[n] = parents_[n].size();
      if (waiting[n] == 0) ready.push_back(static_cast<int>(n));
    }
    WEFT_ICHECK(ready.size() == 1, "ToANormalForm: the dependency graph has more than one root");
    while (!ready.empty()) {
      int n = ready.back();
      ready.pop_back();
      int s = 0;  // the global scope, for the root
      if (!parents_[n].empty()) {
        s = scope_[parents_[n][0]];
        for (size_t i = 1; i < parents_[n].size(); ++i) s = lca(s, scope_[parents_[n][i]]);
      }
      if (opens_scope_[n]) {
        parent_scope_.push_back(s);
        level_.push_back(level_[s] + 1);
        s = static_cast<int>(level_.size()) - 1;
      }
      scope_[n] = s;
      for (int c : children_[n])
        if (--waiting[c] == 0) ready.push_back(c);
    }
  }

  std::unordered_map<const ExprNode*, int> ids_;
  std::vector<int> exprs_;                  // graph nodes that are expressions, in discovery order
  std::vector<const ExprNode*> expr_at_;    // per graph node; null for scope nodes
  std::vector<std::vector<int>> children_, parents_;
  std::vector<bool> opens_scope_;
  std::vector<int> scope_;                  // per graph node
  std::vector<int> parent_scope_, level_;   // per scope; scope 0 is the global one
};

// Relay's Fill: visits in its order (a call's arguments, then its callee; an
// if's condition, then its branches; a let's value bound to the let's own
// variable, then its body), pushing each compound expression onto the let
// list of its scope, and wraps each scope's bindings around its result.
class Filler {
 public:
  Filler(const Function& root, const Scopes& scopes) : root_(root.get()), scopes_(scopes) {}

  Expr run() {
    struct Frame {
      Expr node;
      Var bind_to;  // the let variable its value must be bound to, if any
      std::vector<Expr> children;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    stack.push_back({Expr(root_), Var(), visited_children(*root_)});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children.size()) {
        Expr child = top.children[top.next];
        Var bind_to = top.node->kind == ExprKind::kLet && top.next == 0
                          ? static_cast<const LetNode&>(*top.node).var
                          : Var();
        ++top.next;
        if (auto it = memo_.find(child.get()); it != memo_.end()) {
          if (bind_to) push(scopes_.scope(child.get()), bind_to, it->second);
        } else {
          std::vector<Expr> grandchildren = visited_children(*child);
          stack.push_back({child, bind_to, std::move(grandchildren)});
        }
        continue;
      }
      Frame done = std::move(stack.back());
      stack.pop_back();
      memo_.emplace(done.node.get(), fill(done.node, done.bind_to));
    }
    return memo_.at(root_);
  }

 private:
  static std::vector<Expr> visited_children(const ExprNode& e) {
    switch (e.kind) {
      case ExprKind::kCall: {
        auto& c = static_cast<const CallNode&>(e);
        std::vector<Expr> out(c.args.begin(), c.args.end());
        out.push_back(c.op);
        return out;
      }
      case ExprKind::kTuple: return static_cast<const TupleNode&>(e).fields;
      case ExprKind::kTupleGetItem: return {static_cast<const TupleGetItemNode&>(e).tuple};
      case ExprKind::kIf: {
        auto& i = static_cast<const IfNode&>(e);
        return {i.cond, i.then_branch, i.else_branch};
      }
      case ExprKind::kFunction: {
        auto& f = static_cast<const FunctionNode&>(e);
        if (is_primitive(f)) return {};
        return {f.body};
      }
      case ExprKind::kLet: {
        auto& l = static_cast<const LetNode&>(e);
        return {l.value, l.body};
      }
      default: return {};
    }
  }

  Var push(int scope, Var v, Expr value) {
    if (static_cast<size_t>(scope) >= lets_.size()) lets_.resize(static_cast<size_t>(scope) + 1);
    lets_[static_cast<size_t>(scope)].emplace_back(v, std::move(value));
    return v;
  }

  // The bindings of `scope` wrapped around `body` (and the list emptied).
  Expr wrap(int scope, Expr body) {
    if (static_cast<size_t>(scope) >= lets_.size()) return body;
    auto bindings = std::move(lets_[static_cast<size_t>(scope)]);
    lets_[static_cast<size_t>(scope)].clear();
    for (size_t i = bindings.size(); i-- > 0;) body = let(bindings[i].first, bindings[i].second, body);
    return body;
  }

  Expr atomic(const Expr& e, const Var& v) { return v ? Expr(push(scopes_.scope(e.get()), v, e)) : e; }

  // Binds `now` (what `orig` became) in orig's scope; a let's own bindings move
  // into that scope, its body is what gets bound.
  Expr compound(const Expr& orig, Expr now, const Var& v) {
    const int scope = scopes_.scope(orig.get());
    Var bound = v ? v : var("x");
    while (auto* inner = now.as<LetNode>()) {
      push(scope, inner->var, inner->value);
      now = inner->body;
    }
    return push(scope, bound, std::move(now));
  }

  Expr get(const Expr& e) const { return memo_.at(e.get()); }

  Expr fill(const Expr& e, const Var& v) {
    switch (e->kind) {
      case ExprKind::kVar:
      case ExprKind::kGlobalVar:
      case ExprKind::kOp:
        return atomic(e, v);
      case ExprKind::kConstant:
        return compound(e, e, v);
      case ExprKind::kCall: {
        auto& c = static_cast<const CallNode&>(*e);
        std::vector<Expr> args;
        for (const Expr& a : c.args) args.push_back(get(a));
        return compound(e, Expr(Ref<CallNode>(new CallNode(get(c.op), std::move(args), c.attrs))), v);
      }
      case ExprKind::kTuple: {
        std::vector<Expr> fields;
        for (const Expr& f : static_cast<const TupleNode&>(*e).fields) fields.push_back(get(f));
        return compound(e, tuple(std::move(fields)), v);
      }
      case ExprKind::kTupleGetItem: {
        auto& t = static_cast<const TupleGetItemNode&>(*e);
        return compound(e, get_item(get(t.tuple), t.index), v);
      }
      case ExprKind::kIf: {
        auto& i = static_cast<const IfNode&>(*e);
        Expr then_branch = wrap(scopes_.sub_scope(e.get(), 1), get(i.then_branch));
        Expr else_branch = wrap(scopes_.sub_scope(e.get(), 2), get(i.else_branch));
        return compound(e, if_then_else(get(i.cond), then_branch, else_branch), v);
      }
      case ExprKind::kFunction: {
        auto& f = static_cast<const FunctionNode&>(*e);
        Expr out = e;
        if (!is_primitive(f)) out = function(f.params, wrap(scopes_.sub_scope(e.get(), 0), get(f.body)), f.ret_type, f.attrs);
        if (e.get() == root_) return out;  // a module function: bound by the module
        return compound(e, out, v);
      }
      case ExprKind::kLet: {
        auto& l = static_cast<const LetNode&>(*e);
        return compound(e, wrap(scopes_.sub_scope(e.get(), 0), get(l.body)), v);
      }
    }
    throw InternalError(__FILE__, __LINE__, "unknown expression kind");
  }

  const ExprNode* root_;
  const Scopes& scopes_;
  std::unordered_map<const ExprNode*, Expr> memo_;
  std::vector<std::vector<std::pair<Var, Expr>>> lets_;  // per scope, in push order
};

}  // namespace

Function to_a_normal_form(const Function& fn) {
  Scopes scopes(fn);
  return downcast<FunctionNode>(Filler(fn, scopes).run());
}

Pass ToANormalForm() {
  return create_module_pass({"ToANormalForm", 1, {}}, [](IRModule mod, const PassContext&) {
    IRModule out = mod;
    for (const auto& [gv, fn] : mod.functions()) {
      const AttrValue* compiler = fn->attrs ? fn->attrs->find("Compiler") : nullptr;
      if (compiler && !compiler->is_none()) continue;  // external code, as Relay
      out.add(gv, to_a_normal_form(fn));
    }
    return out;
  });
}

}  // namespace weft
