// The layout rewriting ConvertLayout and AlterOpLayout share, after Relay's
// LayoutRewriter: each op call's inputs are described by (value, old layout,
// new layout) slots, the op's infer_layout hook runs on the call as it was
// (what it needs before the rewrite) and on the rebuilt one (what it needs
// now), and each input goes through at most the layout_transforms between.
#include "layout_rewriter.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/op.h"

namespace weft::layout_rewrite {
namespace {

/// One tensor as rewritten: its value, the layout it had, the one it has now
/// (either undefined where no op fixed it).
struct Slot {
  Expr value;
  Layout old_layout, new_layout;
};

/// What the rewrite knows of an expression's layouts: one slot for a tensor an
/// op produced, one per field for a tuple or an op's tuple result.
struct Slots {
  std::vector<Slot> slots;
  bool fields = false;
};

class LayoutRewriter : public ExprMutator {
 public:
  LayoutRewriter(const CallRule& rule, const char* pass) : rule_(rule), pass_(pass) {}

 protected:
  Expr visit_call(const Call& c) override {
    auto* op = c->op.as<OpNode>();
    if (!op) return ExprMutator::visit_call(c);
    return rewrite(c, *op->def);
  }

  Expr visit_tuple(const Tuple& t) override {
    Slots info{{}, true};
    for (const Expr& f : t->fields) info.slots.push_back(tensor_slot(f));
    known_[t.get()] = std::move(info);
    return ExprMutator::visit_tuple(t);
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    auto it = known_.find(t->tuple.get());
    if (it == known_.end() || !it->second.fields) return ExprMutator::visit_tuple_get_item(t);
    Slot slot = it->second.slots.at(static_cast<size_t>(t->index));
    known_[t.get()] = Slots{{slot}, false};
    Expr value = realize(slot);
    auto* item = value.as<TupleGetItemNode>();
    bool unchanged = item && item->tuple.same_as(t->tuple) && item->index == t->index;
    return unchanged ? Expr(t) : value;
  }

 private:
  /// The slot of `e` as one input: the op-produced tensor it is, or its
  /// rewritten value with no known layout.
  Slot tensor_slot(const Expr& e) {
    Expr value = visit(e);
    auto it = known_.find(e.get());
    if (it != known_.end() && !it->second.fields) return it->second.slots[0];
    return Slot{value, Layout(), Layout()};
  }

  /// `value` moved from layout `src` to `dst`, once per value and pair of layouts.
  Expr transform(const Expr& value, const Layout& src, const Layout& dst) {
    if (src == dst) return value;
    WEFT_ICHECK(src.defined() && dst.defined(), "a layout transform between undefined layouts");
    // A scalar broadcasts against a tensor in any layout.
    if (src.ndim() == 0) return value;
    auto key = std::make_tuple(value.get(), src.name(), dst.name());
    auto it = transforms_.find(key);
    if (it != transforms_.end()) return it->second;
    Expr moved;
    if (src.ndim_primal() < dst.ndim_primal()) {
      // Relay's TransformHelper: a broadcast operand of lower rank first gets
      // dst's missing primal axes in front (expand_dims), then moves.
      Layout expanded = expand_primal(src, dst);
      Expr e = make_call("expand_dims", {value},
                         {{"axis", int64_t{0}},
                          {"num_newaxis", static_cast<int64_t>(dst.ndim_primal() - src.ndim_primal())}});
      moved = expanded == dst ? e : layout_transform(e, expanded, dst);
    } else {
      moved = layout_transform(value, src, dst);
    }
    keep_alive_.push_back(value);
    transforms_.emplace(key, moved);
    return moved;
  }

  /// `src` with `dst`'s primal axes it lacks in front, in dst's order (Relay's Layout::ExpandPrimal).
  static Layout expand_primal(const Layout& src, const Layout& dst) {
    std::string front;
    for (const LayoutAxis& a : dst.axes()) {
      if (a.primal() && !src.contains(a.name)) front += a.name;
    }
    return parse_layout(front + src.name(), "a broadcast operand's layout");
  }

