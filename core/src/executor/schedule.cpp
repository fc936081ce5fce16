// Scheduling a compiled main (see schedule.h). Each node of main's body gets a
// SlotTree in post-order; tuples, projections and lets only rearrange trees, so
// they cost nothing at run time. A launch's arguments are first made readable by
// its target: a constant gets a device copy uploaded once, any other value a
// per-run copy (through a host staging buffer between two targets neither
// addressable from the host), made once per value and target. A step on one
// stream that reads what another stream wrote is preceded by a synchronize of
// the writer, unless one already came after the write.
#include "schedule.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/group_storage.h"
#include "weft/memory_plan.h"
#include "weft/printer.h"
#include "weft/type.h"

namespace weft::executor {
namespace {

Error unsupported(const std::string& what) {
  return Error("the graph executor cannot run " + what +
               "; it runs a dataflow main: calls of its compiled groups, tuples, projections, lets, parameters and "
               "constants")
      .status(StatusCode::kUnsupported);
}

class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(const CompiledModule& compiled) : compiled_(compiled) {}

  Schedule build() {
    const Function& main = compiled_.main;
    if (main->body->has_type() && main->body->checked_type().as<FuncTypeNode>())
      throw unsupported("a main returning a function");
    Scope scope;
    for (const Var& p : main->params) {
      if (!p->has_type()) throw Error("parameter %" + p->name_hint + " of main has no type; run InferType first");
      scope.trees[p.get()] = leaves(p->checked_type(), "parameter %" + p->name_hint, [&](const TensorTypeNode& t) {
        size_t s = add_slot(Slot::Source::kInput, s_.input_slots.size(), kHost, t);
        s_.input_slots.push_back(s);
        return s;
      });
    }
    s_.output = walk(main->body, scope);
    for (const Step& step : s_.steps) {
      if (step.kind != Step::Kind::kLaunch) continue;
      for (size_t i = step.first_arg; i < step.first_arg + step.num_args; ++i) {
        const Slot& slot = s_.slots[s_.arg_slots[i]];
        DLTensor t{};
        t.device = device_of(step.target);
        t.ndim = static_cast<int32_t>(slot.shape.size());
        t.dtype = DLDataType{slot.dtype.code, slot.dtype.bits, slot.dtype.lanes};
        t.shape = const_cast<int64_t*>(slot.shape.data());
        s_.arg_templates.push_back(t);
      }
    }
    return std::move(s_);
  }

 private:
  /// What the nodes of one function body stand for: main's, or a local
  /// function's, inlined at each of its calls.
  struct Scope {
    std::unordered_map<const ExprNode*, SlotTree> trees;             // parameters and walked nodes
    std::unordered_map<const VarNode*, const ExprNode*> let_values;  // a let's variable -> its value
    const Scope* parent = nullptr;                                   // where captured variables live
  };

  /// Schedules `body` in `scope`, children before parents, without recursing on its depth.
  SlotTree walk(const Expr& body, Scope& scope) {
    detail::post_order(
        body, [&](const ExprNode* n) { return scope.trees.count(n) > 0; },
        [&](const ExprNode* n) { scope.trees[n] = visit(*n, scope); },
        [&](const ExprNode& e, const auto& fn) {
          // A call's callee is not walked as a value (a group's function is its target's business, a
          // local function is inlined at the call). A let's value is walked before its body, so its
          // variable's uses find it scheduled. A function value is not walked: it has no slots.
          switch (e.kind) {
            case ExprKind::kCall:
              for (const Expr& a : static_cast<const CallNode&>(e).args) fn(a);
              break;
            case ExprKind::kLet: {
              auto& let = static_cast<const LetNode&>(e);
              scope.let_values[let.var.get()] = let.value.get();
              fn(let.value);
              fn(let.body);
              break;
            }
            case ExprKind::kTuple:
            case ExprKind::kTupleGetItem:
              for_each_child(e, fn);
              break;
            default:
              break;
          }
        });
    return scope.trees.at(body.get());
  }

