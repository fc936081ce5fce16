// Test-only operators, registered in-process so core tests need no plugin.
//
//   test.add    (lhs, rhs)       same shape and dtype -> that type   broadcast
//   test.relu   (data)           identity relation                    elemwise
//   test.conv   (data, weight)   NCHW x OIHW -> NCHW, attrs:         out_elemwise_fusable
//                                  padding: int, 2 or 4 ints -> [top, left, bottom, right] (default 0)
//                                  strides: int or 2 ints -> [h, w] (default 1)
//   test.split  (data)           tuple of equal parts, attrs:        injective
//                                  sections: positive int (required), axis: int (default 0)
//
// add and relu carry float32 reference kernels. Call
// weft::testing::register_test_ops() at the start of a test; it is idempotent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "weft/attrs.h"
#include "weft/error.h"
#include "weft/op.h"
#include "weft/type.h"

namespace weft::testing {

namespace detail {

inline const TensorTypeNode& expect_tensor(const Type& t, const char* op, const char* what) {
  auto tt = t.as<TensorTypeNode>();
  if (!tt) throw Error(std::string(what) + " is not a tensor: " + type_to_text(t)).op(op);
  return *tt;
}

/// int, or 1, 2 or 4 ints -> [top, left, bottom, right], as Relay's get_pad_tuple2d.
inline std::optional<AttrValue> normalize_padding(const AttrValue& v) {
  if (v.type() == AttrType::kInt) {
    int64_t p = v.as_int();
    return AttrValue(std::vector<int64_t>{p, p, p, p});
  }
  auto list = v.coerce(AttrType::kIntList);
  if (!list) return std::nullopt;
  const auto& p = list->as_int_list();
  if (p.size() == 1) return AttrValue(std::vector<int64_t>{p[0], p[0], p[0], p[0]});
  if (p.size() == 2) return AttrValue(std::vector<int64_t>{p[0], p[1], p[0], p[1]});
  if (p.size() == 4) return *list;
  return std::nullopt;
}

/// int or 2 ints -> [h, w].
inline std::optional<AttrValue> normalize_strides(const AttrValue& v) {
  if (v.type() == AttrType::kInt) return AttrValue(std::vector<int64_t>{v.as_int(), v.as_int()});
  auto list = v.coerce(AttrType::kIntList);
  if (!list || list->as_int_list().size() != 2) return std::nullopt;
  return *list;
}

inline Type add_relation(std::span<const Type> args, const Attrs&) {
  const auto& a = expect_tensor(args[0], "test.add", "lhs");
  const auto& b = expect_tensor(args[1], "test.add", "rhs");
  if (a.shape != b.shape || a.dtype != b.dtype)
    throw Error("operands differ: " + type_to_text(args[0]) + " vs " + type_to_text(args[1]))
        .op("test.add")
        .expected("two tensors of the same shape and dtype");
  return args[0];
}

inline Type relu_relation(std::span<const Type> args, const Attrs&) {
  expect_tensor(args[0], "test.relu", "data");
  return args[0];
}

inline Type conv_relation(std::span<const Type> args, const Attrs& attrs) {
  const auto& d = expect_tensor(args[0], "test.conv", "data");
  const auto& w = expect_tensor(args[1], "test.conv", "weight");
  if (d.ndim() != 4 || w.ndim() != 4)
    throw Error("data and weight must be 4-d (NCHW, OIHW)").op("test.conv");
  if (d.shape[1] != w.shape[1])
    throw Error("data has " + std::to_string(d.shape[1]) + " channels, weight expects " +
                std::to_string(w.shape[1]))
        .op("test.conv");
  const auto& pad = attrs->at("padding").as_int_list();
  const auto& strides = attrs->at("strides").as_int_list();
  auto out = [&](Dim in, Dim k, int64_t before, int64_t after, int64_t stride) -> Dim {
    if (in == kAnyDim || k == kAnyDim) return kAnyDim;
    return (in + before + after - k) / stride + 1;
  };
  return tensor_type({d.shape[0], w.shape[0], out(d.shape[2], w.shape[2], pad[0], pad[2], strides[0]),
                      out(d.shape[3], w.shape[3], pad[1], pad[3], strides[1])},
                     d.dtype);
}

inline Type split_relation(std::span<const Type> args, const Attrs& attrs) {
  const auto& d = expect_tensor(args[0], "test.split", "data");
  int64_t sections = attrs->at("sections").as_int();
  int64_t axis = attrs->at("axis").as_int();
  if (axis < 0) axis += d.ndim();
  if (axis < 0 || axis >= d.ndim())
    throw Error("axis out of range for " + type_to_text(args[0])).op("test.split").attr("axis");
  std::vector<Dim> part = d.shape;
  if (part[axis] != kAnyDim) {
    if (part[axis] % sections != 0)
      throw Error("dimension " + std::to_string(part[axis]) + " does not split into " +
                  std::to_string(sections) + " equal parts")
          .op("test.split")
          .attr("sections");
    part[axis] /= sections;
  }
  return tuple_type(std::vector<Type>(static_cast<size_t>(sections), tensor_type(part, d.dtype)));
}

}  // namespace detail

/// Registers test.add, test.relu, test.conv and test.split unless already there.
inline void register_test_ops() {
  auto& reg = OpRegistry::global();
  auto add_once = [&](OpDef def) {
    if (!reg.find_loaded(def.name)) reg.add(std::move(def));
  };

  OpDef add;
  add.name = "test.add";
  add.description = "Elementwise sum of two tensors of the same shape.";
  add.inputs = {{"lhs", "Tensor", "left operand"}, {"rhs", "Tensor", "right operand"}};
  add.relation = detail::add_relation;
  add.pattern = OpPattern::kBroadcast;
  add.kernel = [](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
    const float* a = in[0].data_as<float>();
    const float* b = in[1].data_as<float>();
    float* o = out[0].data_as<float>();
    for (int64_t i = 0; i < out[0].numel(); ++i) o[i] = a[i] + b[i];
  };
  add.support_level = 1;
  add_once(std::move(add));

  OpDef relu;
  relu.name = "test.relu";
  relu.description = "max(x, 0), elementwise.";
  relu.inputs = {{"data", "Tensor", "input"}};
  relu.relation = detail::relu_relation;
  relu.pattern = OpPattern::kElemWise;
  relu.kernel = [](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
    const float* a = in[0].data_as<float>();
    float* o = out[0].data_as<float>();
    for (int64_t i = 0; i < out[0].numel(); ++i) o[i] = std::max(a[i], 0.0f);
  };
  relu.support_level = 1;
  add_once(std::move(relu));

  OpDef conv;
  conv.name = "test.conv";
  conv.description = "2-d convolution, NCHW data and OIHW weight.";
  conv.inputs = {{"data", "Tensor", "NCHW input"}, {"weight", "Tensor", "OIHW kernel"}};
  conv.attrs.add({.name = "strides",
                  .type = AttrType::kAny,
                  .default_value = AttrValue(std::vector<int64_t>{1, 1}),
                  .text_default = std::nullopt,
                  .doc = "stride along height and width",
                  .normalize = detail::normalize_strides,
                  .expected = "an int or 2 ints"});
  conv.attrs.add({.name = "padding",
                  .type = AttrType::kAny,
                  .default_value = AttrValue(std::vector<int64_t>{0, 0, 0, 0}),
                  .text_default = std::nullopt,
                  .doc = "padding as [top, left, bottom, right]",
                  .normalize = detail::normalize_padding,
                  .expected = "an int, or 1, 2 or 4 ints"});
  conv.relation = detail::conv_relation;
  conv.pattern = OpPattern::kOutEWiseFusable;
  conv.support_level = 2;
  add_once(std::move(conv));

  OpDef split;
  split.name = "test.split";
  split.description = "Splits a tensor into equal parts along an axis.";
  split.inputs = {{"data", "Tensor", "input"}};
  split.attrs.add({.name = "sections",
                   .type = AttrType::kInt,
                   .default_value = std::nullopt,  // required
                   .text_default = std::nullopt,
                   .doc = "number of equal parts",
                   .normalize = [](const AttrValue& v) -> std::optional<AttrValue> {
                     if (v.as_int() > 0) return v;
                     return std::nullopt;
                   },
                   .expected = "a positive int"});
  split.attrs.add({.name = "axis",
                   .type = AttrType::kInt,
                   .default_value = AttrValue(0),
                   .text_default = std::nullopt,
                   .doc = "axis to split along",
                   .normalize = {},
                   .expected = "an int"});
  split.relation = detail::split_relation;
  split.pattern = OpPattern::kInjective;
  split.support_level = 3;
  add_once(std::move(split));
}

}  // namespace weft::testing
