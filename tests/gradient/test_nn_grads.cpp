// check_grad (float64, both AD modes) for the nn plugin's differentiable ops.
#include <gtest/gtest.h>

#include "grad_cases.h"

namespace weft::testing {
namespace {

using Shape = std::vector<int64_t>;

std::function<Function()> matmul_fn(const std::string& op, Shape a, Shape b, bool ta, bool tb) {
  return op_fn(op, {std::move(a), std::move(b)}, {{"transpose_a", ta}, {"transpose_b", tb}});
}

/// batch_norm's inputs with a positive moving variance; the rest drawn.
std::vector<Tensor> batch_norm_inputs() {
  Tensor var = Tensor::empty({3}, DataType::Float(64));
  for (int i = 0; i < 3; ++i) var.data_as<double>()[i] = 0.5 + 0.25 * i;
  return {Tensor(), Tensor(), Tensor(), Tensor(), var};
}

/// The same, with the three output weights drawn too.
std::vector<Tensor> weighted_batch_norm_inputs() {
  std::vector<Tensor> inputs = batch_norm_inputs();
  inputs.resize(8);
  return inputs;
}

/// nll_loss's int32 targets (one ignored), the predictions and weights drawn.
std::function<std::vector<Tensor>()> nll_inputs(Shape targets, std::vector<int32_t> values) {
  return [=] {
    Tensor t = Tensor::empty(targets, DataType::Int(32));
    for (size_t i = 0; i < values.size(); ++i) t.data_as<int32_t>()[i] = values[i];
    return std::vector<Tensor>{Tensor(), t, Tensor()};
  };
}

std::function<Function()> nll_fn(Shape predictions, Shape targets, std::string reduction) {
  return [=] {
    Var p = var("p", f64(predictions)), t = var("t", tensor_type(targets, DataType::Int(32))),
        w = var("w", f64({predictions[1]}));
    return function({p, t, w}, call("nn.nll_loss", {p, t, w}, {{"reduction", reduction}, {"ignore_index", 1}}));
  };
}

/// batch_norm with every output weighted: out * w0, moving_mean * w1,
/// moving_var * w2, so each input's gradient is checked under a random seed.
std::function<Function()> weighted_batch_norm_fn(Shape data, int64_t axis) {
  return [=] {
    const int64_t channels = data[axis < 0 ? data.size() - 1 : static_cast<size_t>(axis)];
    Var x = var("x", f64(data)), gamma = var("gamma", f64({channels})), beta = var("beta", f64({channels})),
        mean = var("mean", f64({channels})), v = var("var", f64({channels})), w0 = var("w0", f64(data)),
        w1 = var("w1", f64({channels})), w2 = var("w2", f64({channels}));
    Expr bn = call("nn.batch_norm", {x, gamma, beta, mean, v}, {{"axis", axis}, {"epsilon", 1e-3}});
    return function({x, gamma, beta, mean, v, w0, w1, w2},
                    tuple({call("multiply", {get_item(bn, 0), w0}), call("multiply", {get_item(bn, 1), w1}),
                           call("multiply", {get_item(bn, 2), w2})}));
  };
}

/// A vector of integers (sparse indices and indptr) of dtype `dt`.
Tensor int_vector(const std::vector<int64_t>& values, DataType dt) {
  Tensor t = Tensor::empty({static_cast<int64_t>(values.size())}, dt);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dt == DataType::Int(64)) {
      t.data_as<int64_t>()[i] = values[i];
    } else {
      t.data_as<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return t;
}

/// A sparse matrix's structure; its values (of shape `data`) are drawn.
struct SparseStructure {
  Shape data;
  std::vector<int64_t> indices, indptr;
  DataType index_type = DataType::Int(32);
};

/// fn(%dense, %values, %indices, %indptr, %w) { op(...) * %w }: the dense
/// operand, the values and the output weights drawn, the structure given.
GradCase sparse_case(std::string name, std::string op, Shape dense, SparseStructure s, OpAttrs attrs = {}) {
  auto build = [=] {
    Var d = var("dense", f64(dense)), v = var("values", f64(s.data)),
        i = var("indices", tensor_type({static_cast<int64_t>(s.indices.size())}, s.index_type)),
        p = var("indptr", tensor_type({static_cast<int64_t>(s.indptr.size())}, s.index_type));
    Expr c = infer_type(call(op, {d, v, i, p}, attrs));
    Type out = c->checked_type();
    return weighted(OpCall{{d, v, i, p}, c}, out);
  };
  auto inputs = [=] {
    return std::vector<Tensor>{Tensor(), Tensor(), int_vector(s.indices, s.index_type),
                               int_vector(s.indptr, s.index_type), Tensor()};
  };
  return {std::move(name), build, around(0.0, 1.0), {0, 1, 4}, inputs};
}

std::vector<GradCase> nn_cases() {
  const CheckGradOptions plain;
  const CheckGradOptions spread = around(0.0, 1.0);    // kinks at 0 (relu): far from most samples
  const CheckGradOptions positive = around(1.0, 0.1);  // probabilities for cross_entropy
  return {
      {"relu", op_fn("nn.relu", {{2, 5}}), spread},
      {"leaky_relu", op_fn("nn.leaky_relu", {{2, 5}}, {{"alpha", 0.2}}), spread},
      {"prelu", op_fn("nn.prelu", {{2, 3, 4}, {3}}), spread},
      {"prelu_last_axis", op_fn("nn.prelu", {{2, 4}, {4}}, {{"axis", 1}}), spread},
      {"softmax", op_fn("nn.softmax", {{2, 5}}), spread},
      {"softmax_axis0", op_fn("nn.softmax", {{3, 2}}, {{"axis", 0}}), spread},
      {"log_softmax", op_fn("nn.log_softmax", {{2, 5}}), spread},
      {"fast_softmax", op_fn("nn.fast_softmax", {{2, 3, 4}}, {{"axis", 1}}), spread},
      {"dropout_result",
       [] {
         Var x = var("x", f64({2, 3}));
         return function({x}, get_item(call("nn.dropout", {x}, {{"rate", 0.3}}), 0));
       },
       plain},
      {"dense", op_fn("nn.dense", {{3, 4}, {5, 4}}), spread},
      {"dense_3d_data", op_fn("nn.dense", {{2, 3, 4}, {5, 4}}), spread},
      {"matmul_nn", matmul_fn("nn.matmul", {3, 4}, {4, 2}, false, false), spread},
      {"matmul_tn", matmul_fn("nn.matmul", {4, 3}, {4, 2}, true, false), spread},
      {"matmul_nt", matmul_fn("nn.matmul", {3, 4}, {2, 4}, false, true), spread},
      {"matmul_tt", matmul_fn("nn.matmul", {4, 3}, {2, 4}, true, true), spread},
      {"batch_matmul_nt", matmul_fn("nn.batch_matmul", {2, 3, 4}, {2, 5, 4}, false, true), spread},
      {"batch_matmul_tn", matmul_fn("nn.batch_matmul", {2, 4, 3}, {2, 4, 5}, true, false), spread},
      {"batch_matmul_broadcast_batch", matmul_fn("nn.batch_matmul", {1, 3, 4}, {2, 5, 4}, false, true), spread},
      {"bias_add", op_fn("nn.bias_add", {{2, 3, 4}, {3}}), plain},
      {"bias_add_last_axis", op_fn("nn.bias_add", {{2, 3}, {3}}, {{"axis", -1}}), plain},
      {"batch_flatten", op_fn("nn.batch_flatten", {{2, 3, 2}}), plain},
      {"cross_entropy", op_fn("nn.cross_entropy", {{2, 3}, {2, 3}}), positive},
      {"cross_entropy_with_logits", op_fn("nn.cross_entropy_with_logits", {{2, 3}, {2, 3}}), spread},
      {"nll_loss_mean", nll_fn({3, 4}, {3}, "mean"), positive, {0, 2}, nll_inputs({3}, {2, 1, 0})},
      {"nll_loss_sum_spatial", nll_fn({2, 3, 2}, {2, 2}, "sum"), spread, {0, 2}, nll_inputs({2, 2}, {0, 2, 1, 2})},
      {"nll_loss_none", nll_fn({3, 3}, {3}, "none"), spread, {0, 2}, nll_inputs({3}, {2, 0, 1})},
      {"pad_constant",
       [] {
         Var x = var("x", f64({2, 3})), v = var("v", f64({}));
         return function({x, v},
                         call("nn.pad", {x, v}, {{"pad_width", std::vector<AttrValue>{Shape{1, 0}, Shape{2, 1}}}}));
       },
       plain},
      {"pad_edge",
       weighted_op_fn("nn.pad", {{2, 3}, {}}, {5, 7},
                      {{"pad_width", std::vector<AttrValue>{Shape{1, 2}, Shape{3, 1}}}, {"pad_mode", "edge"}}),
       spread},
      {"pad_reflect",
       weighted_op_fn("nn.pad", {{3, 4}, {}}, {5, 7},
                      {{"pad_width", std::vector<AttrValue>{Shape{2, 0}, Shape{1, 2}}}, {"pad_mode", "reflect"}}),
       spread},
      {"pad_reflect_cropping",
       seeded_op_fn("nn.pad", {{4, 5}, {}},
                    {{"pad_width", std::vector<AttrValue>{Shape{-1, 2}, Shape{2, -2}}}, {"pad_mode", "reflect"}}),
       spread},
      {"pad_edge_cropping",
       seeded_op_fn("nn.pad", {{3, 4}, {}},
                    {{"pad_width", std::vector<AttrValue>{Shape{1, -2}, Shape{-1, -1}}}, {"pad_mode", "edge"}}),
       spread},
      {"pad_constant_cropping",
       seeded_op_fn("nn.pad", {{3, 4}, {}}, {{"pad_width", std::vector<AttrValue>{Shape{-1, 1}, Shape{2, -3}}}}),
       spread},
      {"mirror_pad_symmetric",
       weighted_op_fn("nn.mirror_pad", {{1, 3, 4}}, {1, 6, 8},
                      {{"pad_width", std::vector<AttrValue>{Shape{0, 0}, Shape{2, 1}, Shape{3, 1}}}}),
       spread},
      {"mirror_pad_reflect",
       weighted_op_fn("nn.mirror_pad", {{3, 4}}, {6, 7},
                      {{"pad_width", std::vector<AttrValue>{Shape{1, 2}, Shape{0, 3}}}, {"mode", "REFLECT"}}),
       spread},
      {"conv2d", seeded_op_fn("nn.conv2d", {{1, 2, 5, 5}, {3, 2, 3, 3}}, {{"padding", 1}}), spread},
      {"conv2d_strided_uneven",
       seeded_op_fn("nn.conv2d", {{2, 2, 6, 5}, {2, 2, 3, 2}},
                    {{"strides", Shape{2, 2}}, {"padding", Shape{1, 0, 0, 1}}}),
       spread},
      {"conv2d_dilated", seeded_op_fn("nn.conv2d", {{1, 1, 6, 6}, {2, 1, 2, 2}}, {{"dilation", 2}}), spread},
      {"conv2d_grouped", seeded_op_fn("nn.conv2d", {{1, 4, 4, 4}, {6, 2, 3, 3}}, {{"groups", 2}, {"padding", 1}}),
       spread},
      {"conv2d_depthwise",
       seeded_op_fn("nn.conv2d", {{1, 3, 4, 4}, {3, 1, 3, 3}}, {{"groups", 3}, {"channels", 3}, {"padding", 1}}),
       spread},
      {"batch_norm_all_outputs",
       op_fn("nn.batch_norm", {{2, 3, 2}, {3}, {3}, {3}, {3}}),
       spread,
       {},
       batch_norm_inputs},
      {"batch_norm_last_axis_unscaled",
       [] {
         Var x = var("x", f64({2, 3})), gamma = var("gamma", f64({3})), beta = var("beta", f64({3})),
             mean = var("mean", f64({3})), v = var("var", f64({3}));
         return function({x, gamma, beta, mean, v}, get_item(call("nn.batch_norm", {x, gamma, beta, mean, v},
                                                                  {{"axis", -1}, {"scale", false}, {"center", false}}),
                                                             0));
       },
       spread,
       {},
       batch_norm_inputs},
      {"batch_norm_weighted_outputs", weighted_batch_norm_fn({2, 3, 2, 2}, 1), spread, {}, weighted_batch_norm_inputs},
      {"batch_norm_weighted_outputs_last_axis", weighted_batch_norm_fn({4, 3}, -1), spread, {},
       weighted_batch_norm_inputs},
      {"layer_norm", op_fn("nn.layer_norm", {{2, 5}, {5}, {5}}), spread},
      {"layer_norm_axis1_unscaled", op_fn("nn.layer_norm", {{2, 3, 2}, {3}, {3}}, {{"axis", 1}, {"scale", false}}),
       spread},
      {"instance_norm", op_fn("nn.instance_norm", {{2, 2, 3}, {2}, {2}}), spread},
      {"group_norm", op_fn("nn.group_norm", {{2, 4, 3}, {4}, {4}}, {{"num_groups", 2}}), spread},
      {"l2_normalize", weighted_op_fn("nn.l2_normalize", {{2, 3, 2}}, {2, 3, 2}, {{"eps", 1e-10}, {"axis", 1}}),
       spread},
      {"l2_normalize_all_axes", weighted_op_fn("nn.l2_normalize", {{2, 3}}, {2, 3}, {{"eps", 1e-10}}), spread},
      {"l2_normalize_floored", weighted_op_fn("nn.l2_normalize", {{2, 3}}, {2, 3}, {{"eps", 100.0}, {"axis", 1}}),
       spread},
      {"lrn", weighted_op_fn("nn.lrn", {{1, 5, 2, 2}}, {1, 5, 2, 2}, {{"size", 3}, {"alpha", 0.5}, {"bias", 1.0}}),
       spread},
      {"lrn_nhwc",
       weighted_op_fn("nn.lrn", {{1, 2, 2, 4}}, {1, 2, 2, 4},
                      {{"size", 5}, {"axis", 3}, {"alpha", 0.3}, {"beta", 0.6}, {"bias", 2.0}}),
       spread},
      {"conv1d", seeded_op_fn("nn.conv1d", {{2, 2, 7}, {3, 2, 3}}, {{"strides", 2}, {"padding", Shape{1, 0}}}), spread},
      {"conv1d_grouped_dilated",
       seeded_op_fn("nn.conv1d", {{1, 4, 8}, {4, 2, 2}}, {{"groups", 2}, {"dilation", 2}}), spread},
      {"conv3d", seeded_op_fn("nn.conv3d", {{2, 2, 3, 4, 3}, {2, 2, 2, 3, 2}}, {{"padding", Shape{1, 0, 1, 0, 1, 0}}}),
       spread},
      {"conv3d_strided_dilated",
       seeded_op_fn("nn.conv3d", {{1, 1, 5, 4, 4}, {2, 1, 2, 2, 2}},
             {{"strides", Shape{2, 1, 2}}, {"dilation", Shape{1, 2, 1}}}),
       spread},
      {"conv2d_transpose", seeded_op_fn("nn.conv2d_transpose", {{1, 2, 3, 3}, {2, 3, 3, 3}}, {{"padding", 1}}), spread},
      {"conv2d_transpose_strided",
       seeded_op_fn("nn.conv2d_transpose", {{2, 2, 3, 2}, {2, 1, 3, 2}},
             {{"strides", Shape{2, 2}}, {"padding", Shape{1, 0, 0, 1}}, {"output_padding", Shape{1, 0}}}),
       spread},
      {"conv2d_transpose_grouped",
       seeded_op_fn("nn.conv2d_transpose", {{1, 4, 3, 3}, {4, 1, 2, 2}}, {{"groups", 2}, {"dilation", 2}}), spread},
      {"conv3d_transpose",
       seeded_op_fn("nn.conv3d_transpose", {{1, 2, 2, 3, 2}, {2, 3, 2, 2, 3}},
             {{"strides", Shape{2, 1, 2}}, {"padding", Shape{1, 0, 0, 0, 1, 1}}, {"output_padding", Shape{1, 0, 0}}}),
       spread},
      {"conv3d_transpose_dilated",
       seeded_op_fn("nn.conv3d_transpose", {{2, 1, 2, 2, 3}, {1, 2, 2, 2, 2}}, {{"dilation", Shape{1, 2, 1}}}), spread},
      {"conv1d_transpose",
       seeded_op_fn("nn.conv1d_transpose", {{1, 3, 4}, {3, 2, 3}}, {{"strides", 2}, {"output_padding", 1}}), spread},
      // Every layout the convolutions take, grouped and depthwise in each.
      {"conv2d_nhwc_hwio_strided",
       seeded_op_fn("nn.conv2d", {{2, 5, 6, 2}, {3, 2, 2, 3}},
                    {{"strides", Shape{2, 2}}, {"padding", Shape{1, 0, 0, 1}}, {"data_layout", "NHWC"},
                     {"kernel_layout", "HWIO"}}),
       spread},
      {"conv2d_nhwc_grouped_dilated",
       seeded_op_fn("nn.conv2d", {{1, 5, 5, 4}, {2, 2, 2, 6}},
                    {{"groups", 2}, {"dilation", 2}, {"padding", 1}, {"data_layout", "NHWC"},
                     {"kernel_layout", "HWIO"}}),
       spread},
      {"conv2d_nhwc_depthwise_multiplier",
       seeded_op_fn("nn.conv2d", {{1, 4, 4, 3}, {3, 3, 3, 2}},
                    {{"groups", 3}, {"channels", 6}, {"kernel_size", Shape{3, 3}}, {"padding", 1},
                     {"data_layout", "NHWC"}, {"kernel_layout", "HWOI"}}),
       spread},
      {"conv2d_depthwise_multiplier",
       seeded_op_fn("nn.conv2d", {{2, 2, 4, 5}, {2, 3, 3, 2}},
                    {{"groups", 2}, {"channels", 6}, {"kernel_size", Shape{3, 2}}, {"strides", Shape{2, 1}}}),
       spread},
      {"conv2d_nchw_out_nhwc",
       seeded_op_fn("nn.conv2d", {{1, 2, 4, 4}, {3, 2, 3, 3}}, {{"padding", 1}, {"out_layout", "NHWC"}}), spread},
      {"conv1d_nwc_wio",
       seeded_op_fn("nn.conv1d", {{2, 7, 2}, {3, 2, 3}},
                    {{"strides", 2}, {"padding", Shape{1, 0}}, {"data_layout", "NWC"}, {"kernel_layout", "WIO"}}),
       spread},
      {"conv1d_nwc_grouped",
       seeded_op_fn("nn.conv1d", {{1, 8, 4}, {2, 2, 6}},
                    {{"groups", 2}, {"dilation", 2}, {"data_layout", "NWC"}, {"kernel_layout", "WIO"}}),
       spread},
      {"conv1d_nwc_depthwise",
       seeded_op_fn("nn.conv1d", {{1, 6, 3}, {3, 1, 3}},
                    {{"groups", 3}, {"padding", 1}, {"data_layout", "NWC"}, {"kernel_layout", "WIO"}}),
       spread},
      {"conv3d_grouped",
       seeded_op_fn("nn.conv3d", {{1, 4, 3, 4, 3}, {4, 2, 2, 2, 2}},
                    {{"groups", 2}, {"strides", Shape{2, 1, 2}}, {"padding", 1}}),
       spread},
      {"conv3d_depthwise",
       seeded_op_fn("nn.conv3d", {{2, 2, 3, 3, 3}, {2, 1, 2, 2, 2}}, {{"groups", 2}, {"dilation", Shape{1, 2, 1}}}),
       spread},
      {"conv3d_ndhwc_dhwio",
       seeded_op_fn("nn.conv3d", {{1, 3, 4, 3, 2}, {2, 2, 2, 2, 3}},
                    {{"padding", Shape{1, 0, 1, 0, 1, 0}}, {"data_layout", "NDHWC"}, {"kernel_layout", "DHWIO"}}),
       spread},
      {"conv3d_ndhwc_grouped",
       seeded_op_fn("nn.conv3d", {{1, 3, 3, 4, 4}, {2, 2, 2, 2, 4}},
                    {{"groups", 2}, {"strides", 2}, {"data_layout", "NDHWC"}, {"kernel_layout", "DHWIO"}}),
       spread},
      {"conv3d_ndhwc_depthwise",
       seeded_op_fn("nn.conv3d", {{1, 3, 3, 3, 2}, {2, 2, 2, 1, 2}},
                    {{"groups", 2}, {"padding", 1}, {"data_layout", "NDHWC"}, {"kernel_layout", "DHWIO"}}),
       spread},
      {"conv2d_transpose_nhwc",
       seeded_op_fn("nn.conv2d_transpose", {{1, 3, 2, 2}, {2, 3, 3, 2}},
                    {{"strides", Shape{2, 2}}, {"padding", 1}, {"output_padding", Shape{1, 0}}, {"data_layout", "NHWC"},
                     {"kernel_layout", "HWOI"}}),
       spread},
      {"conv2d_transpose_nhwc_grouped",
       seeded_op_fn("nn.conv2d_transpose", {{1, 3, 3, 4}, {2, 2, 2, 4}},
                    {{"groups", 2}, {"strides", 2}, {"data_layout", "NHWC"}, {"kernel_layout", "HWOI"}}),
       spread},
      {"conv1d_transpose_nwc_grouped",
       seeded_op_fn("nn.conv1d_transpose", {{2, 4, 4}, {3, 1, 4}},
                    {{"groups", 2}, {"strides", 2}, {"padding", 1}, {"data_layout", "NWC"}, {"kernel_layout", "WOI"}}),
       spread},
      {"conv3d_transpose_grouped",
       seeded_op_fn("nn.conv3d_transpose", {{1, 4, 2, 3, 2}, {4, 1, 2, 2, 2}},
                    {{"groups", 2}, {"strides", Shape{2, 1, 2}}, {"output_padding", Shape{1, 0, 0}}}),
       spread},
      {"conv3d_transpose_depthwise_ndhwc",
       seeded_op_fn("nn.conv3d_transpose", {{1, 2, 2, 3, 2}, {2, 2, 2, 1, 2}},
                    {{"groups", 2}, {"padding", Shape{1, 0, 0, 0, 1, 0}}, {"data_layout", "NDHWC"},
                     {"kernel_layout", "DHWOI"}}),
       spread},
      {"contrib_conv2d_nchwc",
       seeded_op_fn("nn.contrib_conv2d_NCHWc", {{1, 2, 4, 4, 2}, {2, 2, 3, 3, 2, 2}},
                    {{"channels", 4}, {"kernel_size", Shape{3, 3}}, {"padding", 1}, {"data_layout", "NCHW2c"},
                     {"kernel_layout", "OIHW2i2o"}}),
       spread},
      {"contrib_depthwise_conv2d_nchwc",
       seeded_op_fn("nn.contrib_depthwise_conv2d_NCHWc", {{1, 2, 4, 4, 2}, {2, 1, 3, 3, 1, 2}},
                    {{"groups", 4}, {"strides", 2}, {"padding", 1}, {"data_layout", "NCHW2c"},
                     {"kernel_layout", "OIHW1i2o"}}),
       spread},
      {"conv2d_backward_weight",
       seeded_op_fn("nn.conv2d_backward_weight", {{2, 3, 3, 2}, {2, 2, 5, 4}},
                    {{"kernel_size", Shape{3, 3}}, {"strides", 2}, {"padding", 1}}),
       spread},
      {"conv2d_backward_weight_grouped_nhwc",
       seeded_op_fn("nn.conv2d_backward_weight", {{1, 4, 4, 4}, {1, 5, 5, 2}},
                    {{"kernel_size", Shape{2, 2}}, {"groups", 2}, {"data_layout", "NHWC"}, {"kernel_layout", "NHWC"},
                     {"out_layout", "HWIO"}}),
       spread},
      {"max_pool2d", op_fn("nn.max_pool2d", {{1, 2, 4, 4}}, {{"pool_size", Shape{2, 2}}, {"strides", Shape{2, 2}}}),
       spread},
      {"max_pool2d_padded_strided",
       weighted_op_fn("nn.max_pool2d", {{1, 2, 7, 6}}, {1, 2, 4, 3},
                      {{"pool_size", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"padding", 1}}),
       spread},
      {"max_pool2d_padded_strided_nhwc",
       weighted_op_fn("nn.max_pool2d", {{2, 7, 6, 3}}, {2, 4, 3, 3},
                      {{"pool_size", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"padding", 1}, {"layout", "NHWC"}}),
       spread},
      {"max_pool2d_dilated",
       weighted_op_fn("nn.max_pool2d", {{1, 2, 7, 6}}, {1, 2, 4, 3},
                      {{"pool_size", Shape{2, 2}}, {"strides", Shape{2, 2}}, {"dilation", Shape{2, 2}},
                       {"padding", 1}}),
       spread},
      {"avg_pool2d_ceil_include_pad",
       weighted_op_fn("nn.avg_pool2d", {{1, 2, 7, 6}}, {1, 2, 4, 4},
                      {{"pool_size", Shape{3, 3}},
                       {"strides", Shape{2, 2}},
                       {"padding", 1},
                       {"ceil_mode", true},
                       {"count_include_pad", true}}),
       spread},
      {"avg_pool2d_dilated_nhwc",
       weighted_op_fn("nn.avg_pool2d", {{1, 7, 6, 2}}, {1, 6, 5, 2},
                      {{"pool_size", Shape{2, 2}},
                       {"dilation", Shape{2, 2}},
                       {"padding", Shape{1, 0, 0, 1}},
                       {"layout", "NHWC"}}),
       spread},
      {"max_pool1d_dilated_ceil",
       weighted_op_fn("nn.max_pool1d", {{1, 2, 9}}, {1, 2, 3},
                      {{"pool_size", Shape{3}}, {"strides", Shape{2}}, {"dilation", Shape{2}}, {"ceil_mode", true}}),
       spread},
      {"avg_pool1d_ceil_include_pad",
       weighted_op_fn("nn.avg_pool1d", {{1, 2, 8}}, {1, 2, 5},
                      {{"pool_size", Shape{3}}, {"strides", Shape{2}}, {"padding", 1}, {"ceil_mode", true},
                       {"count_include_pad", true}}),
       spread},
      {"avg_pool2d_grad",
       seeded_op_fn("nn.avg_pool2d_grad", {{1, 2, 3, 3}, {1, 2, 5, 6}},
                    {{"pool_size", Shape{3, 2}}, {"strides", Shape{2, 2}}, {"padding", Shape{1, 0, 1, 0}}}),
       spread},
      {"avg_pool2d_grad_ceil_include_pad_nhwc",
       seeded_op_fn("nn.avg_pool2d_grad", {{1, 4, 4, 2}, {1, 7, 6, 2}},
                    {{"pool_size", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"padding", 1}, {"ceil_mode", true},
                     {"count_include_pad", true}, {"layout", "NHWC"}}),
       spread},
      {"max_pool2d_grad_padded_strided",
       seeded_op_fn("nn.max_pool2d_grad", {{1, 2, 4, 3}, {1, 2, 7, 6}},
                    {{"pool_size", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"padding", 1}}),
       spread},
      {"max_pool2d_grad_ceil_nhwc",
       seeded_op_fn("nn.max_pool2d_grad", {{2, 4, 3, 2}, {2, 6, 6, 2}},
                    {{"pool_size", Shape{2, 3}}, {"strides", Shape{2, 2}}, {"padding", Shape{1, 0, 0, 0}},
                     {"ceil_mode", true}, {"layout", "NHWC"}}),
       spread},
      {"avg_pool2d_padded",
       op_fn("nn.avg_pool2d", {{1, 1, 5, 5}}, {{"pool_size", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"padding", 1}}),
       spread},
      {"max_pool1d",
       op_fn("nn.max_pool1d", {{1, 2, 7}}, {{"pool_size", Shape{3}}, {"strides", Shape{2}}, {"padding", 1}}), spread},
      {"avg_pool1d_nwc",
       op_fn("nn.avg_pool1d", {{2, 5, 3}},
             {{"pool_size", Shape{2}}, {"layout", "NWC"}, {"padding", Shape{1, 0}}, {"count_include_pad", true}}),
       spread},
      {"max_pool3d",
       weighted_op_fn("nn.max_pool3d", {{1, 2, 4, 3, 5}}, {1, 2, 2, 2, 3},
                      {{"pool_size", Shape{2, 2, 3}}, {"strides", Shape{2, 1, 2}}, {"padding", Shape{0, 0, 1}}}),
       spread},
      {"max_pool3d_dilated_ceil",
       weighted_op_fn("nn.max_pool3d", {{1, 1, 5, 4, 4}}, {1, 1, 2, 2, 2},
                      {{"pool_size", Shape{2, 2, 2}}, {"strides", Shape{2, 2, 2}}, {"dilation", Shape{2, 1, 1}},
                       {"ceil_mode", true}}),
       spread},
      {"avg_pool3d_padded",
       weighted_op_fn("nn.avg_pool3d", {{1, 2, 3, 4, 3}}, {1, 2, 2, 2, 2},
                      {{"pool_size", Shape{2, 3, 2}}, {"strides", Shape{2, 2, 2}}, {"padding", 1}}),
       spread},
      {"avg_pool3d_include_pad_ndhwc",
       weighted_op_fn("nn.avg_pool3d", {{1, 3, 3, 4, 2}}, {1, 2, 2, 2, 2},
                      {{"pool_size", Shape{2, 2, 2}}, {"strides", Shape{2, 2, 2}}, {"padding", Shape{1, 0, 0, 0, 1, 0}},
                       {"layout", "NDHWC"}, {"count_include_pad", true}}),
       spread},
      {"upsampling_nearest", op_fn("nn.upsampling", {{1, 2, 2, 3}}, {{"scale_h", 2.0}, {"scale_w", 1.5}}), spread},
      {"upsampling_bilinear_aligned",
       op_fn("nn.upsampling", {{1, 1, 3, 2}},
             {{"scale_h", 2.0}, {"scale_w", 2.0}, {"method", "bilinear"}, {"align_corners", true}}),
       spread},
      {"upsampling_bicubic_nhwc",
       op_fn("nn.upsampling", {{1, 3, 3, 2}},
             {{"scale_h", 2.0}, {"scale_w", 2.0}, {"method", "bicubic"}, {"layout", "NHWC"}}),
       spread},
      {"upsampling3d_trilinear",
       op_fn("nn.upsampling3d", {{1, 1, 2, 2, 3}},
             {{"scale_d", 2.0}, {"scale_h", 1.0}, {"scale_w", 2.0}, {"method", "trilinear"}}),
       spread},
      {"adaptive_avg_pool2d", op_fn("nn.adaptive_avg_pool2d", {{1, 2, 5, 4}}, {{"output_size", Shape{3, 3}}}), spread},
      {"adaptive_avg_pool1d_nwc", op_fn("nn.adaptive_avg_pool1d", {{1, 7, 2}}, {{"output_size", 3}, {"layout", "NWC"}}),
       spread},
      {"adaptive_avg_pool3d", op_fn("nn.adaptive_avg_pool3d", {{1, 1, 3, 2, 4}}, {{"output_size", Shape{2, 1, 3}}}),
       spread},
      {"adaptive_max_pool2d",
       weighted_op_fn("nn.adaptive_max_pool2d", {{2, 2, 5, 4}}, {2, 2, 3, 3}, {{"output_size", Shape{3, 3}}}), spread},
      {"adaptive_max_pool1d_nwc",
       weighted_op_fn("nn.adaptive_max_pool1d", {{1, 7, 2}}, {1, 3, 2}, {{"output_size", 3}, {"layout", "NWC"}}),
       spread},
      {"adaptive_max_pool3d",
       weighted_op_fn("nn.adaptive_max_pool3d", {{1, 2, 3, 2, 4}}, {1, 2, 2, 1, 3}, {{"output_size", Shape{2, 1, 3}}}),
       spread},
      {"global_avg_pool2d", op_fn("nn.global_avg_pool2d", {{2, 3, 2, 3}}), spread},
      {"global_max_pool2d", op_fn("nn.global_max_pool2d", {{2, 3, 2, 3}}), spread},
      {"depth_to_space_dcr", weighted_op_fn("nn.depth_to_space", {{1, 8, 2, 3}}, {1, 2, 4, 6}, {{"block_size", 2}}),
       spread},
      {"depth_to_space_crd_nhwc",
       weighted_op_fn("nn.depth_to_space", {{2, 2, 1, 8}}, {2, 4, 2, 2},
                      {{"block_size", 2}, {"layout", "NHWC"}, {"mode", "CRD"}}),
       spread},
      {"depth_to_space_crd",
       weighted_op_fn("nn.depth_to_space", {{1, 8, 2, 1}}, {1, 2, 4, 2}, {{"block_size", 2}, {"mode", "CRD"}}),
       spread},
      {"space_to_depth", weighted_op_fn("nn.space_to_depth", {{1, 2, 4, 2}}, {1, 8, 2, 1}, {{"block_size", 2}}),
       spread},
      {"space_to_depth_nhwc",
       weighted_op_fn("nn.space_to_depth", {{2, 2, 4, 3}}, {2, 1, 2, 12}, {{"block_size", 2}, {"layout", "NHWC"}}),
       spread},
      {"space_to_batch_nd",
       weighted_op_fn("nn.space_to_batch_nd", {{2, 3, 2, 2}}, {8, 2, 2, 2},
                      {{"block_shape", Shape{2, 2}}, {"paddings", std::vector<AttrValue>{Shape{1, 0}, Shape{1, 1}}}}),
       spread},
      {"batch_to_space_nd",
       weighted_op_fn("nn.batch_to_space_nd", {{6, 2, 3}}, {2, 3, 3},
                      {{"block_shape", Shape{3}}, {"crops", std::vector<AttrValue>{Shape{1, 2}}}}),
       spread},
      {"fifo_buffer", seeded_op_fn("nn.fifo_buffer", {{2, 2, 3}, {2, 5, 3}}, {{"axis", 1}}), spread},
      {"fifo_buffer_last_axis", seeded_op_fn("nn.fifo_buffer", {{3, 1}, {3, 4}}, {{"axis", -1}}), spread},
      {"dilate", weighted_op_fn("nn.dilate", {{2, 3, 2}}, {2, 5, 4}, {{"strides", Shape{1, 2, 3}}}), spread},
      {"global_avg_pool2d_nhwc", op_fn("nn.global_avg_pool2d", {{1, 2, 3, 2}}, {{"layout", "NHWC"}}), spread},
      // Row 1 is empty and row 2 stores column 2 twice.
      sparse_case("sparse_dense_csr", "nn.sparse_dense", {3, 5}, {{6}, {1, 4, 0, 2, 2, 3}, {0, 2, 2, 5, 6}}),
      sparse_case("sparse_dense_bsr_lhs", "nn.sparse_dense", {5, 6}, {{3, 2, 2}, {1, 0, 2}, {0, 1, 3}},
                  {{"sparse_lhs", true}}),
      sparse_case("sparse_add", "nn.sparse_add", {3, 4},
                  {{4}, {0, 3, 1, 1}, {0, 2, 2, 4}, DataType::Int(64)}),
      {"sparse_transpose",
       [] {
         // Column 1 holds three values (rows 0, 2, 3): the transpose keeps their order.
         Var v = var("values", f64({6})), i = var("indices", tensor_type({6}, DataType::Int(32))),
             p = var("indptr", tensor_type({5}, DataType::Int(32))), w = var("w", f64({6}));
         return function({v, i, p, w}, call("multiply", {get_item(call("nn.sparse_transpose", {v, i, p}), 0), w}));
       },
       spread,
       {0, 3},
       [] {
         return std::vector<Tensor>{Tensor(), int_vector({1, 3, 0, 1, 2, 1}, DataType::Int(32)),
                                    int_vector({0, 2, 3, 5, 6}, DataType::Int(32)), Tensor()};
       }},
      sparse_case("sparse_conv2d_1x1_nhwc", "nn.sparse_conv2d", {1, 3, 2, 4}, {{3, 2}, {0, 3, 2}, {0, 2, 3}}),
      sparse_case("sparse_conv2d_3x3_nchw", "nn.sparse_conv2d", {1, 2, 3, 4}, {{4, 2, 1}, {0, 7, 17, 9}, {0, 3, 4}},
                  {{"kernel_size", 3}, {"layout", "NCHW"}}),
      sparse_case("sparse_conv2d_3x3_nhwc", "nn.sparse_conv2d", {1, 3, 3, 2}, {{3, 1, 2}, {0, 8, 4}, {0, 2, 3}},
                  {{"kernel_size", 3}}),
      {"deformable_conv2d",
       seeded_op_fn("nn.deformable_conv2d", {{1, 2, 5, 4}, {1, 18, 5, 4}, {3, 2, 3, 3}}, {{"padding", 1}}), spread},
      {"deformable_conv2d_groups_strided_dilated_nhwc",
       seeded_op_fn("nn.deformable_conv2d", {{1, 6, 5, 4}, {1, 3, 3, 16}, {2, 2, 4, 3}},
                    {{"kernel_size", Shape{2, 2}}, {"strides", 2}, {"padding", 1}, {"dilation", 2},
                     {"deformable_groups", 2}, {"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}}),
       spread},
  };
}

class NnOpGradient : public ::testing::TestWithParam<GradCase> {};

TEST_P(NnOpGradient, MatchesCentralDifferencesFirstOrder) {
  expect_gradients_match(GetParam(), GradientMode::kFirstOrder);
}
TEST_P(NnOpGradient, MatchesCentralDifferencesHigherOrder) {
  expect_gradients_match(GetParam(), GradientMode::kHigherOrder);
}

INSTANTIATE_TEST_SUITE_P(NnOps, NnOpGradient, ::testing::ValuesIn(nn_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(NnGradientErrors, DeformableConv2dWithGroupsIsRefusedNamingTheAttr) {
  OpCall c = op_call("nn.deformable_conv2d", {{1, 4, 5, 5}, {1, 18, 3, 3}, {2, 2, 3, 3}}, {{"groups", 2}});
  Function fn = function(c.params, c.call);
  for (GradientMode mode : {GradientMode::kFirstOrder, GradientMode::kHigherOrder}) {
    try {
      gradient(fn, {}, mode);
      FAIL() << "no error in " << gradient_mode_name(mode);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("nn.deformable_conv2d takes groups=1 (as its reference kernel), got "
                                           "groups=2"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace weft::testing
