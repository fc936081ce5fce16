// FoldConstant, as Relay's ConstantFolder: every op call whose arguments are
// all constants (or tuples of constants) runs once on its reference kernel and
// is replaced by its value; see passes.h for what it leaves alone.
//
// Each foldable call is evaluated on its own, directly on the constants'
// tensors, with its output type from the op's relation: no module is re-typed
// and no constant is copied, so binding 25 M parameters costs nothing here.
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "snippet.h"
#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/op.h"
#include "weft/passes.h"

namespace weft {

namespace {

bool is_primitive(const FunctionNode& fn) {
  const AttrValue* v = fn.attrs ? fn.attrs->find("Primitive") : nullptr;
  return v && v->type() == AttrType::kInt && v->as_int() != 0;
}

TensorType type_of(const Tensor& t) { return tensor_type(t.shape(), t.dtype()); }

/// A constant expression for an op's output value (a tuple of constants for a
/// tuple output).
Expr to_expr(const Value& v) {
  if (v.is_tensor()) return constant(v.tensor());
  std::vector<Expr> fields;
  for (const Value& f : v.fields()) fields.push_back(to_expr(f));
  return tuple(std::move(fields));
}

class ConstantFolder : public ExprMutator {
 public:
  ConstantFolder(const Function& fn, bool reuse_constant_storage) : reuse_storage_(reuse_constant_storage) {
    survey(fn);
  }

  /// How many op calls were replaced by their values.
  int64_t folded_calls() const { return folded_calls_; }

 protected:
  Expr visit_var(const Var& v) override {
    if (auto it = substitutes_.find(v.get()); it != substitutes_.end()) return it->second;
    return settle(v, v);
  }

  Expr visit_constant(const Constant& c) override { return settle(c, c); }

  Expr visit_tuple(const Tuple& t) override {
    if (frozen_.count(t.get())) return t;
    Expr rebuilt = ExprMutator::visit_tuple(t);
    // A tuple of constants is an argument a kernel can take: keep its value.
    std::vector<Value> values;
    std::vector<Type> types;
    for (const Expr& f : rebuilt.as<TupleNode>()->fields) {
      if (!constant_value(f, values, types)) return rebuilt;
    }
    tuple_values_.emplace(rebuilt.get(), ConstantValue{Value::tuple(std::move(values)), tuple_type(std::move(types))});
    return rebuilt;
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    if (frozen_.count(t.get())) return t;
    Expr rebuilt = ExprMutator::visit_tuple_get_item(t);
    auto* item = rebuilt.as<TupleGetItemNode>();
    auto* literal = item->tuple.as<TupleNode>();
    // An index out of range stays for the well-formedness check to report.
    if (!literal || item->index < 0 || static_cast<size_t>(item->index) >= literal->fields.size()) return rebuilt;
    return settle(t, literal->fields[item->index]);
  }

  Expr visit_let(const Let& l) override {
    if (frozen_.count(l.get())) return l;
    // The bound constant was inlined at every use: the binding goes.
    if (substitutes_.count(l->var.get())) return settle(l, visit(l->body));
    return settle(l, ExprMutator::visit_let(l));
  }

  Expr visit_if(const If& i) override {
    if (frozen_.count(i.get())) return i;
    Expr rebuilt = ExprMutator::visit_if(i);
    auto* node = rebuilt.as<IfNode>();
    auto* cond = node->cond.as<ConstantNode>();
    if (!cond || cond->data.numel() != 1) return rebuilt;
    return settle(i, cond->data.element_as_double(0) != 0.0 ? node->then_branch : node->else_branch);
  }

  Expr visit_call(const Call& c) override {
    if (frozen_.count(c.get())) return c;
    Expr rebuilt = ExprMutator::visit_call(c);
    return settle(c, fold(downcast<CallNode>(rebuilt)));
  }

 private:
  struct ConstantValue {
    Value value;
    Type type;
  };

  // Which lets bind which values, and which nodes lie inside Primitive
  // functions (left exactly as they are, as Relay's folder leaves them).
  void survey(const Function& fn) {
    std::vector<Function> primitives;
    post_order_visit(fn, [&](const Expr& e) {
      if (auto* l = e.as<LetNode>()) let_values_.emplace(l->value.get(), l->var.get());
      for_each_child(*e, [&](const Expr& c) {
        if (c->kind == ExprKind::kConstant) ++constant_uses_[c.get()];
      });
      if (auto* f = e.as<FunctionNode>(); f && is_primitive(*f)) primitives.push_back(downcast<FunctionNode>(e));
    });
    for (const Function& p : primitives)
      detail::post_order(
          p, [&](const ExprNode* n) { return frozen_.count(n) > 0; }, [&](const ExprNode* n) { frozen_.insert(n); });
  }

  // Appends the value and type of `e` if it is a constant or a tuple of them.
  bool constant_value(const Expr& e, std::vector<Value>& values, std::vector<Type>& types) const {
    if (auto* c = e.as<ConstantNode>()) {
      values.emplace_back(c->data);
      types.push_back(type_of(c->data));
      return true;
    }
    auto it = tuple_values_.find(e.get());
    if (it == tuple_values_.end()) return false;
    values.push_back(it->second.value);
    types.push_back(it->second.type);
    return true;
  }

