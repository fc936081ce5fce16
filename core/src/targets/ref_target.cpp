// `ref`: runs every op on its plugin's reference kernel behind the target
// interface. It is the fallback of every build and the oracle of the target
// conformance suite, so it favours plain correctness: a group's calls run one
// after another, as the interpreter would run them, on host memory.
#include "ref_target.h"

#include "host_memory_target.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/op.h"
#include "weft/printer.h"
#include "weft/run_config.h"

namespace weft::targets {

namespace {

/// Where a tensor of a group lives during a launch: an index into the launch's
/// tensors, which are the kernel's arguments (parameters, then outputs), then
/// the group's constants, then scratch for values computed and used inside.
using Slot = uint32_t;

struct Step {
  Call call;                    // the op, its attrs, and what errors quote
  weft::ReferenceKernel kernel;  // prepared for this call when compiled
  std::vector<Slot> inputs, outputs;
};

struct Scratch {
  Slot slot;
  std::vector<int64_t> shape;
  DataType dtype;
};

/// The tensor types of a value of type `t`, tuples flattened depth-first.
void flatten_tensor_types(const Type& t, std::vector<TensorType>& out, const std::string& what) {
  if (auto tensor = downcast<TensorTypeNode>(t)) {
    if (!tensor->is_static())
      throw Error(what + " has type " + type_to_text(t) + "; the reference target needs static shapes");
    out.push_back(tensor);
    return;
  }
  if (auto tuple = t.as<TupleTypeNode>()) {
    for (const Type& field : tuple->fields) flatten_tensor_types(field, out, what);
    return;
  }
  throw Error(what + " has type " + (t ? type_to_text(t) : std::string("(none)")) +
              "; the reference target runs functions of tensors and tuples of tensors");
}

class ReferenceKernel : public TargetKernel {
 public:
  void launch(StreamHandle /*stream*/, std::span<const DLTensor> args) const override {
    if (args.size() != arg_types_.size())
      throw Error("the ref kernel of " + group_ + " takes " + std::to_string(arg_types_.size()) +
                  " tensors (parameters, then outputs), got " + std::to_string(args.size()));
    std::vector<Tensor> tensors(num_slots_);
    for (size_t i = 0; i < args.size(); ++i) {
      tensors[i] = Tensor::from_dlpack(args[i], nullptr);
      const TensorTypeNode& want = *arg_types_[i];
      if (tensors[i].dtype() != want.dtype || tensors[i].shape() != want.shape)
        throw Error("argument " + std::to_string(i) + " of the ref kernel of " + group_ + " is " +
                    describe(tensors[i]))
            .expected(type_to_text(arg_types_[i]));
    }
    for (const auto& [slot, data] : constants_) tensors[slot] = data;
    // Zeroed as the interpreter gives kernels their outputs, so both run alike.
    for (const Scratch& s : scratch_) tensors[s.slot] = Tensor::zeros(s.shape, s.dtype);
    std::vector<Tensor> inputs, outputs;
    for (const Step& step : steps_) {
      inputs.clear();
      outputs.clear();
      for (Slot s : step.inputs) inputs.push_back(tensors[s]);
      for (Slot s : step.outputs) outputs.push_back(tensors[s]);
      run_kernel(step.call, inputs, outputs, step.kernel);
    }
    for (const auto& [from, to] : copies_) std::memcpy(tensors[to].data(), tensors[from].data(), tensors[to].nbytes());
  }

 private:
  friend class KernelCompiler;
  std::string group_;  // the group's ops, for messages
  std::vector<TensorType> arg_types_;
  size_t num_slots_ = 0;
  std::vector<std::pair<Slot, Tensor>> constants_;
  std::vector<Scratch> scratch_;
  std::vector<Step> steps_;
  /// Outputs that are no step's own result (a parameter, a constant, a value
  /// returned twice): copied once the steps have run.
  std::vector<std::pair<Slot, Slot>> copies_;
};

/// Lowers a Primitive function to a ReferenceKernel: the flat list of its op
/// calls in evaluation order with the slots each reads and writes, so that a
/// launch walks no IR.
class KernelCompiler {
 public:
  explicit KernelCompiler(const Function& fn) : fn_(fn) {}

  std::unique_ptr<ReferenceKernel> compile() {
    kernel_ = std::make_unique<ReferenceKernel>();
    for (const Var& p : fn_->params) {
      std::vector<TensorType> types;
      flatten_tensor_types(p->checked_type(), types, "parameter %" + p->name_hint);
      for (const TensorType& t : types) slots_[p.get()].push_back(add_argument(t));
    }
    std::vector<TensorType> result_types;
    flatten_tensor_types(fn_->body->checked_type(), result_types, "the group's result");
    for (const TensorType& t : result_types) output_slots_.push_back(add_argument(t));
    detail::post_order(
        fn_->body, [&](const ExprNode* n) { return slots_.count(n) > 0; },
        [&](const ExprNode* n) { lower(Expr(const_cast<ExprNode*>(n))); },
        [](const ExprNode& e, const auto& child) {
          if (e.kind == ExprKind::kCall) {
            for (const Expr& a : static_cast<const CallNode&>(e).args) child(a);
            return;  // the callee is an op: nothing to lower
          }
          for_each_child(e, child);
        });
    bind_outputs();
    kernel_->num_slots_ = next_slot_;
    return std::move(kernel_);
  }