  /// The layout_transform of `value` from `src` to `dst`, or the value the
  /// transform that made it started from, where this one would undo it.
  Expr layout_transform(const Expr& value, const Layout& src, const Layout& dst) {
    if (!src.convertible_to(dst)) {
      throw Error(std::string(pass_) + ": cannot move a value from layout " + src.name() + " to " + dst.name() +
                  ": their primal axes differ");
    }
    if (auto* made = value.as<CallNode>(); made && made->op.as<OpNode>() &&
                                           made->op.as<OpNode>()->name() == "layout_transform" &&
                                           made->attrs->at("src_layout").as_string() == dst.name() &&
                                           made->attrs->at("dst_layout").as_string() == src.name()) {
      return made->args[0];
    }
    return make_call("layout_transform", {value}, {{"src_layout", src.name()}, {"dst_layout", dst.name()}});
  }

  /// A call of one of the tensor plugin's ops the pass inserts.
  Expr make_call(const std::string& op, std::vector<Expr> args, std::vector<std::pair<std::string, AttrValue>> attrs) {
    try {
      return call(op, std::move(args), std::move(attrs));
    } catch (Error& e) {
      throw e.note(std::string(pass_) + " inserts " + op + " (the tensor plugin's)");
    }
  }

  /// The slot's value back in the layout it had.
  Expr realize(const Slot& s) {
    if (!s.old_layout.defined() || !s.new_layout.defined()) return s.value;
    return transform(s.value, s.new_layout, s.old_layout);
  }

  /// The hook's answer, checked for size; nullopt where it cannot follow.
  std::optional<InferredLayouts> infer(const OpDef& def, const Attrs& attrs, std::span<const Layout> new_in,
                                       std::span<const Layout> old_in, std::span<const Type> types,
                                       size_t outputs) {
    InferredLayouts out = def.infer_layout(attrs, new_in, old_in, types);
    if (out.inputs.size() != old_in.size() || out.outputs.size() != outputs) {
      throw Error(std::string(pass_) + ": the layout inference gave " + std::to_string(out.inputs.size()) +
                  " input and " + std::to_string(out.outputs.size()) + " output layouts for a call of " +
                  std::to_string(old_in.size()) + " input and " + std::to_string(outputs) + " output tensors")
          .op(def.name);
    }
    for (const auto* layouts : {&out.inputs, &out.outputs}) {
      for (const Layout& l : *layouts) {
        if (!l.defined()) return std::nullopt;
      }
    }
    if (!out.attrs) out.attrs = attrs;
    return out;
  }

  /// The call with its inputs back in their old layouts: for ops that cannot
  /// follow a new layout.
  Expr fall_back(const Call& c) { return ExprMutator::visit_call(c); }

  Expr rewrite(const Call& c, const OpDef& def) {
    if (!def.infer_layout) return fall_back(c);
    // Inputs flattened (a tuple argument's fields one by one), with the
    // arguments as the rewritten values in their current layouts.
    std::vector<Slot> in;
    std::vector<Expr> args;
    std::vector<Type> types;
    for (const Expr& a : c->args) {
      if (!a->has_type()) throw untyped(def);
      types.push_back(a->checked_type());
      if (auto* t = a.as<TupleNode>()) {
        std::vector<Expr> fields;
        for (const Expr& f : t->fields) {
          in.push_back(tensor_slot(f));
          fields.push_back(in.back().value);
        }
        args.push_back(tuple(std::move(fields)));
      } else {
        in.push_back(tensor_slot(a));
        args.push_back(in.back().value);
      }
    }
    if (!c->has_type()) throw untyped(def);
    auto* tuple_type = c->checked_type().as<TupleTypeNode>();
    size_t outputs = tuple_type ? tuple_type->fields.size() : 1;

    std::vector<Layout> old_prd, new_prd;
    for (const Slot& s : in) {
      old_prd.push_back(s.old_layout);
      new_prd.push_back(s.new_layout);
    }
    // What the call needs as it stands; where a producer fixed nothing, that
    // is the layout its input is in.
    auto before = infer(def, c->attrs, {}, old_prd, types, outputs);
    if (!before) return fall_back(c);
    std::vector<Layout> new_in = new_prd, old_in = old_prd;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!new_in[i].defined()) new_in[i] = before->inputs[i];
      if (!old_in[i].defined()) old_in[i] = before->inputs[i];
    }
    Call rebuilt = rebuild(c, before->attrs, args);
    auto* new_op = rebuilt->op.as<OpNode>();
    if (!new_op->def->infer_layout) return fall_back(c);
    auto after = infer(*new_op->def, rebuilt->attrs, new_in, old_in, types, outputs);
    if (!after) return fall_back(c);

