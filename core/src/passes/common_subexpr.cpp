// Common subexpression elimination, as Relay's EliminateCommonSubexpr, but
// never merging across a function boundary (see passes.h).
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

size_t mix(size_t seed, size_t value) { return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

const ConstantNode* scalar_constant(const Expr& e) {
  auto* c = e.as<ConstantNode>();
  return c && c->data.ndim() == 0 ? c : nullptr;
}

// Arguments are the same value: one node, equal scalar constants, or tuples
// whose fields are the same in that sense (Relay's IsEquivalent).
bool same_operand(const Expr& a, const Expr& b, bool look_into_tuples = true) {
  if (a.same_as(b)) return true;
  auto *ca = scalar_constant(a), *cb = scalar_constant(b);
  if (ca && cb) return ca->data.bitwise_equal(cb->data);
  auto *ta = a.as<TupleNode>(), *tb = b.as<TupleNode>();
  if (!look_into_tuples || !ta || !tb || ta->fields.size() != tb->fields.size()) return false;
  for (size_t i = 0; i < ta->fields.size(); ++i)
    if (!same_operand(ta->fields[i], tb->fields[i], false)) return false;
  return true;
}

// Consistent with same_operand.
size_t operand_hash(const Expr& e, bool look_into_tuples = true) {
  if (auto* c = scalar_constant(e)) {
    const auto* bytes = static_cast<const unsigned char*>(c->data.data());
    size_t h = std::hash<std::string>()(c->data.dtype().str());
    for (size_t i = 0; i < c->data.nbytes(); ++i) h = mix(h, bytes[i]);
    return h;
  }
  if (auto* t = e.as<TupleNode>(); t && look_into_tuples) {
    size_t h = t->fields.size();
    for (const Expr& f : t->fields) h = mix(h, operand_hash(f, false));
    return h;
  }
  return std::hash<const void*>()(e.get());
}

class CommonSubexprEliminator : public ExprMutator {
 public:
  explicit CommonSubexprEliminator(const Function& fn) { assign_scopes(fn); }
  /// Nodes replaced by an earlier equal one so far.
  int64_t merged() const { return merged_; }

 protected:
  Expr visit_call(const Call& c) override {
    Expr rebuilt = ExprMutator::visit_call(c);
    auto* call = rebuilt.as<CallNode>();
    if (call->op->kind != ExprKind::kOp || call->args.empty()) return rebuilt;
    size_t h = mix(std::hash<const void*>()(call->op.get()), attrs_hash(call->attrs));
    for (const Expr& a : call->args) h = mix(h, operand_hash(a));
    auto& bucket = calls_[{scopes_.at(c.get()), h}];
    for (const Expr& candidate : bucket) {
      if (equivalent(*call, *candidate.as<CallNode>())) {
        ++merged_;
        return candidate;
      }
    }
    bucket.push_back(rebuilt);
    return rebuilt;
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    Expr rebuilt = ExprMutator::visit_tuple_get_item(t);
    auto* item = rebuilt.as<TupleGetItemNode>();
    size_t h = mix(std::hash<const void*>()(item->tuple.get()), static_cast<size_t>(item->index));
    auto& bucket = items_[{scopes_.at(t.get()), h}];
    for (const Expr& candidate : bucket) {
      auto* other = candidate.as<TupleGetItemNode>();
      if (other->tuple.same_as(item->tuple) && other->index == item->index) {
        ++merged_;
        return candidate;
      }
    }
    bucket.push_back(rebuilt);
    return rebuilt;
  }

 private:
  struct Key {
    const ExprNode* scope;
    size_t hash;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return mix(std::hash<const void*>()(k.scope), k.hash); }
  };

  static bool equivalent(const CallNode& a, const CallNode& b) {
    if (!a.op.same_as(b.op) || a.args.size() != b.args.size() || !attrs_equal(a.attrs, b.attrs)) return false;
    for (size_t i = 0; i < a.args.size(); ++i)
      if (!same_operand(a.args[i], b.args[i])) return false;
    return true;
  }

  // The innermost function around each node (the first one to reach it).
  void assign_scopes(const Function& root) {
    std::vector<std::pair<const ExprNode*, const ExprNode*>> stack{{root.get(), nullptr}};
    while (!stack.empty()) {
      auto [node, scope] = stack.back();
      stack.pop_back();
      if (!scopes_.emplace(node, scope).second) continue;
      const ExprNode* inner = node->kind == ExprKind::kFunction ? node : scope;
      for_each_child(*node, [&](const Expr& c) { stack.emplace_back(c.get(), inner); });
    }
  }

  std::unordered_map<const ExprNode*, const ExprNode*> scopes_;
  std::unordered_map<Key, std::vector<Expr>, KeyHash> calls_, items_;
  int64_t merged_ = 0;
};

}  // namespace

Pass EliminateCommonSubexpr() {
  return create_function_pass({"EliminateCommonSubexpr", 3, {}},
                              [](Function fn, const IRModule&, const PassContext& ctx) {
                                CommonSubexprEliminator eliminator(fn);
                                Function out = downcast<FunctionNode>(eliminator.mutate(fn));
                                ctx.add_statistic("EliminateCommonSubexpr", "expressions merged", eliminator.merged());
                                return out;
                              });
}

}  // namespace weft
