// check_grad (float64, both AD modes) for every differentiable op of the
// tensor plugin.
#include <gtest/gtest.h>

#include "grad_cases.h"

namespace weft::testing {
namespace {

using Shape = std::vector<int64_t>;

/// Integer indices for take; the data beside them is drawn by check_grad.
std::function<std::vector<Tensor>()> with_indices(Shape shape, std::vector<int32_t> values) {
  return [=] {
    Tensor t = Tensor::empty(shape, DataType::Int(32));
    for (size_t i = 0; i < values.size(); ++i) t.data_as<int32_t>()[i] = values[i];
    return std::vector<Tensor>{Tensor(), t};
  };
}

std::function<Function()> take_fn(Shape data, Shape indices, std::vector<std::pair<std::string, AttrValue>> attrs) {
  return [=] {
    Var d = var("data", f64(data)), i = var("indices", tensor_type(indices, DataType::Int(32)));
    return function({d, i}, call("take", {d, i}, attrs));
  };
}

std::vector<GradCase> tensor_cases() {
  const CheckGradOptions plain;
  const CheckGradOptions positive = around(1.0, 0.1);  // log, sqrt, power: away from 0
  const CheckGradOptions spread = around(0.0, 1.0);    // kinks at 0 (abs, max): far from most samples
  const CheckGradOptions between = around(0.3, 0.05);  // floor, ceil, round: away from jumps
  CheckGradOptions coarse = spread;                    // through float32: a step far above its rounding
  coarse.eps = 1e-2;
  return {
      {"add_broadcast", op_fn("add", {{2, 3}, {3}}), plain},
      {"subtract_broadcast", op_fn("subtract", {{2, 1}, {2, 3}}), plain},
      {"multiply_broadcast", op_fn("multiply", {{2, 3}, {1, 3}}), spread},
      {"divide", op_fn("divide", {{2, 3}, {2, 3}}), positive},
      {"power", op_fn("power", {{2, 3}, {3}}), positive},
      {"maximum", op_fn("maximum", {{2, 3}, {2, 3}}), spread},
      {"minimum", op_fn("minimum", {{2, 3}, {3}}), spread},
      {"mod",
       op_fn("mod", {{2, 3}, {3}}),
       around(2.3, 0.2),
       {},
       [] {
         // y away from x's multiples so that no jump lies within eps.
         Tensor y = Tensor::empty({3}, DataType::Float(64));
         for (int i = 0; i < 3; ++i) y.data_as<double>()[i] = 0.7 + 0.1 * i;
         return std::vector<Tensor>{Tensor(), y};
       }},
      {"floor_mod",
       op_fn("floor_mod", {{2, 3}, {2, 3}}),
       around(-2.3, 0.2),
       {},
       [] {
         Tensor y = Tensor::empty({2, 3}, DataType::Float(64));
         for (int i = 0; i < 6; ++i) y.data_as<double>()[i] = 1.1 - 0.05 * i;
         return std::vector<Tensor>{Tensor(), y};
       }},
      {"floor_divide",
       op_fn("floor_divide", {{2, 3}, {3}}),
       around(0.5, 0.05),
       {},
       [] {
         Tensor y = Tensor::empty({3}, DataType::Float(64));
         for (int i = 0; i < 3; ++i) y.data_as<double>()[i] = 2.0 + i;
         return std::vector<Tensor>{Tensor(), y};
       }},
      {"negative", op_fn("negative", {{2, 3}}), plain},
      {"exp", op_fn("exp", {{2, 3}}), spread},
      {"abs", op_fn("abs", {{2, 3}}), spread},
      {"sign", op_fn("sign", {{2, 3}}), spread},
      {"log", op_fn("log", {{2, 3}}), positive},
      {"sqrt", op_fn("sqrt", {{2, 3}}), positive},
      {"rsqrt", op_fn("rsqrt", {{2, 3}}), positive},
      {"tanh", op_fn("tanh", {{2, 3}}), spread},
      {"sigmoid", op_fn("sigmoid", {{2, 3}}), spread},
      {"erf", op_fn("erf", {{2, 3}}), spread},
      {"floor", op_fn("floor", {{2, 3}}), between},
      {"ceil", op_fn("ceil", {{2, 3}}), between},
      {"round", op_fn("round", {{2, 3}}), between},
      {"clip", op_fn("clip", {{3, 4}}, {{"a_min", -0.5}, {"a_max", 0.5}}), spread},
      {"where",
       [] {
         Var c = var("c", f64({2, 3})), x = var("x", f64({2, 3})), y = var("y", f64({3}));
         return function({c, x, y}, call("where", {call("greater", {c, call("zeros_like", {c})}), x, y}));
       },
       spread},
      {"copy", op_fn("copy", {{2, 3}}), plain},
      {"cast_to_float64",
       [] {
         Var x = var("x", f64({2, 3}));
         return function({x}, call("cast", {call("cast", {x}, {{"dtype", DataType::Float(32)}})},
                                   {{"dtype", DataType::Float(64)}}));
       },
       coarse},
      {"full_like", op_fn("full_like", {{2, 3}, {}}), plain},
      {"ones_like_times_x",
       [] {
         Var x = var("x", f64({2, 3}));
         return function({x}, call("multiply", {x, call("ones_like", {x})}));
       },
       plain},
      {"reshape", op_fn("reshape", {{2, 3, 2}}, {{"newshape", Shape{3, -1}}}), plain},
      {"reshape_like", op_fn("reshape_like", {{2, 6}, {3, 4}}), plain, {0}},
      {"squeeze", op_fn("squeeze", {{2, 1, 3}}, {{"axis", Shape{1}}}), plain},
      {"expand_dims", op_fn("expand_dims", {{2, 3}}, {{"axis", 1}, {"num_newaxis", 2}}), plain},
      {"transpose", op_fn("transpose", {{2, 3, 4}}, {{"axes", Shape{1, 2, 0}}}), plain},
      {"transpose_reverse", op_fn("transpose", {{2, 3}}), plain},
      {"broadcast_to", op_fn("broadcast_to", {{3, 1}}, {{"shape", Shape{2, 3, 4}}}), plain},
      {"broadcast_to_like", op_fn("broadcast_to_like", {{3, 1}, {2, 3, 4}}), plain, {0}},
      {"collapse_sum_like", op_fn("collapse_sum_like", {{2, 3, 4}, {3, 1}}), plain, {0}},
      {"collapse_sum_to", op_fn("collapse_sum_to", {{2, 3, 4}}, {{"shape", Shape{1, 4}}}), plain},
      {"tile", op_fn("tile", {{2, 3}}, {{"reps", Shape{2, 1, 2}}}), plain},
      {"repeat", op_fn("repeat", {{2, 3}}, {{"repeats", 3}, {"axis", -1}}), plain},
      {"concatenate",
       [] {
         Var a = var("a", f64({2, 3})), b = var("b", f64({2, 1}));
         return function({a, b}, call("concatenate", {tuple({a, b})}, {{"axis", 1}}));
       },
       plain},
      {"stack",
       [] {
         Var a = var("a", f64({2, 3})), b = var("b", f64({2, 3}));
         return function({a, b}, call("stack", {tuple({a, b})}, {{"axis", -1}}));
       },
       plain},
      {"split_one_piece_used",
       [] {
         Var x = var("x", f64({6, 2}));
         return function({x}, get_item(call("split", {x}, {{"indices_or_sections", Shape{1, 4}}}), 1));
       },
       plain},
      {"split_all_pieces",
       [] {
         Var x = var("x", f64({2, 6}));
         Expr parts = call("split", {x}, {{"indices_or_sections", 3}, {"axis", 1}});
         return function({x}, call("multiply", {get_item(parts, 0), get_item(parts, 2)}));
       },
       spread},
      {"take_axis_repeated_and_clipped",
       take_fn({2, 4}, {2, 2}, {{"axis", 1}}),
       plain,
       {0},
       with_indices({2, 2}, {0, 3, 3, -1})},
      {"take_flat_wrap", take_fn({2, 3}, {3}, {{"mode", "wrap"}}), plain, {0}, with_indices({3}, {5, -2, 7})},
      {"take_batch_dims",
       take_fn({2, 3, 2}, {2, 2}, {{"axis", 1}, {"batch_dims", 1}}),
       plain,
       {0},
       with_indices({2, 2}, {2, 0, 1, 1})},
      {"strided_slice_negative_stride",
       op_fn("strided_slice", {{4, 5}}, {{"begin", Shape{1, 4}}, {"end", Shape{4, 0}}, {"strides", Shape{2, -2}}}),
       plain},
      {"strided_slice_axes",
       op_fn("strided_slice", {{2, 5, 3}}, {{"begin", Shape{1}}, {"end", Shape{3}}, {"axes", Shape{1}}}), plain},
      {"layout_transform_nhwc",
       op_fn("layout_transform", {{1, 3, 2, 2}}, {{"src_layout", "NCHW"}, {"dst_layout", "NHWC"}}), plain},
      {"layout_transform_blocked_padded",
       op_fn("layout_transform", {{1, 3, 2, 2}}, {{"src_layout", "NCHW"}, {"dst_layout", "NCHW2c"}}), plain},
      {"sum_axis", op_fn("sum", {{2, 3, 4}}, {{"axis", Shape{1}}}), plain},
      {"sum_all_keepdims", op_fn("sum", {{2, 3}}, {{"keepdims", true}}), plain},
      {"sum_exclude", op_fn("sum", {{2, 3, 4}}, {{"axis", Shape{1}}, {"exclude", true}}), plain},
      {"mean", op_fn("mean", {{2, 3, 4}}, {{"axis", Shape{0, 2}}}), plain},
      {"max", op_fn("max", {{2, 3, 4}}, {{"axis", Shape{2}}}), spread},
      {"min_all", op_fn("min", {{3, 4}}), spread},
      {"prod", op_fn("prod", {{2, 3}}, {{"axis", Shape{1}}}), positive},
      {"variance",
       [] {
         Var x = var("x", f64({3, 4}));
         return function({x}, call("variance", {x, call("mean", {x}, {{"axis", Shape{1}}, {"keepdims", true}})},
                                   {{"axis", Shape{1}}}));
       },
       spread},
      {"variance_unbiased_given_mean", op_fn("variance", {{3, 4}, {3, 1}}, {{"axis", Shape{1}}, {"unbiased", true}}),
       spread},
  };
}

class TensorOpGradient : public ::testing::TestWithParam<GradCase> {};

TEST_P(TensorOpGradient, MatchesCentralDifferencesFirstOrder) {
  expect_gradients_match(GetParam(), GradientMode::kFirstOrder);
}
TEST_P(TensorOpGradient, MatchesCentralDifferencesHigherOrder) {
  expect_gradients_match(GetParam(), GradientMode::kHigherOrder);
}

INSTANTIATE_TEST_SUITE_P(TensorOps, TensorOpGradient, ::testing::ValuesIn(tensor_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace weft::testing
