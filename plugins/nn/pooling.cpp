// nn.max_pool1d/2d/3d and nn.avg_pool1d/2d/3d: windowed max and mean over
// the W, HW or DHW axes of any layout that has them, as Relay's pooling.cc
// relations and TOPI's pool_impl_nd compute them. The family's other ops
// live in pooling_adaptive.cpp and pooling_grad.cpp.
#include "pooling.h"

#include <algorithm>
#include <limits>
#include <weft/sdk/gradient.hpp>

#include "nn_ops.h"
#include "te_util.h"

namespace weft_nn {

namespace pooling {
namespace {

struct PoolOp {
  const char* name;
  const char* spatial;  // the pooled axes, outermost first
  const char* layout;   // the default layout
  bool is_max;
};

Type pool_relation(const PoolOp& p, const std::vector<Type>& args, const Attrs& attrs) {
  Type data = data_arg(args, 1);
  return Type::tensor(PoolAttrs::read(attrs, p.spatial, p.is_max, data).pooled_shape(data), data.dtype());
}

/// TOPI's divisor of an average window that starts at `start` (padding
/// included) along each pooled axis, integer arithmetic and all: with
/// count_include_pad the window is clipped to the padded input (less the
/// ceil_mode extension), without it to the input itself.
int64_t avg_divisor(const Window& w, const std::vector<int64_t>& start, const std::vector<int64_t>& extent,
                    bool count_include_pad) {
  int64_t count = 1;
  for (size_t i = 0; i < start.size(); ++i) {
    const int64_t d = w.dilation[i];
    int64_t end = start[i] + (w.size[i] - 1) * d;
    if (count_include_pad) {
      end = std::min(end, extent[i] + w.pad_tail[i] - 1);
      count *= (end - start[i]) / d + 1;
    } else {
      // Steps along the dilated window from its start to the first element inside the input.
      int64_t jumps = std::max<int64_t>((d - 1 - start[i]) / d, 0);
      end = std::min(end, extent[i] - 1);
      count *= (end - (start[i] + d * jumps)) / d + 1;
    }
  }
  return count_include_pad ? count : std::max<int64_t>(count, 1);
}

/// Max pooling reads padding as the dtype's lowest value, average pooling as
/// zero; a window is never wider than the padded input (ceil_mode pads the
/// tail by strides - 1 more), so every position is data or padding.
template <typename T>
void pool_kernel(const PoolOp& p, const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& out = k.outputs.at(0);
  const PoolAttrs a = PoolAttrs::read(k.attrs, p.spatial, p.is_max, Type::tensor(in.shape(), in.dtype()));
  const std::vector<size_t>& axes = a.axes;
  const Window& w = a.window;
  std::vector<int64_t> in_shape = in.shape(), in_strides = strides_of(in_shape);
  std::vector<int64_t> extent, axis_stride;
  for (size_t a : axes) {
    extent.push_back(in_shape[a]);
    axis_stride.push_back(in_strides[a]);
  }
  const T* x = in.data<T>();
  T* y = out.data<T>();
  std::vector<int64_t> start(axes.size());
  int64_t o = 0;
  for_each_index(out.shape(), [&](const std::vector<int64_t>& index) {
    int64_t base = 0;
    for (size_t d = 0; d < index.size(); ++d) base += index[d] * in_strides[d];
    for (size_t i = 0; i < axes.size(); ++i) {
      base -= index[axes[i]] * axis_stride[i];  // pooled axes are added per window element
      start[i] = index[axes[i]] * w.strides[i] - w.pad_head[i];
    }
    T acc = p.is_max ? std::numeric_limits<T>::lowest() : T(0);
    for_each_index(w.size, [&](const std::vector<int64_t>& r) {
      int64_t offset = base;
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t pos = start[i] + r[i] * w.dilation[i];
        if (pos < 0 || pos >= extent[i]) return;  // padding
        offset += pos * axis_stride[i];
      }
      acc = p.is_max ? std::max(acc, x[offset]) : acc + x[offset];
    });
    y[o++] = p.is_max ? acc : acc / static_cast<T>(avg_divisor(w, start, extent, a.count_include_pad));
  });
}

/// Whether the reference's pool2d_grad op is the gradient of this 1-d or 2-d
/// pooling: it has no dilation, and for average pooling with ceil_mode and
/// count_include_pad it divides by the whole window where the forward op (as
/// TOPI's pool_impl_nd and PyTorch) counts only the part inside the padded input.
bool grad_op_covers(const PoolOp& p, const Attrs& attrs) {
  for (int64_t d : attrs.get_ints("dilation"))
    if (d != 1) return false;
  return p.is_max || !(attrs.get_bool("ceil_mode") && attrs.get_bool("count_include_pad"));
}

/// As Relay registers it for 2-d pooling: the matching pool2d_grad op.
std::vector<weft::sdk::Expr> pool2d_gradient(const PoolOp& p, const weft::sdk::Expr& call,
                                             const weft::sdk::Expr& grad) {
  Attrs given = call.attrs();
  weft::sdk::AttrList attrs;
  for (const char* name : {"pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode"}) {
    attrs.emplace_back(name, given.get_value(name));
  }
  if (!p.is_max) attrs.emplace_back("count_include_pad", given.get_value("count_include_pad"));
  return {weft::sdk::call(std::string(p.name) + "_grad", {grad, call.arg(0)}, attrs)};
}

/// 1-d pooling has no grad op of its own: pool a height of 1 inserted before
/// W (NCW -> NCHW, NWC -> NHWC) with the 2-d grad op, then drop it.
std::vector<weft::sdk::Expr> pool1d_gradient(const PoolOp& p, const weft::sdk::Expr& call,
                                             const weft::sdk::Expr& grad) {
  Attrs given = call.attrs();
  std::string layout = given.get_string("layout");
  size_t w = layout.find('W');
  if (w == std::string::npos || layout.find('H') != std::string::npos) {
    throw Error("the gradient of " + std::string(p.name) + " needs a layout with a W axis, got " + layout);
  }
  auto with_height = [w](std::vector<int64_t> shape) {
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(w), 1);
    return shape;
  };
  weft::sdk::Expr data = call.arg(0);
  std::vector<int64_t> padding = given.get_ints("padding");
  weft::sdk::AttrList attrs = {
      {"pool_size", std::vector<int64_t>{1, given.get_ints("pool_size")[0]}},
      {"strides", std::vector<int64_t>{1, given.get_ints("strides")[0]}},
      {"dilation", std::vector<int64_t>{1, given.get_ints("dilation")[0]}},
      {"padding", std::vector<int64_t>{0, padding[0], 0, padding[1]}},
      {"layout", layout.substr(0, w) + "H" + layout.substr(w)},
      {"ceil_mode", given.get_value("ceil_mode")}};
  if (!p.is_max) attrs.emplace_back("count_include_pad", given.get_value("count_include_pad"));
  auto as_2d = [](const weft::sdk::Expr& e, const std::vector<int64_t>& shape) {
    return weft::sdk::call("reshape", {e}, {{"newshape", shape}});
  };
  weft::sdk::Expr pooled_grad = weft::sdk::call(
      std::string(p.is_max ? "nn.max_pool2d" : "nn.avg_pool2d") + "_grad",
      {as_2d(grad, with_height(call.type().shape())), as_2d(data, with_height(data.type().shape()))}, attrs);
  return {weft::sdk::call("reshape_like", {pooled_grad, data})};
}

/// Without a grad op (3-d pooling, and the 1-d/2-d windows the grad ops do
/// not cover): the windows are boxes, so max pooling's gradient is
/// window_max_gradient's and average pooling's applies, axis by axis, the
/// transposed (out x in) matrix of 1 / (that axis's share of the divisor)
/// over each window's members (the divisor is a product over axes).
std::vector<weft::sdk::Expr> box_window_gradient(const PoolOp& p, const weft::sdk::Expr& call,
                                                 const weft::sdk::Expr& grad) {
  namespace ad = weft::sdk::grad;
  weft::sdk::Expr data = call.arg(0);
  const PoolAttrs a = PoolAttrs::read(call.attrs(), p.spatial, p.is_max, data.type());
  const std::vector<size_t>& axes = a.axes;
  const Window& w = a.window;
  // Row o of axis i: the members of output o's window and its divisor along that axis.
  auto matrix = [&](size_t i, int64_t oe, int64_t ie) {
    Window axis{{w.size[i]}, {w.strides[i]}, {w.dilation[i]}, {w.pad_head[i]}, {w.pad_tail[i]}, w.ceil_mode};
    std::vector<double> m(static_cast<size_t>(oe * ie), 0.0);
    for (int64_t o = 0; o < oe; ++o) {
      const int64_t start = o * w.strides[i] - w.pad_head[i];
      const double share =
          p.is_max ? 1.0 : 1.0 / static_cast<double>(avg_divisor(axis, {start}, {ie}, a.count_include_pad));
      for (int64_t k = 0; k < w.size[i]; ++k) {
        const int64_t pos = start + k * w.dilation[i];
        if (pos >= 0 && pos < ie) m[static_cast<size_t>(o * ie + pos)] = share;
      }
    }
    return m;
  };
  if (p.is_max) return {window_max_gradient(call, grad, axes, matrix)};
  std::vector<int64_t> in = ad::static_shape(data, "the pooled data"), current = ad::static_shape(call, "the output");
  weft::sdk::Expr result = grad;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = axes[i];
    result = ad::transpose_matrix_along_axis(result, current, a, in[a], matrix(i, current[a], in[a]),
                                             data.type().dtype());
    current[a] = in[a];
  }
  return {result};
}

