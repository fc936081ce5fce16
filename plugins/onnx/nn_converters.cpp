// ONNX's neural-network operators (convolutions, pooling, normalization,
// padding, resizing) mapped to weft's nn ops, one converter each, with each
// operator's attribute semantics (auto_pad, ceil_mode, count_include_pad,
// output_shape) as the ONNX specification defines them.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "graph_import.h"

namespace onnx_frontend {
namespace {

using Exprs = std::vector<sdk::Expr>;
using Ints = std::vector<int64_t>;

/// The spatial rank of a node whose input 0 is N, C, spatial...; an error
/// unless it is 1, 2 or 3.
size_t spatial_rank(const GraphImport& g, const onnx::NodeProto& n, const Ints& in) {
  if (in.size() < 3 || in.size() > 5)
    throw g.error(n, "input '" + n.input(0) + "' has " + std::to_string(in.size()) +
                         " dimensions; weft maps 1-, 2- and 3-D (N, C, spatial...) data");
  return in.size() - 2;
}

/// `name`, an attribute of `rank` ints (or `fallback` when unset); an error naming it otherwise.
Ints spatial_attr(const GraphImport& g, const onnx::NodeProto& n, const std::string& name, size_t rank,
                  int64_t fallback) {
  Ints v = attr_ints(n, name, Ints(rank, fallback));
  if (v.size() != rank)
    throw g.error(n, name + " has " + std::to_string(v.size()) + " values; expected " + std::to_string(rank));
  for (int64_t x : v)
    if (x < (name == "output_padding" ? 0 : 1))
      throw g.error(n, name + " holds " + std::to_string(x) + "; expected " +
                           (name == "output_padding" ? "no negative value" : "positive values"));
  return v;
}

/// The padding of a convolution or pooling: ONNX's pads (all begins, then
/// all ends) or its auto_pad, over the last `kernel.size()` axes of `in`.
Ints padding(const onnx::NodeProto& n, const GraphImport& g, const Ints& in, const Ints& kernel, const Ints& strides,
             const Ints& dilations) {
  const size_t rank = kernel.size();
  const std::string mode = attr_string(n, "auto_pad", "NOTSET");
  if (mode == "NOTSET") {
    Ints pads = attr_ints(n, "pads", Ints(2 * rank, 0));
    if (pads.size() != 2 * rank)
      throw g.error(n, "pads has " + std::to_string(pads.size()) + " values; expected " + std::to_string(2 * rank));
    for (int64_t p : pads)
      if (p < 0) throw g.error(n, "pads holds " + std::to_string(p) + "; expected no negative value");
    return pads;
  }
  if (mode == "VALID") return Ints(2 * rank, 0);
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER")
    throw g.error(n, "auto_pad is '" + mode + "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  Ints pads(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = in[in.size() - rank + d], out = (size + strides[d] - 1) / strides[d];
    const int64_t total = std::max<int64_t>((out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - size, 0);
    const int64_t small = total / 2;
    pads[d] = mode == "SAME_UPPER" ? small : total - small;
    pads[d + rank] = total - pads[d];
  }
  return pads;
}

sdk::Expr with_bias(GraphImport& g, const onnx::NodeProto& n, sdk::Expr out) {
  if (!g.has_input(n, 2)) return out;
  return sdk::call("nn.bias_add", {out, g.input(n, 2)}, {{"axis", int64_t{1}}});
}

Exprs conv(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0)), weight = g.shape(n.input(1));
  const size_t rank = spatial_rank(g, n, in);
  if (weight.size() != in.size()) throw g.error(n, "the weight's rank differs from the data's");
  const Ints kernel = attr_ints(n, "kernel_shape", Ints(weight.begin() + 2, weight.end()));
  const Ints strides = spatial_attr(g, n, "strides", rank, 1), dilations = spatial_attr(g, n, "dilations", rank, 1);
  return {with_bias(g, n,
                    sdk::call("nn.conv" + std::to_string(rank) + "d", {g.input(n, 0), g.input(n, 1)},
                              {{"strides", strides},
                               {"padding", padding(n, g, in, kernel, strides, dilations)},
                               {"dilation", dilations},
                               {"groups", attr_int(n, "group", 1)},
                               {"channels", weight[0]},
                               {"kernel_size", kernel}}))};
}

/// ConvTranspose: the weight is (C_in, C_out / group, kernel...), weft's
/// IOHW. The padding comes from pads, or from output_shape or auto_pad as
/// the specification works it out (SAME_UPPER puts the smaller half first).
Exprs conv_transpose(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0)), weight = g.shape(n.input(1));
  const size_t rank = spatial_rank(g, n, in);
  if (weight.size() != in.size()) throw g.error(n, "the weight's rank differs from the data's");
  const Ints kernel = attr_ints(n, "kernel_shape", Ints(weight.begin() + 2, weight.end()));
  const Ints strides = spatial_attr(g, n, "strides", rank, 1), dilations = spatial_attr(g, n, "dilations", rank, 1);
  const Ints output_padding = spatial_attr(g, n, "output_padding", rank, 0);
  const std::string mode = attr_string(n, "auto_pad", "NOTSET");
  Ints output_shape = attr_ints(n, "output_shape");
  if (output_shape.size() == rank + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  Ints pads;
  if (!output_shape.empty() || mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    if (!output_shape.empty() && output_shape.size() != rank)
      throw g.error(n, "output_shape has " + std::to_string(output_shape.size()) + " values; expected " +
                           std::to_string(rank));
    pads.assign(2 * rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t size = in[2 + d];
      const int64_t want = output_shape.empty() ? size * strides[d] : output_shape[d];
      const int64_t total =
          strides[d] * (size - 1) + output_padding[d] + (kernel[d] - 1) * dilations[d] + 1 - want;
      if (total < 0)
        throw g.error(n, "output size " + std::to_string(want) + " on spatial axis " + std::to_string(d) +
                             " is larger than the transposed convolution makes");
      pads[d] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[d + rank] = total - pads[d];
    }
  } else {
    pads = padding(n, g, in, kernel, strides, dilations);
  }
  const int64_t groups = attr_int(n, "group", 1);
  return {with_bias(g, n,
                    sdk::call("nn.conv" + std::to_string(rank) + "d_transpose", {g.input(n, 0), g.input(n, 1)},
                              {{"strides", strides},
                               {"padding", pads},
                               {"output_padding", output_padding},
                               {"dilation", dilations},
                               {"groups", groups},
                               {"channels", weight[1] * groups},
                               {"kernel_size", kernel}}))};
}