  /// The node a variable stands for and the scope that walked it: a parameter, or a let's value.
  std::pair<const ExprNode*, const Scope*> resolve(const VarNode& v, const Scope& scope) {
    for (const Scope* s = &scope; s; s = s->parent) {
      if (s->trees.count(&v)) return {&v, s};
      if (auto it = s->let_values.find(&v); it != s->let_values.end()) return {it->second, s};
    }
    throw unsupported("%" + v.name_hint + ", which is neither a parameter nor bound by a let");
  }

  SlotTree visit(const ExprNode& e, Scope& scope) {
    const auto& trees = scope.trees;
    switch (e.kind) {
      case ExprKind::kVar: {
        auto [node, owner] = resolve(static_cast<const VarNode&>(e), scope);
        auto it = owner->trees.find(node);
        if (it == owner->trees.end()) return {};  // a function value: inlined where it is called
        return it->second;
      }
      case ExprKind::kLet:
        return trees.at(static_cast<const LetNode&>(e).body.get());
      case ExprKind::kFunction:
        return {};  // a local function's value: inlined where it is called
      case ExprKind::kConstant: {
        auto& c = static_cast<const ConstantNode&>(e);
        return leaves(tensor_type(c.data.shape(), c.data.dtype()), "a constant", [&](const TensorTypeNode& t) {
          s_.constants.push_back(c.data);
          return add_slot(Slot::Source::kConstant, s_.constants.size() - 1, kHost, t);
        });
      }
      case ExprKind::kTuple: {
        SlotTree tree;
        for (const Expr& f : static_cast<const TupleNode&>(e).fields) tree.fields.push_back(trees.at(f.get()));
        return tree;
      }
      case ExprKind::kTupleGetItem: {
        auto& item = static_cast<const TupleGetItemNode&>(e);
        const SlotTree& tuple = trees.at(item.tuple.get());
        if (item.index < 0 || static_cast<size_t>(item.index) >= tuple.fields.size())
          throw Error("tuple index " + std::to_string(item.index) + " out of range for a tuple of " +
                      std::to_string(tuple.fields.size()) + " fields");
        return tuple.fields[item.index];
      }
      case ExprKind::kCall:
        return visit_call(static_cast<const CallNode&>(e), scope);
      default:
        throw unsupported("a node of kind " + std::string(expr_kind_name(e.kind)) + " in main");
    }
  }

  SlotTree visit_call(const CallNode& call, Scope& scope) {
    const FunctionNode* fn = callee(call, scope);
    auto group_it = compiled_.group_of.find(fn);
    if (group_it == compiled_.group_of.end()) return inline_call(*fn, call, scope);
    const size_t group = group_it->second;
    const Function& primitive = compiled_.groups.at(group).primitive;
    const int target = target_index(group);
    std::vector<SlotTree> params = parameters(call, group, target, scope);
    // Parameters one tensor each: argument i is parameter i.
    const bool tensor_params =
        std::all_of(params.begin(), params.end(), [](const SlotTree& p) { return p.slot.has_value(); });
    if (auto p = reshaped_parameter(primitive); p && tensor_params) return view(call, *params[*p].slot);
    if (auto parts = concatenated_parameters(primitive))
      if (auto whole = concatenate_in_place(call, target, params, *parts)) return *whole;
    Step launch{.kind = Step::Kind::kLaunch, .target = target, .group = group, .first_arg = s_.arg_slots.size()};
    std::vector<size_t> reads;
    for (const SlotTree& p : params) flatten(p, reads);
    for (size_t& s : reads) s = readable_by(s, target);
    synchronize_writers(reads, target);
    s_.arg_slots.insert(s_.arg_slots.end(), reads.begin(), reads.end());
    const std::string what = "the result of group " + std::to_string(group);
    if (!call.has_type()) throw Error(what + " has no type; run InferType first");
    SlotTree out = leaves(call.checked_type(), what, [&](const TensorTypeNode& t) {
      size_t s = add_run_buffer(target, t);
      s_.arg_slots.push_back(s);
      s_.intermediate_bytes += s_.slots[s].nbytes;
      writer_[s] = s_.steps.size();
      return s;
    });
    launch.num_args = s_.arg_slots.size() - launch.first_arg;
    launch.num_outputs = launch.num_args - reads.size();
    const std::optional<size_t> inplace = compiled_.groups.at(group).inplace_param;
    if (inplace && tensor_params && launch.num_outputs == 1) launch.inplace_arg = *inplace;
    s_.steps.push_back(launch);
    ++s_.num_launches;
    return out;
  }