  // The value of an op call whose arguments are all constants; the call
  // itself when it is not to be folded.
  Expr fold(const Call& call) {
    auto* op = call->op.as<OpNode>();
    // Calls of functions and closures are not evaluated; nor are calls without
    // arguments (Relay's heuristic: folding zeros(shape=...) only grows the
    // program), nor ops without a kernel to run them.
    if (!op || call->args.empty() || !op->def->kernel) return call;
    std::vector<Value> values;
    std::vector<Type> types;
    for (const Expr& a : call->args)
      if (!constant_value(a, values, types)) return call;
    const OpDef& def = *op->def;
    Type out;
    try {
      out = def.relation(types, call->attrs ? call->attrs : empty_attrs());
    } catch (Error& err) {
      if (err.op_name().empty()) err.op(def.name);
      throw err.in(detail::expr_snippet(call)).note("while FoldConstant evaluated the call on its constant arguments");
    }
    // An output the interpreter cannot allocate (a `?` extent) stays a call.
    if (!out || !all_static(out)) return call;
    values.clear();  // the arguments' tensors: only the call's constants hold them now
    types.clear();
    if (std::optional<Tensor> reused = fold_into_argument(call, def, out)) {
      ++folded_calls_;
      return constant(*reused);
    }
    for (const Expr& a : call->args) constant_value(a, values, types);
    Value result = run_op(call, values, out);
    ++folded_calls_;
    return to_expr(result);
  }

  // With the build's leave (PassContext::reuse_constant_storage), a call
  // writes its value over a constant argument of as many elements of the
  // output's dtype that is used only here, whose tensor nothing else holds (a
  // weight scaled by folded batch norm, or moved into a target's blocked
  // layout) and whose memory weft allocated (never a caller's DLPack
  // memory): the old and the new weights are then never both in memory.
  // Elementwise and broadcast kernels of the output's shape run in place, as
  // the executor runs them; any other kernel reads a copy of the argument
  // while it writes the original's bytes, so one weight is held twice at a
  // time, not all of them.
  std::optional<Tensor> fold_into_argument(const Call& call, const OpDef& def, const Type& out) {
    auto* out_type = out.as<TensorTypeNode>();
    if (!reuse_storage_ || !out_type) return std::nullopt;
    std::vector<Tensor> inputs;
    for (const Expr& a : call->args) {
      auto* c = a.as<ConstantNode>();
      if (!c) return std::nullopt;  // a tuple of constants
      inputs.push_back(c->data);
    }
    const bool reads_before_writing = def.pattern == OpPattern::kElemWise || def.pattern == OpPattern::kBroadcast;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& candidate = inputs[i];
      // The call's own handle (inputs[i]) and the constant's.
      if (!candidate.owns_memory() || candidate.use_count() != 2 || constant_uses_[call->args[i].get()] != 1)
        continue;
      if (out_type->dtype != candidate.dtype() || out_type->numel() != candidate.numel()) continue;
      const bool in_place = reads_before_writing && out_type->shape == candidate.shape();
      Tensor target = candidate.reshaped(out_type->shape);
      if (!in_place) inputs[i] = candidate.clone();
      run_kernel(call, inputs, std::span<const Tensor>(&target, 1));
      return target;
    }
    return std::nullopt;
  }

  static bool all_static(const Type& t) {
    if (auto* tt = t.as<TensorTypeNode>()) return tt->is_static();
    auto* tup = t.as<TupleTypeNode>();
    if (!tup) return false;
    for (const Type& f : tup->fields)
      if (!all_static(f)) return false;
    return true;
  }

  // Records what `original` became; when it is the value of lets and became a
  // constant, their variables become that constant at every use (as Relay
  // inlines let-bound constants), and so do variables bound to them.
  Expr settle(const Expr& original, Expr result) {
    if (result->kind != ExprKind::kConstant) return result;
    std::vector<const ExprNode*> bound{original.get()};
    while (!bound.empty()) {
      const ExprNode* value = bound.back();
      bound.pop_back();
      auto [begin, end] = let_values_.equal_range(value);
      for (auto it = begin; it != end; ++it) {
        const VarNode* v = it->second;
        if (frozen_.count(v) || !substitutes_.emplace(v, result).second) continue;
        constant_uses_[result.get()] += 2;  // read wherever the variable is: never folded into
        // The variable was visited before its value (as the let's binding):
        // its uses, visited after, see the constant.
        if (auto m = memo_.find(v); m != memo_.end()) m->second = result;
        bound.push_back(v);
      }
    }
    return result;
  }

  const bool reuse_storage_;
  // How many edges of the function lead to each constant node.
  std::unordered_map<const ExprNode*, int> constant_uses_;
  std::unordered_multimap<const ExprNode*, const VarNode*> let_values_;
  std::unordered_set<const ExprNode*> frozen_;
  std::unordered_map<const VarNode*, Expr> substitutes_;
  std::unordered_map<const ExprNode*, ConstantValue> tuple_values_;
  int64_t folded_calls_ = 0;
};

}  // namespace

Pass FoldConstant() {
  return create_function_pass({"FoldConstant", 2, {}}, [](Function fn, const IRModule&, const PassContext& ctx) {
    ConstantFolder folder(fn, ctx.reuse_constant_storage);
    Function folded = downcast<FunctionNode>(folder.mutate(fn));
    ctx.add_statistic("FoldConstant", "folded calls", folder.folded_calls());
    return folded;
  });
}

}  // namespace weft