/// The spatial padding (all begins, then all ends) of `e` when it is an
/// nn.pad of zeros, by a non-negative width, of the spatial axes alone; empty otherwise.
Ints zero_padding_of(const sdk::Expr& e, size_t rank) {
  if (!e.is(WEFT_EXPR_CALL) || e.op_name() != "nn.pad" || e.attrs().get_string("pad_mode") != "constant") return {};
  const sdk::Expr value = e.arg(1);
  if (!value.is(WEFT_EXPR_CONSTANT)) return {};
  const DLTensor& v = value.data();
  const char* bytes = static_cast<const char*>(v.data) + v.byte_offset;
  if (v.dtype.code != kDLFloat || v.dtype.bits != 32 || *reinterpret_cast<const float*>(bytes) != 0.0f) return {};
  const std::vector<sdk::Value> widths = e.attrs().get_value("pad_width").as_list();
  if (widths.size() != rank + 2) return {};
  Ints pads(2 * rank);
  for (size_t d = 0; d < widths.size(); ++d) {
    const Ints w = widths[d].as_ints();
    if (w.size() != 2 || w[0] < 0 || w[1] < 0 || (d < 2 && (w[0] != 0 || w[1] != 0))) return {};
    if (d >= 2) pads[d - 2] = w[0], pads[d - 2 + rank] = w[1];
  }
  return pads;
}