  /// The value of each parameter of `group` at `call`: the call's next
  /// argument, or, for a constant the kernel packed (which main's call
  /// omits), a slot the launch passes with data null.
  std::vector<SlotTree> parameters(const CallNode& call, size_t group, int target, const Scope& scope) {
    const CompiledGroup& g = compiled_.groups.at(group);
    std::vector<SlotTree> params;
    size_t next = 0;
    for (size_t i = 0; i < g.primitive->params.size(); ++i) {
      if (i < g.packed_params.size() && g.packed_params[i]) {
        auto* t = g.primitive->params[i]->checked_type().as<TensorTypeNode>();
        if (!t) throw Error("group " + std::to_string(group) + "'s packed parameter " + std::to_string(i) + " is not a tensor");
        params.push_back(SlotTree{add_slot(Slot::Source::kPacked, 0, target, *t), {}});
      } else if (next < call.args.size()) {
        params.push_back(scope.trees.at(call.args[next++].get()));
      }
    }
    if (next != call.args.size() || params.size() != g.primitive->params.size())
      throw Error("group " + std::to_string(group) + " takes " + std::to_string(g.primitive->params.size()) +
                  " parameters, but main calls it with " + std::to_string(call.args.size()) + " arguments");
    return params;
  }

  /// A group of only reshapes (relay.reshape_only): its result is slot `of`'s
  /// bytes under the call's type, with no launch; its readers keep `of`'s
  /// storage alive, as the plan counts reads per buffer.
  SlotTree view(const CallNode& call, size_t of) {
    if (!call.has_type()) throw Error("a reshape group's result has no type; run InferType first");
    auto t = call.checked_type().as<TensorTypeNode>();
    const Slot& viewed = s_.slots[of];
    size_t s = add_slot(viewed.source, viewed.index, viewed.target, *t);
    if (auto w = writer_.find(of); w != writer_.end()) writer_[s] = w->second;
    return SlotTree{s, {}};
  }

  /// A concatenation with no launch, where its inputs' producers can write
  /// straight into their slices of its bytes: each input a run buffer of
  /// `target`'s that a launch on `target` wrote, a different one each, not
  /// already part of another, starting at an aligned offset. Each input's
  /// buffer becomes a part of the result's. nullopt (a launch) otherwise.
  std::optional<SlotTree> concatenate_in_place(const CallNode& call, int target, const std::vector<SlotTree>& params,
                                               const std::vector<size_t>& parts) {
    auto t = call.has_type() ? call.checked_type().as<TensorTypeNode>() : nullptr;
    if (!t || !t->is_static()) return std::nullopt;
    std::vector<size_t> args;
    for (const SlotTree& p : params) flatten(p, args);
    std::vector<size_t> buffers;
    std::vector<size_t> offsets;
    size_t offset = 0, last_writer = 0;
    for (size_t p : parts) {
      if (p >= args.size()) return std::nullopt;
      const size_t s = args[p];
      const Slot& slot = s_.slots[s];
      auto w = writer_.find(s);
      if (slot.source != Slot::Source::kRunBuffer || slot.target != target || w == writer_.end()) return std::nullopt;
      const Step& step = s_.steps[w->second];
      const RunBuffer& buffer = s_.run_buffers[slot.index];
      if (step.kind != Step::Kind::kLaunch || step.target != target || buffer.part_of ||
          buffer.nbytes != slot.nbytes || offset % MemoryPlan::kAlignment != 0 ||
          std::find(buffers.begin(), buffers.end(), slot.index) != buffers.end())
        return std::nullopt;
      buffers.push_back(slot.index);
      offsets.push_back(offset);
      offset += slot.nbytes;
      last_writer = std::max(last_writer, w->second);
    }
    const size_t s = add_run_buffer(target, *t);
    if (s_.slots[s].nbytes != offset) throw Error("concatenation of " + std::to_string(offset) + " bytes into " +
                                                  std::to_string(s_.slots[s].nbytes));
    for (size_t i = 0; i < buffers.size(); ++i) {
      s_.run_buffers[buffers[i]].part_of = s_.slots[s].index;
      s_.run_buffers[buffers[i]].part_offset = offsets[i];
    }
    writer_[s] = last_writer;
    return SlotTree{s, {}};
  }

