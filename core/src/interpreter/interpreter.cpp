// The reference executor. Each function call gets a Frame: an environment of
// bound variables and a memo of evaluated expressions. Dataflow (calls, tuples,
// tuple access) is evaluated bottom-up from an explicit stack, so long chains
// do not recurse; let chains are walked in a loop; only the nesting of scopes
// (if branches, function calls) recurses, on stack segments of its own once the
// native stack runs low (weft/stack.h), up to max_call_depth() calls.
#include "weft/interpreter.h"

#include <mutex>
#include <new>
#include <unordered_map>

#include "bind_argument_types.h"
#include "check_argument.h"
#include "weft/functor.h"
#include "weft/limits.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/stack.h"

namespace weft {

/// Variables bound in one frame, on top of a closure's captured values.
struct Environment {
  std::unordered_map<const VarNode*, Value> vars;
  std::shared_ptr<const Environment> parent;

  const Value* lookup(const VarNode* v) const {
    for (const Environment* e = this; e; e = e->parent.get())
      if (auto it = e->vars.find(v); it != e->vars.end()) return &it->second;
    return nullptr;
  }
};

/// A function value. It captures the values of its free variables, not the
/// frame that made it: a frame holding a closure that held the frame would be
/// a reference cycle. A let-bound function that calls itself gets itself bound
/// to `self` when applied instead.
struct ClosureValue {
  Function fn;
  std::shared_ptr<const Environment> captured;
  const VarNode* self = nullptr;
};

namespace {

std::string describe_call(const Call& call) {
  PrintOptions opts;
  opts.show_types = false;
  opts.show_meta_data = false;  // a message quotes the call, not its tensors
  std::string text = to_text(Expr(call), opts);
  constexpr size_t kMaxLen = 400;  // deep arguments would flood the message
  return text.size() > kMaxLen ? text.substr(0, kMaxLen) + " ..." : text;
}

/// Calls the expansion walks into: the operands whose values a node needs
/// before it can be evaluated. Scopes (let bodies, if branches, function
/// bodies) are evaluated by their handlers, once their variables are bound.
void dataflow_children(const ExprNode& e, const auto& fn) {
  switch (e.kind) {
    case ExprKind::kCall: {
      auto& c = static_cast<const CallNode&>(e);
      if (c.op->kind != ExprKind::kOp) fn(c.op);
      for (auto& a : c.args) fn(a);
      break;
    }
    case ExprKind::kTuple:
      for (auto& f : static_cast<const TupleNode&>(e).fields) fn(f);
      break;
    case ExprKind::kTupleGetItem:
      fn(static_cast<const TupleGetItemNode&>(e).tuple);
      break;
    default:
      break;
  }
}

/// A value of type t with fresh tensors, appending them to `flat` in order.
Value allocate(const Type& t, const std::string& op, std::vector<Tensor>& flat) {
  if (auto tt = t.as<TensorTypeNode>()) {
    if (!tt->is_static())
      throw Error("output type " + type_to_text(t) + " has dynamic dimensions; the interpreter needs static shapes")
          .op(op);
    Tensor out = Tensor::zeros(tt->shape, tt->dtype);
    flat.push_back(out);
    return out;
  }
  if (auto tup = t.as<TupleTypeNode>()) {
    std::vector<Value> fields;
    for (auto& f : tup->fields) fields.push_back(allocate(f, op, flat));
    return Value::tuple(std::move(fields));
  }
  throw Error("op output of type " + type_to_text(t) + " cannot be allocated").op(op);
}

}  // namespace

void run_kernel(const Call& c, std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                const ReferenceKernel& kernel) {
  const OpDef& def = *downcast<OpNode>(c->op)->def;
  if (!def.kernel) throw Error("op has no reference kernel, so the interpreter cannot run it").op(def.name);
  const ReferenceKernel& run = kernel ? kernel : def.kernel;
  // The kernel's own scratch memory ran out (std::bad_alloc here, or a
  // plugin's as OUT_OF_MEMORY): name the op, the call and the sizes it works on.
  auto out_of_memory = [&] {
    size_t bytes = 0;
    std::string produced;
    for (const Tensor& t : inputs) bytes += t.nbytes();
    for (const Tensor& t : outputs) {
      bytes += t.nbytes();
      produced += (produced.empty() ? "" : ", ") + describe(t);
    }
    return Error("out of memory in the op's kernel, which works on " + std::to_string(bytes) +
                 " bytes of inputs and outputs (" + produced + ")")
        .op(def.name)
        .in(describe_call(c))
        .status(StatusCode::kOutOfMemory);
  };
  try {
    run(inputs, outputs, c->attrs ? c->attrs : empty_attrs());
  } catch (Error& e) {
    if (e.status() == StatusCode::kOutOfMemory) throw out_of_memory();
    if (e.op_name().empty()) e.op(def.name);
    throw e.in(describe_call(c));
  } catch (const std::bad_alloc&) {
    throw out_of_memory();
  }
}

Value run_op(const Call& c, const std::vector<Value>& args, const Type& out_type, const ReferenceKernel& kernel) {
  const OpDef& def = *downcast<OpNode>(c->op)->def;
  if (!def.kernel) throw Error("op has no reference kernel, so the interpreter cannot run it").op(def.name);
  std::vector<Tensor> inputs;
  for (auto& a : args) {
    auto flat = a.flatten();  // a tuple argument (concatenate's) passes its fields
    inputs.insert(inputs.end(), flat.begin(), flat.end());
  }
  std::vector<Tensor> outputs;
  Value result = allocate(out_type, def.name, outputs);
  run_kernel(c, inputs, outputs, kernel);
  return result;
}

struct Interpreter::CallKernels {
  std::mutex mutex;
  std::unordered_map<const CallNode*, ReferenceKernel> by_call;  // the module holds the calls