/// MaxPool and AveragePool over 1, 2 or 3 spatial axes. An AveragePool of
/// its own padding 0 over an explicit Pad of zeros (how PyTorch exports
/// avg_pool2d with padding) is one pool padded by the Pad, the zeros counted.
template <bool Max>
Exprs pool(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0));
  const size_t rank = spatial_rank(g, n, in);
  const Ints kernel = spatial_attr(g, n, "kernel_shape", rank, 0);
  const Ints strides = spatial_attr(g, n, "strides", rank, 1), dilations = spatial_attr(g, n, "dilations", rank, 1);
  if (n.output_size() > 1 && !n.output(1).empty()) throw g.error(n, "weft does not compute MaxPool's indices");
  sdk::Expr data = g.input(n, 0);
  Ints pads = padding(n, g, in, kernel, strides, dilations);
  bool count_include_pad = attr_int(n, "count_include_pad", 0) != 0;
  if (!Max && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    if (Ints folded = zero_padding_of(data, rank); !folded.empty()) {
      data = data.arg(0);
      pads = folded;
      count_include_pad = true;
    }
  }
  sdk::AttrList attrs = {{"pool_size", kernel},
                         {"strides", strides},
                         {"dilation", dilations},
                         {"padding", pads},
                         {"ceil_mode", attr_int(n, "ceil_mode", 0) != 0}};
  if (!Max) attrs.push_back({"count_include_pad", count_include_pad});
  return {sdk::call(std::string(Max ? "nn.max_pool" : "nn.avg_pool") + std::to_string(rank) + "d", {data}, attrs)};
}

/// GlobalAveragePool and GlobalMaxPool: weft's global pooling op for 2-D
/// data (what targets fuse), a reduction over the spatial axes otherwise.
template <bool Max>
Exprs global_pool(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0));
  const size_t rank = spatial_rank(g, n, in);
  if (rank == 2) return {sdk::call(Max ? "nn.global_max_pool2d" : "nn.global_avg_pool2d", {g.input(n, 0)})};
  Ints axes(rank);
  std::iota(axes.begin(), axes.end(), 2);
  return {sdk::call(Max ? "max" : "mean", {g.input(n, 0)}, {{"axis", axes}, {"keepdims", true}})};
}

/// BatchNormalization for inference: one output (and, from opset 14, training_mode 0).
Exprs batch_norm(GraphImport& g, const onnx::NodeProto& n) {
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty()) throw g.error(n, "weft maps BatchNormalization for inference (one output)");
  if (attr_int(n, "training_mode", 0) != 0) throw g.error(n, "weft maps BatchNormalization with training_mode 0");
  sdk::Expr bn = sdk::call("nn.batch_norm", {g.input(n, 0), g.input(n, 1), g.input(n, 2), g.input(n, 3), g.input(n, 4)},
                           {{"epsilon", static_cast<double>(attr_float(n, "epsilon", 1e-5f))}, {"axis", int64_t{1}}});
  return {sdk::get_item(bn, 0)};
}

Exprs instance_norm(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("nn.instance_norm", {g.input(n, 0), g.input(n, 1), g.input(n, 2)},
                    {{"axis", int64_t{1}}, {"epsilon", static_cast<double>(attr_float(n, "epsilon", 1e-5f))}})};
}

/// LayerNormalization (opset 17): normalized over the axes from `axis` on.
/// Over several axes, the data is seen flattened so weft's layer_norm
/// normalizes one axis holding them all.
Exprs layer_norm(GraphImport& g, const onnx::NodeProto& n) {
  for (int i = 1; i < n.output_size(); ++i)
    if (!n.output(i).empty()) throw g.error(n, "weft maps LayerNormalization's first output only");
  const Ints in = g.shape(n.input(0));
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = attr_int(n, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw g.error(n, "axis " + std::to_string(attr_int(n, "axis", -1)) + " is out of range");
  const double epsilon = attr_float(n, "epsilon", 1e-5f);
  const int64_t inner = std::accumulate(in.begin() + axis, in.end(), int64_t{1}, std::multiplies<>());
  const bool flatten = axis != rank - 1;
  auto flat = [&](const sdk::Expr& e, Ints shape) {
    return flatten ? sdk::call("reshape", {e}, {{"newshape", shape}}) : e;
  };
  const sdk::Expr scale = flat(g.input(n, 1), {inner});
  const sdk::Expr bias = g.has_input(n, 2) ? flat(g.input(n, 2), {inner}) : sdk::call("zeros_like", {scale});
  Ints rows(in.begin(), in.begin() + axis);
  rows.push_back(inner);
  const sdk::Expr y = sdk::call("nn.layer_norm", {flat(g.input(n, 0), rows), scale, bias},
                                {{"axis", int64_t{-1}}, {"epsilon", epsilon}});
  return {flatten ? sdk::call("reshape", {y}, {{"newshape", in}}) : y};
}

/// LRN: weft's lrn scales the square sum by alpha / size, as ONNX does.
Exprs lrn(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("nn.lrn", {g.input(n, 0)},
                    {{"size", attr_int(n, "size", 1)},
                     {"axis", int64_t{1}},
                     {"alpha", static_cast<double>(attr_float(n, "alpha", 1e-4f))},
                     {"beta", static_cast<double>(attr_float(n, "beta", 0.75f))},
                     {"bias", static_cast<double>(attr_float(n, "bias", 1.0f))}})};
}