  /// The function a call calls: a function literal, or a variable a let binds to one.
  const FunctionNode* callee(const CallNode& call, const Scope& scope) {
    const ExprNode* op = call.op.get();
    if (op->kind == ExprKind::kVar) op = resolve(static_cast<const VarNode&>(*op), scope).first;
    if (op->kind != ExprKind::kFunction) throw unsupported("a call of " + to_text(call.op) + " in main");
    return static_cast<const FunctionNode*>(op);
  }

  /// A local function's body scheduled for one call, its parameters standing for the call's
  /// arguments (as relay.build's inlining would leave it). Recurses on the nesting of calls only.
  SlotTree inline_call(const FunctionNode& fn, const CallNode& call, Scope& scope) {
    if (!inlining_.insert(&fn).second) throw unsupported("a recursive call of a local function");
    Scope inner;
    inner.parent = &scope;
    for (size_t i = 0; i < fn.params.size() && i < call.args.size(); ++i)
      inner.trees[fn.params[i].get()] = scope.trees.at(call.args[i].get());
    SlotTree result = walk(fn.body, inner);
    inlining_.erase(&fn);
    return result;
  }

  /// A slot holding slot `s`'s value that `target` (or the host, for kHost) can read.
  size_t readable_by(size_t s, int target) {
    if (readable(s, target)) return s;
    if (auto it = copies_.find({s, target}); it != copies_.end()) return it->second;
    const Slot src = s_.slots[s];
    size_t copy;
    if (src.source == Slot::Source::kConstant) {
      s_.device_constants.push_back({src.index, target});
      copy = add_slot(Slot::Source::kDeviceConstant, s_.device_constants.size() - 1, target, src);
    } else if (s_.host_readable(s)) {
      copy = add_run_buffer(target, src);
      add_copy(Step::Kind::kUpload, target, s, copy);
    } else {
      // From a device the host cannot address: download, through staging unless the reader can address the host.
      const bool direct = target == kHost || s_.host_addressable[target];
      copy = add_run_buffer(direct ? target : kHost, src);
      add_copy(Step::Kind::kDownload, src.target, s, copy);
      if (!direct) copy = readable_by(copy, target);
    }
    copies_[{s, target}] = copy;
    return copy;
  }

  bool readable(size_t s, int target) const {
    const int owner = s_.slots[s].target;
    if (owner == target) return true;
    return s_.host_readable(s) && (target == kHost || s_.host_addressable[target]);
  }

  void add_copy(Step::Kind kind, int stream, size_t src, size_t dst) {
    synchronize_writers({src}, stream);
    writer_[dst] = s_.steps.size();
    s_.steps.push_back({.kind = kind, .target = stream, .src = src, .dst = dst});
  }

  /// Synchronizes the other streams that wrote `reads` since their last synchronize.
  void synchronize_writers(const std::vector<size_t>& reads, int stream) {
    for (size_t s : reads) {
      auto w = writer_.find(s);
      if (w == writer_.end()) continue;  // an input or constant: ready before the run
      const int writer = s_.steps[w->second].target;
      if (writer == stream) continue;
      auto synced = synchronized_at_.find(writer);
      if (synced != synchronized_at_.end() && synced->second > w->second) continue;
      synchronized_at_[writer] = s_.steps.size();
      s_.steps.push_back({.kind = Step::Kind::kSynchronize, .target = writer});
    }
  }