const char* kMaxDoc =
    "Max pooling over the {AXES} axes: each output element is the largest input in its window of pool_size "
    "elements (spaced by dilation) that starts every strides elements of the padded input. Padding reads as the "
    "dtype's lowest value. The pooled extent is floor((in + pad_head + pad_tail - (pool_size - 1) * dilation - 1) "
    "/ strides) + 1, with ceil instead of floor when ceil_mode is set (then windows may start in the tail padding).";
const char* kAvgDoc =
    "Average pooling over the {AXES} axes: each output element is the sum of its window (pool_size elements "
    "spaced by dilation, starting every strides elements of the zero-padded input) divided by the number of "
    "window elements inside the padded input (count_include_pad) or inside the input itself. Output extents "
    "follow the max pooling rule, ceil_mode included.";

std::string with_axes(const char* doc, const char* spatial) {
  std::string out = doc;
  out.replace(out.find("{AXES}"), 6, spatial);
  return out;
}

/// The pool as pool_kernel computes it: the data padded (with the lowest
/// value for max, zero for the mean: neither changes the fold), reduced over
/// the window in its order, the mean then divided by avg_divisor's count.
std::vector<te::Tensor> pool_te(const PoolOp& p, const std::vector<te::Tensor>& in, const Attrs& attrs,
                                const Type& out) {
  const te::Tensor& x = in.at(0);
  te_util::require_float(x.dtype(), p.name);
  const PoolAttrs a = PoolAttrs::read(attrs, p.spatial, p.is_max, Type::tensor(x.shape(), x.dtype()));
  const Window& w = a.window;
  const std::vector<int64_t> shape = x.shape(), oshape = out.shape();
  for (int64_t d : oshape) {
    if (d == 0) throw weft::sdk::Unsupported(std::string(p.name) + ": no TE for an empty result");
  }
  std::vector<int64_t> before(shape.size(), 0), after(shape.size(), 0);
  bool pads = false;
  for (size_t i = 0; i < a.axes.size(); ++i) {
    const size_t ax = a.axes[i];
    // The padded positions the last window reaches: [0, (out - 1) * s + (k - 1) * d].
    const int64_t reach = (oshape[ax] - 1) * w.strides[i] + (w.size[i] - 1) * w.dilation[i] + 1;
    before[ax] = w.pad_head[i];
    after[ax] = std::max<int64_t>(reach - w.pad_head[i] - shape[ax], 0);
    pads = pads || before[ax] > 0 || after[ax] > 0;
  }
  te::Expr fill = p.is_max ? te::lowest(x.dtype()) : te::make_const(x.dtype(), 0.0);
  te::Tensor padded = pads ? te::pad(x, before, after, fill, "pad") : x;
  te::Tensor acc = te::compute(
      oshape,
      [&](const te::Idx& o) {
        std::vector<te::Axis> r;
        te::Idx j = o;
        for (size_t i = 0; i < a.axes.size(); ++i) {
          const size_t ax = a.axes[i];
          r.push_back(te::reduce_axis(w.size[i], "r" + std::to_string(i)));
          te::Expr pos = w.strides[i] == 1 ? o[ax] : o[ax] * te::Expr(w.strides[i]);
          te::Expr step = w.dilation[i] == 1 ? r.back().var() : r.back().var() * te::Expr(w.dilation[i]);
          j[ax] = pos + step;
        }
        return p.is_max ? te::max(padded(j), r) : te::sum(padded(j), r);
      },
      p.is_max ? "max_pool" : "avg_pool_sum");
  if (p.is_max) return {acc};
  return {te::compute(
      oshape,
      [&](const te::Idx& o) {
        te::Expr count;
        for (size_t i = 0; i < a.axes.size(); ++i) {
          const size_t ax = a.axes[i];
          const int64_t d = w.dilation[i], extent = shape[ax];
          te::Expr start = o[ax] * te::Expr(w.strides[i]) - te::Expr(w.pad_head[i]);
          te::Expr end = start + te::Expr((w.size[i] - 1) * d);
          te::Expr c;
          if (a.count_include_pad) {
            end = te::min(end, te::Expr(extent + w.pad_tail[i] - 1));
            c = (end - start) / te::Expr(d) + 1;
          } else {
            te::Expr jumps = te::max((te::Expr(d - 1) - start) / te::Expr(d), te::Expr(0));
            end = te::min(end, te::Expr(extent - 1));
            c = (end - (start + te::Expr(d) * jumps)) / te::Expr(d) + 1;
          }
          count = i == 0 ? c : count * c;
        }
        if (!a.count_include_pad) count = te::max(count, te::Expr(1));
        return acc(o) / te::cast(x.dtype(), count);
      },
      "avg_pool")};
}