/// Pad (opset 11 on): pads an input of all begins then all ends (negative
/// crops), constant_value an optional scalar input, mode constant, reflect or edge.
Exprs pad(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0)), pads = g.ints(g.input(n, 1), n, "pads");
  if (pads.size() != 2 * in.size())
    throw g.error(n, "pads has " + std::to_string(pads.size()) + " values; expected " + std::to_string(2 * in.size()) +
                         " (a begin and an end for each axis)");
  const std::string mode = attr_string(n, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    throw g.error(n, "mode is '" + mode + "'; expected constant, reflect or edge");
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) return {g.input(n, 0)};
  std::vector<sdk::Value> widths;
  for (size_t d = 0; d < in.size(); ++d) widths.push_back(Ints{pads[d], pads[d + in.size()]});
  sdk::Expr value = g.has_input(n, 2) ? g.input(n, 2) : g.scalar_like(0, n.input(0));
  if (g.has_input(n, 2) && !g.shape(n.input(2)).empty())  // a one-element tensor, as some exporters write it
    value = sdk::call("reshape", {value}, {{"newshape", Ints{}}});
  return {sdk::call("nn.pad", {g.input(n, 0), value}, {{"pad_width", widths}, {"pad_mode", mode}})};
}

/// Resize (opset 11 on; Upsample and opset-10 Resize arrive converted) of
/// the spatial axes of 4-D or 5-D data, onto weft's upsampling ops for the
/// modes they compute: nearest with asymmetric coordinates rounded down
/// (PyTorch's nearest), linear with half_pixel (PyTorch's bilinear and
/// trilinear), align_corners or asymmetric coordinates, and cubic with
/// coefficient -0.5 and asymmetric or align_corners coordinates. The output
/// size comes from shape inference; scales must give whole sizes, where ONNX's
/// coordinate scale and weft's (input / output extent) agree.
Exprs resize(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0));
  if (in.size() != 4 && in.size() != 5) throw g.error(n, "weft maps Resize of 4-D (NCHW) and 5-D (NCDHW) data");
  Ints out;  // sizes, or each extent times its scale, which must be whole
  if (g.has_input(n, 3)) {
    out = g.ints(g.input(n, 3), n, "sizes");
  } else if (g.has_input(n, 2)) {
    for (double scale : g.floats(g.input(n, 2), n, "scales")) {
      const size_t d = out.size();
      const double extent = d < in.size() ? static_cast<double>(in[d]) * scale : 0;
      if (!(extent >= 1 && extent < 0x1p40) || extent != std::floor(extent))
        throw g.error(n, "scale " + std::to_string(scale) + " of axis " + std::to_string(d) +
                             " does not give a whole, positive size; weft maps scales that do");
      out.push_back(static_cast<int64_t>(extent));
    }
  }
  if (out.size() != in.size()) throw g.error(n, "needs scales or sizes, one for each of the data's axes");
  for (int64_t d : out)
    if (d < 1) throw g.error(n, "sizes holds " + std::to_string(d) + "; expected positive sizes");
  if (in[0] != out[0] || in[1] != out[1]) throw g.error(n, "weft maps Resize of the spatial axes only");
  bool every_axis_grows_past_one = true;
  for (size_t d = 2; d < out.size(); ++d) every_axis_grows_past_one = every_axis_grows_past_one && out[d] > 1;
  const std::string mode = attr_string(n, "mode", "nearest");
  std::string coord = attr_string(n, "coordinate_transformation_mode", "half_pixel");
  if (coord == "pytorch_half_pixel" && every_axis_grows_past_one) coord = "half_pixel";  // the same then
  const bool volume = in.size() == 5;
  auto scale = [&](size_t d) { return static_cast<double>(out[d]) / static_cast<double>(in[d]); };
  auto upsampling = [&](const sdk::Expr& x, const std::string& method, bool align_corners) {
    return sdk::call("nn.upsampling", {x},
                     {{"scale_h", scale(2)}, {"scale_w", scale(3)}, {"method", method}, {"align_corners", align_corners}});
  };
  auto upsampling3d = [&](const sdk::Expr& x, double scale_d, double scale_h, double scale_w, const std::string& method) {
    return sdk::call("nn.upsampling3d", {x},
                     {{"scale_d", scale_d}, {"scale_h", scale_h}, {"scale_w", scale_w}, {"method", method},
                      {"coordinate_transformation_mode", coord}});
  };
  const sdk::Expr x = g.input(n, 0);
  if (mode == "nearest" && coord == "asymmetric" && attr_string(n, "nearest_mode", "round_prefer_floor") == "floor")
    return {volume ? upsampling3d(x, scale(2), scale(3), scale(4), "nearest_neighbor")
                   : upsampling(x, "nearest_neighbor", false)};
  if (mode == "linear" && (coord == "half_pixel" || coord == "align_corners" || coord == "asymmetric")) {
    if (volume) return {upsampling3d(x, scale(2), scale(3), scale(4), "trilinear")};
    if (coord != "half_pixel") return {upsampling(x, "bilinear", coord == "align_corners")};
    // 2-D half_pixel: trilinear over a unit depth axis, which it leaves as it is.
    const sdk::Expr deep = sdk::call("expand_dims", {x}, {{"axis", int64_t{2}}});
    return {sdk::call("squeeze", {upsampling3d(deep, 1.0, scale(2), scale(3), "trilinear")}, {{"axis", Ints{2}}})};
  }
  if (mode == "cubic" && !volume && (coord == "asymmetric" || coord == "align_corners") &&
      attr_float(n, "cubic_coeff_a", -0.75f) == -0.5f && attr_int(n, "exclude_outside", 0) == 0)
    return {upsampling(x, "bicubic", coord == "align_corners")};
  throw g.error(n, "mode " + mode + " with coordinate_transformation_mode " +
                       attr_string(n, "coordinate_transformation_mode", "half_pixel") +
                       " is not mapped; weft maps nearest (asymmetric, nearest_mode floor), linear (half_pixel, "
                       "pytorch_half_pixel, align_corners, asymmetric) and cubic (cubic_coeff_a -0.5, asymmetric or "
                       "align_corners, 4-D)");
}

