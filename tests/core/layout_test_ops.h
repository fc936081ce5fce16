// In-process ops with layout hooks, so the layout passes are tested without
// the plugins' ops (only the tensor plugin's layout_transform is used):
//
//   lt.conv   (data, weight)  a 1x1 convolution in any layouts convertible to
//                             NCHW / OIHW (data_layout, kernel_layout attrs);
//                             convert_layout takes [data, kernel or "default"]
//   lt.relu   (data)          elementwise: follows whatever layout it gets
//   lt.add    (lhs, rhs)      same-shape sum: both operands in one layout
//   lt.sum    (data)          sum over `axis` (an int): the axis follows the layout
//   lt.opaque (data)          identity with no layout hook
#pragma once

#include <span>
#include <string>
#include <vector>

#include "weft/error.h"
#include "weft/layout.h"
#include "weft/op.h"
#include "weft/type.h"

namespace weft::testing {

namespace layout_ops {

inline const TensorTypeNode& tensor_arg(const Type& t, const char* op) {
  auto tt = t.as<TensorTypeNode>();
  if (!tt) throw Error("expected a tensor, got " + type_to_text(t)).op(op);
  return *tt;
}

inline AttrField string_attr(std::string name, std::string default_value) {
  return {.name = std::move(name),
          .type = AttrType::kString,
          .default_value = AttrValue(std::move(default_value)),
          .text_default = std::nullopt,
          .doc = "a layout",
          .normalize = {},
          .expected = "a layout"};
}

inline std::vector<int64_t> shape_of(const TensorTypeNode& t) { return {t.shape.begin(), t.shape.end()}; }

inline Type conv_relation(std::span<const Type> args, const Attrs& attrs) {
  const auto& d = tensor_arg(args[0], "lt.conv");
  const auto& w = tensor_arg(args[1], "lt.conv");
  BijectiveLayout data(Layout(attrs->at("data_layout").as_string()), Layout("NCHW"));
  BijectiveLayout kernel(Layout(attrs->at("kernel_layout").as_string()), Layout("OIHW"));
  std::vector<int64_t> x = data.forward_shape(shape_of(d)), k = kernel.forward_shape(shape_of(w));
  if (x[1] != k[1]) throw Error("channels differ").op("lt.conv");
  std::vector<int64_t> out = data.backward_shape(std::vector<int64_t>{x[0], k[0], x[2], x[3]});
  return tensor_type(std::vector<Dim>(out.begin(), out.end()), d.dtype);
}

/// The layout an elementwise op keeps: the first new input layout known, else the first old one.
inline InferredLayouts follow_inputs(const Attrs& attrs, std::span<const Layout> new_in, std::span<const Layout> old_in) {
  Layout chosen;
  for (auto layouts : {new_in, old_in}) {
    for (const Layout& l : layouts) {
      if (!chosen.defined() && l.defined()) chosen = l;
    }
  }
  return {std::vector<Layout>(old_in.size(), chosen), {chosen}, attrs};
}

inline Type sum_relation(std::span<const Type> args, const Attrs& attrs) {
  const auto& d = tensor_arg(args[0], "lt.sum");
  int64_t axis = attrs->at("axis").as_int();
  if (axis < 0 || axis >= static_cast<int64_t>(d.ndim())) throw Error("axis out of range").op("lt.sum").attr("axis");
  std::vector<Dim> out = d.shape;
  out.erase(out.begin() + axis);
  return tensor_type(out, d.dtype);
}

/// The reduced axis is named by the old layout and found in the new one; a
/// layout that splits it cannot be followed.
inline InferredLayouts sum_layouts(const Attrs& attrs, std::span<const Layout> new_in, std::span<const Layout> old_in,
                                   std::span<const Type>) {
  const Layout& old_layout = old_in[0];
  const Layout& layout = new_in.empty() ? old_layout : new_in[0];
  if (!layout.defined()) return {{Layout()}, {Layout()}, attrs};
  int64_t axis = attrs->at("axis").as_int();
  char letter = old_layout[static_cast<size_t>(axis)].name;
  if (layout.factor_of(letter) > 0) return {{Layout()}, {Layout()}, attrs};
  std::string out;
  for (const LayoutAxis& a : layout.axes()) {
    if (a.name == letter) continue;
    if (a.factor) out += std::to_string(a.factor);
    out += a.name;
  }
  return {{layout}, {Layout(out)}, make_attrs({{"axis", AttrValue(int64_t{layout.index_of(letter)})}})};
}

}  // namespace layout_ops

/// Registers the lt.* ops above unless already there.
inline void register_layout_test_ops() {
  using namespace layout_ops;
  auto& reg = OpRegistry::global();
  if (reg.find_loaded("lt.conv")) return;

  OpDef conv;
  conv.name = "lt.conv";
  conv.description = "1x1 convolution in any layout.";
  conv.inputs = {{"data", "Tensor", "input"}, {"weight", "Tensor", "kernel"}};
  conv.attrs.add(string_attr("data_layout", "NCHW"));
  conv.attrs.add(string_attr("kernel_layout", "OIHW"));
  conv.relation = conv_relation;
  conv.infer_layout = [](const Attrs& attrs, std::span<const Layout>, std::span<const Layout>, std::span<const Type>) {
    Layout data(attrs->at("data_layout").as_string());
    return InferredLayouts{{data, Layout(attrs->at("kernel_layout").as_string())}, {data}, attrs};
  };
  conv.convert_layout = [](const Call& c, std::span<const std::string> desired) -> Expr {
    std::string kernel = desired.size() > 1 ? desired[1] : "default";
    if (kernel == "default") kernel = desired[0] == "NHWC" ? "HWIO" : "OIHW";
    return call("lt.conv", c->args, {{"data_layout", desired[0]}, {"kernel_layout", kernel}});
  };
  reg.add(std::move(conv));

  OpDef relu;
  relu.name = "lt.relu";
  relu.description = "Elementwise, in any layout.";
  relu.inputs = {{"data", "Tensor", "input"}};
  relu.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  relu.infer_layout = [](const Attrs& attrs, std::span<const Layout> new_in, std::span<const Layout> old_in,
                         std::span<const Type>) { return follow_inputs(attrs, new_in, old_in); };
  reg.add(relu);

  OpDef add = relu;
  add.name = "lt.add";
  add.description = "Same-shape sum, both operands in one layout.";
  add.inputs = {{"lhs", "Tensor", "left"}, {"rhs", "Tensor", "right"}};
  add.relation = [](std::span<const Type> args, const Attrs&) {
    if (type_to_text(args[0]) != type_to_text(args[1])) throw Error("operands differ").op("lt.add");
    return args[0];
  };
  reg.add(std::move(add));

  OpDef sum;
  sum.name = "lt.sum";
  sum.description = "Sum over one axis.";
  sum.inputs = {{"data", "Tensor", "input"}};
  sum.attrs.add({.name = "axis",
                 .type = AttrType::kInt,
                 .default_value = AttrValue(int64_t{0}),
                 .text_default = std::nullopt,
                 .doc = "the axis summed",
                 .normalize = {},
                 .expected = "an int"});
  sum.relation = sum_relation;
  sum.infer_layout = sum_layouts;
  reg.add(std::move(sum));

  OpDef opaque;
  opaque.name = "lt.opaque";
  opaque.description = "Identity with no layout hook.";
  opaque.inputs = {{"data", "Tensor", "input"}};
  opaque.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  reg.add(std::move(opaque));
}

}  // namespace weft::testing