void register_pool(Registrar& reg, const PoolOp& p) {
  const size_t n = std::string(p.spatial).size();
  OpBuilder& op =
      reg.op(p.name)
          .describe(with_axes(p.is_max ? kMaxDoc : kAvgDoc, p.spatial))
          .input("data", "Tensor", std::string("The input, laid out as `layout` (") + p.layout + " by default).")
          .support_level(2)
          .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  int_tuple_attr(op, "pool_size", n, 1, 1, "The window's size along each pooled axis.");
  int_tuple_attr(op, "strides", n, 1, 1, "The step between windows along each pooled axis.");
  int_tuple_attr(op, "dilation", n, 1, 1, "The spacing of a window's elements along each pooled axis.");
  padding_attr(op, n, "Implicit padding before (heads) and after (tails) each pooled axis.");
  op.attr("layout", std::string(p.layout),
          "The data layout; it must have the pooled axes " + std::string(p.spatial) + " unsplit.",
          "a layout string such as " + std::string(p.layout));
  op.attr("out_layout", std::string(""), "The output layout: empty or equal to layout (pooling keeps the layout).");
  op.infer_layout([p](const Attrs& attrs, const std::vector<weft::sdk::Layout>& new_in,
                      const std::vector<weft::sdk::Layout>&, const std::vector<weft::sdk::Type>&) {
    return pool_layouts(p.spatial, attrs, new_in);
  });
  if (std::string(p.spatial) == "HW") op.convert_layout(convert_pool);  // the reference's 2-d pools only
  op.attr("ceil_mode", false, "Round the pooled extent up instead of down.");
  if (!p.is_max) {
    op.attr("count_include_pad", false, "Count padding elements in each window's divisor.");
  }
  op.type_relation([p](const std::vector<Type>& args, const Attrs& attrs) { return pool_relation(p, args, attrs); });
  op.kernel([p](const KernelArgs& k) { dispatch_float(k, [&](auto t) { pool_kernel<decltype(t)>(p, k); }); });
  op.te_compute([p](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
    return pool_te(p, in, attrs, out);
  });
  op.gradient([p, n](const weft::sdk::Expr& call, const weft::sdk::Expr& grad) {
    if (n == 3 || !grad_op_covers(p, call.attrs())) return box_window_gradient(p, call, grad);
    return n == 2 ? pool2d_gradient(p, call, grad) : pool1d_gradient(p, call, grad);
  });
}

}  // namespace
}  // namespace pooling

void register_pooling_ops(weft::sdk::Registrar& reg) {
  using pooling::PoolOp;
  for (const PoolOp& p :
       {PoolOp{"nn.max_pool1d", "W", "NCW", true}, PoolOp{"nn.max_pool2d", "HW", "NCHW", true},
        PoolOp{"nn.max_pool3d", "DHW", "NCDHW", true}, PoolOp{"nn.avg_pool1d", "W", "NCW", false},
        PoolOp{"nn.avg_pool2d", "HW", "NCHW", false}, PoolOp{"nn.avg_pool3d", "DHW", "NCDHW", false}}) {
    pooling::register_pool(reg, p);
  }
  pooling::register_adaptive_pooling_ops(reg);
  pooling::register_pool_grad_ops(reg);
}

}  // namespace weft_nn