  ReferenceKernel of(const Call& c) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = by_call.find(c.get());
    if (it != by_call.end()) return it->second;
    try {
      return by_call.emplace(c.get(), downcast<OpNode>(c->op)->def->kernel_for(c)).first->second;
    } catch (Error& e) {
      throw e.in(describe_call(c));
    }
  }
};

class Evaluator {
 public:
  /// `depth` counts the function calls that led to this frame.
  Evaluator(const Interpreter& interp, std::shared_ptr<Environment> env, int64_t depth)
      : interp_(interp), env_(std::move(env)), depth_(depth) {}

  Value eval(const Expr& root) {
    if (auto it = memo_.find(root.get()); it != memo_.end()) return it->second;
    return on_stack_with_room([&] { return eval_dataflow(root); });
  }

  /// Binds params to args and evaluates fn's body in a new frame at `depth`.
  static Value apply(const Interpreter& interp, const std::shared_ptr<const ClosureValue>& closure,
                     const std::vector<Value>& args, int64_t depth) {
    const Function& fn = closure->fn;
    if (args.size() != fn->params.size())
      throw Error("function takes " + std::to_string(fn->params.size()) + " arguments, got " +
                  std::to_string(args.size()));
    auto env = std::make_shared<Environment>();
    env->parent = closure->captured;
    if (closure->self) env->vars[closure->self] = Value::closure(closure);
    for (size_t i = 0; i < args.size(); ++i) env->vars[fn->params[i].get()] = args[i];
    return Evaluator(interp, std::move(env), depth).eval(fn->body);
  }

 private:
  Value eval_dataflow(const Expr& root) {
    detail::post_order(
        root, [&](const ExprNode* n) { return memo_.count(n) > 0; },
        [&](const ExprNode* n) { memo_.emplace(n, step(Expr(const_cast<ExprNode*>(n)))); },
        [](const ExprNode& e, const auto& fn) { dataflow_children(e, fn); });
    return memo_.at(root.get());
  }

