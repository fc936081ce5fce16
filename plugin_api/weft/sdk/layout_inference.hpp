// weft plugin SDK: an op's layout hooks (Relay's FInferCorrectLayout and
// FTVMConvertOpLayout) and the ones many ops share: elementwise ops keep
// whatever layout they get, broadcasting ops move every operand into the
// layout of the largest, ops with one axis attr (softmax, bias_add,
// batch_norm, concatenate) renumber it. Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/ir.hpp>
#include <weft/sdk/layout.hpp>

#include <functional>
#include <string>
#include <vector>

namespace weft::sdk {

/// What an op needs for its inputs' layouts (one per input tensor, a tuple
/// argument's fields one by one), what its outputs get, and its attrs for
/// them (empty: the call's own). An undefined layout says it cannot follow.
struct InferredLayouts {
  std::vector<Layout> inputs;
  std::vector<Layout> outputs;
  Attrs attrs;
};

/// new_in: the layouts the inputs arrive in after a rewrite (empty on the
/// first call, which asks about the call as it stands); old_in: those they
/// had; old_in_types: the argument types before the rewrite.
using LayoutInference = std::function<InferredLayouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                                                      const std::vector<Layout>& old_in,
                                                      const std::vector<Type>& old_in_types)>;
/// The typed call rebuilt in the desired layouts (one per input, "default"
/// where the op chooses), or an empty Expr to keep it.
using LayoutConversion = std::function<Expr(const Expr& call, const std::vector<std::string>& desired)>;