 private:
  Slot add_argument(const TensorType& t) {
    kernel_->arg_types_.push_back(t);
    return next_slot_++;
  }

  void lower(const Expr& e) {
    std::vector<Slot>& mine = slots_[e.get()];
    switch (e->kind) {
      case ExprKind::kConstant:
        mine.push_back(next_slot_);
        kernel_->constants_.emplace_back(next_slot_++, downcast<ConstantNode>(e)->data);
        return;
      case ExprKind::kTuple:
        for (const Expr& field : downcast<TupleNode>(e)->fields) {
          const std::vector<Slot>& of_field = slots_.at(field.get());
          mine.insert(mine.end(), of_field.begin(), of_field.end());
        }
        return;
      case ExprKind::kTupleGetItem: {
        auto item = downcast<TupleGetItemNode>(e);
        const std::vector<Slot>& of_tuple = slots_.at(item->tuple.get());
        auto fields = downcast<TupleTypeNode>(item->tuple->checked_type())->fields;
        size_t first = 0;
        for (int i = 0; i < item->index; ++i) first += flat_tensor_count(fields[i]);
        mine.assign(of_tuple.begin() + first, of_tuple.begin() + first + flat_tensor_count(fields[item->index]));
        return;
      }
      case ExprKind::kCall:
        if (e.as<CallNode>()->op->kind == ExprKind::kOp) return lower_call(downcast<CallNode>(e));
        break;
      default:
        break;
    }
    throw Error("the reference target runs Primitive functions of op calls, tuples and projections; this one has a " +
                std::string(expr_kind_name(e->kind)))
        .in(to_text(Expr(fn_), {.show_types = false, .header = false, .show_meta_data = false}));
  }

  void lower_call(const Call& call) {
    const std::string& op = downcast<OpNode>(call->op)->name();
    Step step{call, downcast<OpNode>(call->op)->def->kernel_for(call), {}, {}};
    for (const Expr& a : call->args) {
      const std::vector<Slot>& of_arg = slots_.at(a.get());
      step.inputs.insert(step.inputs.end(), of_arg.begin(), of_arg.end());
    }
    std::vector<TensorType> types;
    flatten_tensor_types(call->checked_type(), types, "the result of " + op);
    for (const TensorType& t : types) {
      step.outputs.push_back(next_slot_);
      kernel_->scratch_.push_back({next_slot_++, t->shape, t->dtype});
    }
    slots_[call.get()] = step.outputs;
    kernel_->group_ += (kernel_->group_.empty() ? "" : ", ") + op;
    kernel_->steps_.push_back(std::move(step));
  }

  /// The function's results go to the output arguments: a step writes its
  /// result there directly, anything else is copied.
  void bind_outputs() {
    const std::vector<Slot>& results = slots_.at(fn_->body.get());
    std::unordered_map<Slot, Slot> moved;  // scratch slot -> output argument
    for (size_t j = 0; j < results.size(); ++j) {
      Slot out = output_slots_[j];
      auto scratch = std::find_if(kernel_->scratch_.begin(), kernel_->scratch_.end(),
                                  [&](const Scratch& s) { return s.slot == results[j]; });
      if (scratch == kernel_->scratch_.end()) {
        kernel_->copies_.emplace_back(results[j], out);
        continue;
      }
      moved[results[j]] = out;
      kernel_->scratch_.erase(scratch);
    }
    for (Step& step : kernel_->steps_)
      for (std::vector<Slot>* slots : {&step.inputs, &step.outputs})
        for (Slot& s : *slots)
          if (auto it = moved.find(s); it != moved.end()) s = it->second;
    for (auto& [from, to] : kernel_->copies_)
      if (auto it = moved.find(from); it != moved.end()) from = it->second;
    if (kernel_->group_.empty()) kernel_->group_ = "a group without op calls";
  }

  const Function& fn_;
  std::unique_ptr<ReferenceKernel> kernel_;
  std::unordered_map<const ExprNode*, std::vector<Slot>> slots_;
  std::vector<Slot> output_slots_;
  Slot next_slot_ = 0;
};

class ReferenceTarget : public HostMemoryTarget {
 public:
  ReferenceTarget() : HostMemoryTarget(std::string(kReferenceTarget)) {}

  bool supports(const Call& call) const override {
    auto op = call->op.as<OpNode>();
    return op && op->def->kernel;
  }

  std::unique_ptr<TargetKernel> compile(const Function& primitive, std::span<const Tensor> /*constants*/) override {
    // The constants arrive as arguments at each launch: there is nothing to pack.
    return KernelCompiler(primitive).compile();
  }
};

}  // namespace

TargetDef reference_target_def() {
  TargetDef def;
  def.name = std::string(kReferenceTarget);
  def.description = "the op plugins' reference kernels on the host: every op, plainly correct, not fast";
  def.device_type = kDLCPU;
  def.create = [](const Attrs&) { return std::make_shared<ReferenceTarget>(); };
  return def;
}

}  // namespace weft::targets