  Value step(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar: {
        const Value* v = env_->lookup(static_cast<const VarNode*>(e.get()));
        if (!v) throw Error("variable %" + downcast<VarNode>(e)->name_hint + " is not bound");
        return *v;
      }
      case ExprKind::kGlobalVar:
        return global_closure(downcast<GlobalVarNode>(e)->name);
      case ExprKind::kConstant:
        return downcast<ConstantNode>(e)->data;
      case ExprKind::kOp:
        throw Error("operator " + downcast<OpNode>(e)->name() + " used as a value; only calls to it can run");
      case ExprKind::kCall:
        return call(downcast<CallNode>(e));
      case ExprKind::kFunction:
        return make_closure(downcast<FunctionNode>(e), nullptr);
      case ExprKind::kTuple: {
        std::vector<Value> fields;
        for (auto& f : downcast<TupleNode>(e)->fields) fields.push_back(memo_.at(f.get()));
        return Value::tuple(std::move(fields));
      }
      case ExprKind::kTupleGetItem: {
        auto item = downcast<TupleGetItemNode>(e);
        const auto& fields = memo_.at(item->tuple.get()).fields();
        if (item->index < 0 || static_cast<size_t>(item->index) >= fields.size())
          throw Error("tuple index " + std::to_string(item->index) + " out of range for a tuple of " +
                      std::to_string(fields.size()));
        return fields[item->index];
      }
      case ExprKind::kLet:
        return let_chain(downcast<LetNode>(e));
      case ExprKind::kIf: {
        auto node = downcast<IfNode>(e);
        const Value cond_value = eval(node->cond);
        const Tensor& cond = cond_value.tensor("if condition");
        if (cond.numel() != 1) throw Error("if condition must be a scalar, got " + describe(cond));
        return eval(cond.element_as_double(0) != 0.0 ? node->then_branch : node->else_branch);
      }
    }
    throw InternalError(__FILE__, __LINE__, "unknown expression kind");
  }

  Value make_closure(const Function& fn, const VarNode* self) const {
    auto captured = std::make_shared<Environment>();
    for (const Var& v : free_vars(fn))
      if (const Value* value = env_->lookup(v.get())) captured->vars[v.get()] = *value;
    return Value::closure(std::make_shared<const ClosureValue>(ClosureValue{fn, std::move(captured), self}));
  }

  Value let_chain(Let let) {
    for (;;) {
      // A function bound by a let may call itself through the let's variable.
      env_->vars[let->var.get()] = let->value->kind == ExprKind::kFunction
                                       ? make_closure(downcast<FunctionNode>(let->value), let->var.get())
                                       : eval(let->value);
      if (let->body->kind != ExprKind::kLet) return eval(let->body);
      let = downcast<LetNode>(let->body);
    }
  }

  Value global_closure(const std::string& name) const {
    return Value::closure(std::make_shared<const ClosureValue>(ClosureValue{interp_.mod_.lookup(name), nullptr}));
  }

  Value call(const Call& c) {
    std::vector<Value> args;
    args.reserve(c->args.size());
    for (auto& a : c->args) args.push_back(memo_.at(a.get()));
    if (c->op->kind == ExprKind::kOp) {
      if (!c->has_type()) throw InternalError(__FILE__, __LINE__, "call without a type reached the interpreter");
      return run_op(c, args, c->checked_type(), interp_.kernels_->of(c));
    }
    const Value& callee = memo_.at(c->op.get());
    if (!callee.is_closure()) throw Error("called value is not a function").in(describe_call(c));
    if (depth_ >= max_call_depth())
      throw Error("function calls nest deeper than " + std::to_string(max_call_depth()) +
                  " levels: runaway recursion?")
          .in(describe_call(c))
          .note("WEFT_MAX_CALL_DEPTH (or weft::set_max_call_depth) raises the limit");
    return apply(interp_, callee.closure(), args, depth_ + 1);
  }

  const Interpreter& interp_;
  std::shared_ptr<Environment> env_;
  int64_t depth_;
  std::unordered_map<const ExprNode*, Value> memo_;
};

Interpreter::Interpreter(const IRModule& mod) : mod_(infer_type(mod)), kernels_(std::make_shared<CallKernels>()) {}

Value Interpreter::run(const std::string& name, const std::vector<Value>& args) {
  Function fn = mod_.lookup(name);
  if (args.size() != fn->params.size())
    throw Error("@" + name + " takes " + std::to_string(fn->params.size()) + " arguments, got " +
                std::to_string(args.size()));
  bool dynamic = false;
  for (size_t i = 0; i < args.size(); ++i) {
    interpreter::check_argument(args[i], fn->params[i]->checked_type(), "argument %" + fn->params[i]->name_hint);
    dynamic = dynamic || interpreter::has_dynamic_extent(fn->params[i]->checked_type());
  }
  // `?` extents: the arguments' shapes go into the types, which inference then carries to every op.
  if (dynamic) return Interpreter(bind_argument_types(mod_, name, args)).run(name, args);
  return Evaluator::apply(*this, std::make_shared<const ClosureValue>(ClosureValue{fn, nullptr}), args, 0);
}

Value evaluate(const Expr& expr) {
  if (!free_vars(expr).empty()) throw Error("cannot evaluate an expression with free variables");
  Interpreter interp(IRModule::from_function(function({}, expr)));
  return interp.run_main({});
}

}  // namespace weft