    // Each input from the layout it arrives in to the one the call needs.
    size_t k = 0;
    auto moved = [&](const Expr& arg) {
      const Slot& s = in[k];
      const Layout &old_cur = before->inputs[k], &new_cur = after->inputs[k];
      ++k;
      if (old_cur == s.old_layout) return transform(arg, s.new_layout, new_cur);
      Expr e = s.old_layout.defined() ? transform(arg, s.new_layout, s.old_layout) : arg;
      return transform(e, old_cur, new_cur);
    };
    // Arguments that come out as they went in stay the same nodes, and so does
    // a call that nothing changed.
    std::vector<Expr> new_args;
    bool same = rebuilt->op.same_as(c->op) && attrs_equal(after->attrs, c->attrs);
    for (size_t i = 0; i < rebuilt->args.size(); ++i) {
      const Expr& a = rebuilt->args[i];
      if (auto* t = a.as<TupleNode>()) {
        std::vector<Expr> fields;
        auto* original = c->args[i].as<TupleNode>();
        bool same_fields = original && original->fields.size() == t->fields.size();
        for (size_t j = 0; j < t->fields.size(); ++j) {
          fields.push_back(moved(t->fields[j]));
          same_fields = same_fields && fields.back().same_as(original->fields[j]);
        }
        new_args.push_back(same_fields ? c->args[i] : Expr(tuple(std::move(fields))));
      } else {
        new_args.push_back(moved(a));
      }
      same = same && new_args.back().same_as(c->args[i]);
    }
    Call result = same ? c : call(downcast<OpNode>(rebuilt->op), std::move(new_args), after->attrs);
    Slots info{{}, tuple_type != nullptr};
    for (size_t i = 0; i < outputs; ++i) {
      Expr value = tuple_type ? Expr(get_item(result, static_cast<int>(i))) : Expr(result);
      info.slots.push_back(Slot{value, before->outputs[i], after->outputs[i]});
    }
    known_[c.get()] = info;
    if (!tuple_type) return realize(info.slots[0]);
    std::vector<Expr> fields;
    bool unmoved = true;
    for (const Slot& s : info.slots) {
      fields.push_back(realize(s));
      unmoved &= fields.back().same_as(s.value);
    }
    return unmoved ? Expr(result) : Expr(tuple(std::move(fields)));
  }

  /// The rule's call over `args`, or c's op with `attrs` where the rule keeps it.
  Call rebuild(const Call& c, const Attrs& attrs, const std::vector<Expr>& args) {
    Expr rebuilt = rule_(c);
    if (!rebuilt) return call(downcast<OpNode>(c->op), args, attrs);
    const std::string& name = c->op.as<OpNode>()->name();
    auto* r = rebuilt.as<CallNode>();
    if (!r || !r->op.as<OpNode>()) throw Error(std::string(pass_) + ": the layout hook did not return an op call").op(name);
    if (r->args.size() != args.size()) {
      throw Error(std::string(pass_) + ": the layout hook returned a call of " + std::to_string(r->args.size()) +
                  " arguments for one of " + std::to_string(args.size()))
          .op(name);
    }
    return call(downcast<OpNode>(r->op), args, r->attrs);
  }

  Error untyped(const OpDef& def) const {
    return Error(std::string(pass_) + " needs a typed program: run InferType first").op(def.name);
  }

  const CallRule& rule_;
  const char* pass_;
  std::unordered_map<const ExprNode*, Slots> known_;  // by original node
  std::map<std::tuple<const ExprNode*, std::string, std::string>, Expr> transforms_;
};

}  // namespace

Function rewrite_layouts(const Function& fn, const CallRule& rule, const char* pass) {
  if (!fn->body->has_type()) throw Error(std::string(pass) + " needs a typed program: run InferType first");
  LayoutRewriter rewriter(rule, pass);
  return downcast<FunctionNode>(rewriter.mutate(fn));
}

}  // namespace weft::layout_rewrite