  int target_index(size_t group) {
    const std::string& name = compiled_.groups.at(group).target;
    for (size_t i = 0; i < s_.target_names.size(); ++i)
      if (s_.target_names[i] == name) return static_cast<int>(i);
    auto it = compiled_.targets.find(name);
    if (it == compiled_.targets.end() || !it->second)
      throw Error("group " + std::to_string(group) + " runs on target '" + name +
                  "', which the compiled module does not hold");
    s_.target_names.push_back(name);
    s_.targets.push_back(it->second.get());
    s_.host_addressable.push_back(it->second->host_addressable());
    return static_cast<int>(s_.target_names.size() - 1);
  }

  DLDevice device_of(int target) const {
    if (const TargetDef* def = TargetRegistry::global().find_loaded(s_.target_names[target]))
      return {def->device_type, 0};
    return {s_.host_addressable[target] ? kDLCPU : kDLExtDev, 0};
  }

  /// A tree of slots for a value of type `type`, one leaf(tensor type) per tensor.
  template <typename Leaf>
  SlotTree leaves(const Type& type, const std::string& what, Leaf&& leaf) {
    SlotTree tree;
    if (auto t = type.as<TensorTypeNode>()) {
      if (!t->is_static())
        throw Error(what + " has type " + type_to_text(type) + "; the graph executor needs static shapes");
      tree.slot = leaf(*t);
    } else if (auto tuple = type.as<TupleTypeNode>()) {
      for (const Type& f : tuple->fields) tree.fields.push_back(leaves(f, what, leaf));
    } else {
      throw unsupported(what + " of type " + type_to_text(type));
    }
    return tree;
  }

  static void flatten(const SlotTree& tree, std::vector<size_t>& out) {
    if (tree.slot) out.push_back(*tree.slot);
    for (const SlotTree& f : tree.fields) flatten(f, out);
  }

  size_t add_slot(Slot::Source source, size_t index, int target, const TensorTypeNode& t) {
    Slot like;
    like.dtype = t.dtype;
    like.shape.assign(t.shape.begin(), t.shape.end());
    like.nbytes = static_cast<size_t>(t.numel()) * t.dtype.bytes();
    return add_slot(source, index, target, like);
  }
  size_t add_slot(Slot::Source source, size_t index, int target, const Slot& like) {
    Slot slot = like;
    slot.source = source;
    slot.index = index;
    slot.target = target;
    s_.slots.push_back(std::move(slot));
    return s_.slots.size() - 1;
  }
  size_t add_run_buffer(int target, const TensorTypeNode& t) {
    size_t s = add_slot(Slot::Source::kRunBuffer, s_.run_buffers.size(), target, t);
    s_.run_buffers.push_back(RunBuffer{.target = target, .nbytes = s_.slots[s].nbytes, .part_of = std::nullopt});
    return s;
  }
  size_t add_run_buffer(int target, const Slot& like) {
    size_t s = add_slot(Slot::Source::kRunBuffer, s_.run_buffers.size(), target, like);
    s_.run_buffers.push_back(RunBuffer{.target = target, .nbytes = like.nbytes, .part_of = std::nullopt});
    return s;
  }

  const CompiledModule& compiled_;
  Schedule s_;
  std::unordered_set<const FunctionNode*> inlining_;  // the local functions being inlined
  std::map<std::pair<size_t, int>, size_t> copies_;  // (slot, reader) -> its copy
  std::unordered_map<size_t, size_t> writer_;        // slot -> the step that writes it
  std::map<int, size_t> synchronized_at_;            // stream -> the step of its last synchronize
};

}  // namespace

bool Schedule::host_readable(size_t s) const {
  const int owner = slots[s].target;
  return owner == kHost || host_addressable[owner];
}

Schedule make_schedule(const CompiledModule& compiled) { return ScheduleBuilder(compiled).build(); }

}  // namespace weft::executor