/// DepthToSpace (mode DCR or CRD) and SpaceToDepth of NCHW data.
Exprs depth_space(GraphImport& g, const onnx::NodeProto& n) {
  const bool to_space = n.op_type() == "DepthToSpace";
  const int64_t block = attr_int(n, "blocksize", 0);
  if (block < 1) throw g.error(n, "blocksize is " + std::to_string(block) + "; expected a positive int");
  sdk::AttrList attrs = {{"block_size", block}, {"layout", "NCHW"}};
  if (to_space) {
    const std::string mode = attr_string(n, "mode", "DCR");
    if (mode != "DCR" && mode != "CRD") throw g.error(n, "mode is '" + mode + "'; expected DCR or CRD");
    attrs.push_back({"mode", mode});
  }
  return {sdk::call(to_space ? "nn.depth_to_space" : "nn.space_to_depth", {g.input(n, 0)}, attrs)};
}

}  // namespace

const std::map<std::string, Converter>& nn_converters() {
  static const std::map<std::string, Converter> table = {
      {"AveragePool", pool<false>},
      {"BatchNormalization", batch_norm},
      {"Conv", conv},
      {"ConvTranspose", conv_transpose},
      {"DepthToSpace", depth_space},
      {"GlobalAveragePool", global_pool<false>},
      {"GlobalMaxPool", global_pool<true>},
      {"InstanceNormalization", instance_norm},
      {"LayerNormalization", layer_norm},
      {"LRN", lrn},
      {"MaxPool", pool<true>},
      {"Pad", pad},
      {"Resize", resize},
      {"SpaceToDepth", depth_space},
  };
  return table;
}

}  // namespace onnx_frontend