namespace layouts {

/// The entries of `attrs` with those in `changes` replaced (or added), to build a call with.
inline AttrList entries_with(const Attrs& attrs, const AttrList& changes) {
  AttrList entries;
  for (size_t i = 0; i < attrs.size(); ++i) {
    const char* key = nullptr;
    check(host().attrs_entry(attrs.get(), i, &key, nullptr));
    bool changed = false;
    for (const auto& c : changes) changed = changed || c.first == key;
    if (!changed) entries.emplace_back(key, attrs.get_value(key));
  }
  for (const auto& c : changes) entries.push_back(c);
  return entries;
}

/// `attrs` with the entries in `changes` replaced (or added).
inline Attrs with(const Attrs& attrs, const AttrList& changes) { return Attrs::make(entries_with(attrs, changes)); }

/// Where axis `axis` of `old_layout` (negative counts from the end) is in
/// `layout`: the index of the same axis letter, or -1 when `layout` lacks it
/// or `axis` is out of range.
inline int64_t renumbered_axis(const Layout& old_layout, const Layout& layout, int64_t axis) {
  int64_t rank = static_cast<int64_t>(old_layout.ndim());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return -1;
  return layout.index_of(old_layout[static_cast<size_t>(axis)].name);
}

/// No layout works: the inputs go back to where they were.
inline InferredLayouts cannot_follow(size_t inputs, size_t outputs = 1) {
  return {std::vector<Layout>(inputs), std::vector<Layout>(outputs), Attrs()};
}

/// Relay's ElemwiseArbitraryLayout: every input and the output in the first
/// input's new layout, else the first old layout known.
inline InferredLayouts elementwise(const Attrs&, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                                   const std::vector<Type>&) {
  Layout chosen = new_in.empty() ? Layout() : new_in[0];
  for (const Layout& l : old_in) {
    if (!chosen.defined() && l.defined()) chosen = l;
  }
  return {std::vector<Layout>(old_in.size(), chosen), {chosen}, Attrs()};
}

namespace detail {
/// The layout an operand of `shape` whose axes are named as in `named` needs
/// to broadcast against a tensor in `target`: target's axes that name one of
/// the operand's, in target's order, a split kept only where the operand's
/// extent is not 1 (a broadcast axis splits into blocks of 1, as Relay's
/// AdjustSubordinateFactors). Undefined when those axes are not target's last
/// ones (the operand would not line up) or `named` has splits of its own.
inline Layout broadcast_operand(const Layout& named, const std::vector<int64_t>& shape, const Layout& target) {
  if (named.ndim() != shape.size() || named.ndim() != named.ndim_primal()) return Layout();
  std::string out;
  size_t kept = 0;
  for (const LayoutAxis& a : target.axes()) {
    int at = named.index_of(a.primal_name());
    if (at < 0) continue;
    ++kept;
    if (!a.primal()) out += std::to_string(shape[static_cast<size_t>(at)] == 1 ? 1 : a.factor);
    out += a.name;
  }
  Layout need(out);
  for (size_t i = 0; i < kept; ++i) {
    if (need[i].name != target[target.ndim() - kept + i].name) return Layout();
  }
  return need;
}
}  // namespace detail

/// Relay's BinaryBroadcastLayout for any number of operands: the operand of
/// the largest rank with a known layout (one whose producer changed it first)
/// sets the layout; each other operand gets the same axes, its missing ones
/// left out, and a scalar stays a scalar. An operand of lower rank whose axes
/// would not line up that way gets the leading layout itself, which the
/// layout passes reach by expand_dims first (Relay's TransformHelper: a (C)
/// bias against NCHW becomes (1, 1, 1, C) in NHWC, then NCHW).
inline InferredLayouts broadcast(const Attrs&, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                                 const std::vector<Type>& types) {
  const std::vector<Layout>& cur = new_in.empty() ? old_in : new_in;
  size_t n = old_in.size();
  if (types.size() != n) return cannot_follow(n);
  std::vector<std::vector<int64_t>> shapes;
  for (const Type& t : types) {
    if (!t.is_tensor()) return cannot_follow(n);
    shapes.push_back(t.shape());
  }
  int lead = -1;
  for (size_t i = 0; i < n; ++i) {
    if (!cur[i].defined()) continue;
    if (lead < 0 || shapes[i].size() > shapes[lead].size() ||
        (shapes[i].size() == shapes[lead].size() && cur[i] != old_in[i] && cur[lead] == old_in[lead])) {
      lead = static_cast<int>(i);
    }
  }
  if (lead < 0) return cannot_follow(n);
  const Layout& target = cur[lead];
  // The lead's axes before the rewrite name each operand's trailing axes.
  Layout lead_old = old_in[lead].defined() ? old_in[lead] : target;
  InferredLayouts out{{}, {target}, Attrs()};
  for (size_t i = 0; i < n; ++i) {
    size_t rank = shapes[i].size();
    if (static_cast<int>(i) == lead) {
      out.inputs.push_back(target);
    } else if (rank == 0) {
      out.inputs.push_back(Layout(""));
    } else {
      Layout named = old_in[i].defined() ? old_in[i]
                     : rank <= lead_old.ndim() && lead_old.ndim() == lead_old.ndim_primal()
                         ? lead_old.sub_layout(lead_old.ndim() - rank, rank)
                         : Layout();
      Layout need = named.defined() ? detail::broadcast_operand(named, shapes[i], target) : Layout();
      if (!need.defined() && named.defined() && rank < target.ndim_primal()) {
        bool within = true;
        for (const LayoutAxis& a : named.axes()) within = within && a.primal() && target.contains(a.name);
        if (within) need = target;
      }
      if (!need.defined()) return cannot_follow(n);
      out.inputs.push_back(need);
    }
  }
  return out;
}

/// For an op with one axis attr `attr` over input 0 (softmax, bias_add,
/// batch_norm): the axis renumbered into input 0's new layout, which output 0
/// gets; the other inputs and outputs are 1-d along that axis (bias_add's
/// bias, batch_norm's parameters and statistics), in its one-letter layout.
/// An axis the new layout splits cannot be followed.
inline InferredLayouts single_axis(const Attrs& attrs, const std::vector<Layout>& new_in,
                                   const std::vector<Layout>& old_in, const std::string& attr, size_t outputs) {
  size_t n = old_in.size();
  const Layout& old_layout = old_in[0];
  const Layout layout = new_in.empty() ? old_layout : new_in[0];
  if (!layout.defined() || !old_layout.defined()) return cannot_follow(n, outputs);
  int64_t rank = static_cast<int64_t>(old_layout.ndim()), axis = attrs.get_int(attr);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return cannot_follow(n, outputs);
  char letter = old_layout[static_cast<size_t>(axis)].name;
  if (layout.factor_of(letter) > 0 || !layout.contains(letter)) return cannot_follow(n, outputs);
  Layout along(std::string(1, letter));
  InferredLayouts out{std::vector<Layout>(n, along), std::vector<Layout>(outputs, along),
                      with(attrs, {{attr, Value(int64_t{layout.index_of(letter)})}})};
  out.inputs[0] = layout;
  out.outputs[0] = layout;
  return out;
}

}  // namespace layouts
}  // namespace weft::sdk
