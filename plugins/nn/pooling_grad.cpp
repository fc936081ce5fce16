// nn.max_pool2d_grad and nn.avg_pool2d_grad: the gradient of 2-d pooling
// with respect to its input, as TOPI's pool_grad computes it, and their own
// gradients (second derivatives of pooling).
#include <algorithm>
#include <limits>

#include <weft/sdk/gradient.hpp>

#include "pooling.h"
#include "te_util.h"

namespace weft_nn::pooling {

namespace {

using weft::sdk::operator==;

struct GradOp {
  const char* name;
  bool is_max;
};

Type grad_relation(const GradOp& p, const std::vector<Type>& args, const Attrs& attrs) {
  Type data = data_arg(args, 2);
  const Type& out_grad = args[0];
  const PoolAttrs a = PoolAttrs::read(attrs, "HW", p.is_max, data);
  if (a.window.dilation != std::vector<int64_t>{1, 1}) {
    throw Error("dilation must be 1: the reference's pooling gradient has no dilation, got dilation " +
                shape_str(a.window.dilation));
  }
  std::vector<int64_t> pooled = a.pooled_shape(data);
  std::vector<int64_t> got = out_grad.shape();
  bool agree = got.size() == pooled.size() && out_grad.dtype() == data.dtype();
  for (size_t d = 0; agree && d < got.size(); ++d) {
    agree = got[d] == pooled[d] || got[d] == WEFT_DIM_ANY || pooled[d] == WEFT_DIM_ANY;
  }
  if (!agree) {
    throw Error("out_grad " + out_grad.str() + " does not match the pooled output of data " + data.str() +
                ", expected shape " + shape_str(pooled) + " of dtype " + weft::sdk::dtype_name(data.dtype()));
  }
  return data;
}

/// Scatters each output gradient over its window: max pooling routes it to
/// the window's first largest input (padding, read as the lowest value,
/// never wins), average pooling spreads it over the window's inputs divided
/// by kh * kw (count_include_pad) or by the window's extent inside the input.
template <typename T>
void grad_kernel(const GradOp& p, const KernelArgs& k) {
  const TensorView& dy = k.inputs.at(0);
  const TensorView& in = k.inputs.at(1);
  const TensorView& dx = k.outputs.at(0);
  const PoolAttrs a = PoolAttrs::read(k.attrs, "HW", p.is_max, Type::tensor(in.shape(), in.dtype()));
  const std::vector<size_t>& axes = a.axes;
  const Window& w = a.window;
  std::vector<int64_t> in_shape = in.shape(), in_strides = strides_of(in_shape);
  const int64_t extent[2] = {in_shape[axes[0]], in_shape[axes[1]]};
  const T* x = in.data<T>();
  const T* g = dy.data<T>();
  T* out = dx.data<T>();
  std::fill(out, out + dx.numel(), T(0));
  int64_t o = 0;
  for_each_index(dy.shape(), [&](const std::vector<int64_t>& index) {
    int64_t base = 0, start[2], count = 1;
    for (size_t d = 0; d < index.size(); ++d) base += index[d] * in_strides[d];
    for (size_t i = 0; i < 2; ++i) {
      base -= index[axes[i]] * in_strides[axes[i]];
      start[i] = index[axes[i]] * w.strides[i] - w.pad_head[i];
      count *= std::min(start[i] + w.size[i], extent[i]) - std::max<int64_t>(start[i], 0);
    }
    T divisor = static_cast<T>(a.count_include_pad ? w.size[0] * w.size[1] : std::max<int64_t>(count, 1));
    T best = std::numeric_limits<T>::lowest();
    int64_t best_offset = -1;
    for_each_index(w.size, [&](const std::vector<int64_t>& r) {
      int64_t offset = base;
      for (size_t i = 0; i < 2; ++i) {
        int64_t pos = start[i] + r[i];
        if (pos < 0 || pos >= extent[i]) return;  // padding
        offset += pos * in_strides[axes[i]];
      }
      if (!p.is_max) {
        out[offset] += g[o] / divisor;
      } else if (x[offset] > best) {
        best = x[offset];
        best_offset = offset;
      }
    });
    if (p.is_max && best_offset >= 0) out[best_offset] += g[o];
    ++o;
  });
}

/// The windows of out_grad that cover an input position, as the TE computes
/// of both gradients gather them: a reduce axis per pooled axis runs over the
/// ceil(size / stride) windows that can reach the position, earliest first,
/// the earlier pooled axis of the layout outer (out_grad's row-major order,
/// in which the kernel scatters), conditioned on the window existing and
/// covering the position.
struct CoveringWindows {
  std::vector<te::Axis> order;  ///< the reduce axes, outer first
  te::Idx window;               ///< out_grad's index of the window (clamped into out_grad)
  te::Expr covers;              ///< the window exists and covers the position
  te::Expr start[2];            ///< the window's first position on each pooled axis (spatial order)
};

CoveringWindows covering_windows(const PoolAttrs& a, const std::vector<int64_t>& pooled, const te::Idx& i) {
  const Window& w = a.window;
  const size_t first = a.axes[0] < a.axes[1] ? 0 : 1;
  CoveringWindows c;
  std::vector<te::Axis> r(2);
  c.window = i;
  for (size_t k : {first, 1 - first}) {
    const size_t ax = a.axes[k];
    const int64_t reach = (w.size[k] + w.strides[k] - 1) / w.strides[k];
    r[k] = te::reduce_axis(reach, "r" + std::to_string(k));
    te::Expr last = te::floordiv(i[ax] + te::Expr(w.pad_head[k]), te::Expr(w.strides[k]));
    te::Expr o = last - te::Expr(reach - 1) + r[k].var();
    c.start[k] = o * te::Expr(w.strides[k]) - te::Expr(w.pad_head[k]);
    te::Expr covers =
        te::logical_and(te::logical_and(o >= 0, o < te::Expr(pooled[ax])), i[ax] < c.start[k] + te::Expr(w.size[k]));
    c.covers = c.covers ? te::logical_and(c.covers, covers) : covers;
    c.window[ax] = te_util::clamp(o, 0, pooled[ax] - 1);
  }
  c.order = {r[first], r[1 - first]};
  return c;
}

/// Declines windows whose index arithmetic (covering_windows, the max
/// gradient's taps) could leave int32.
void require_int32_windows(const std::string& op, const PoolAttrs& a, const std::vector<int64_t>& in_shape,
                           const std::vector<int64_t>& pooled) {
  const Window& w = a.window;
  std::vector<int64_t> span;
  for (size_t k = 0; k < 2; ++k) {
    const size_t ax = a.axes[k];
    span.push_back(te_util::saturating_mul(pooled[ax] + 1, w.strides[k]));
    span.insert(span.end(), {w.size[k], w.pad_head[k], w.pad_tail[k], in_shape[ax]});
  }
  te_util::require_int32_index(
      op, {{"pool_size", &w.size}, {"strides", &w.strides}, {"padding", &w.pad_head}, {"padding", &w.pad_tail}}, span);
}

/// The TE of grad_kernel for average pooling, as a gather: each input
/// position sums out_grad / divisor over the windows that cover it, in the
/// kernel's scatter order (covering_windows).
std::vector<te::Tensor> avg_grad_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor &dy = in.at(0), &x = in.at(1);
  te_util::require_float(x.dtype(), "nn.avg_pool2d_grad");
  const PoolAttrs a = PoolAttrs::read(attrs, "HW", false, Type::tensor(x.shape(), x.dtype()));
  const Window& w = a.window;
  const std::vector<int64_t> in_shape = x.shape(), pooled = dy.shape();
  te_util::require_nonempty("nn.avg_pool2d_grad", {&in_shape, &pooled});
  require_int32_windows("nn.avg_pool2d_grad", a, in_shape, pooled);
  const DLDataType dt = x.dtype();
  return {te::compute(
      in_shape,
      [&](const te::Idx& i) {
        CoveringWindows c = covering_windows(a, pooled, i);
        te::Expr count = te::Expr(1);
        for (size_t k = 0; k < 2; ++k) {
          const size_t ax = a.axes[k];
          count = count * (te::min(c.start[k] + te::Expr(w.size[k]), te::Expr(in_shape[ax])) - te::max(c.start[k], 0));
        }
        te::Expr divisor = a.count_include_pad ? te::make_const(dt, static_cast<double>(w.size[0] * w.size[1]))
                                               : te::cast(dt, te::max(count, 1));
        return te::sum(dy(c.window) / divisor, c.order, c.covers);
      },
      "avg_pool2d_grad")};
}

/// The TE of grad_kernel for max pooling, in two stages. First, per window,
/// the tap the kernel routes its gradient to: a tuple reduction over (tap,
/// value) in the kernel's row-major window order that takes a value only when
/// strictly larger than the best so far, from the dtype's lowest (so the
/// first maximum wins a tie, and a window of only the lowest value, -inf or
/// NaN routes nowhere: tap -1); padding is skipped. Then, as a gather, each
/// input position sums out_grad over the windows that cover it (in the
/// kernel's scatter order, covering_windows) and route to it.
std::vector<te::Tensor> max_grad_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type&) {
  const te::Tensor &dy = in.at(0), &x = in.at(1);
  te_util::require_float(x.dtype(), "nn.max_pool2d_grad");
  const PoolAttrs a = PoolAttrs::read(attrs, "HW", true, Type::tensor(x.shape(), x.dtype()));
  const Window& w = a.window;
  const std::vector<int64_t> in_shape = x.shape(), pooled = dy.shape();
  te_util::require_nonempty("nn.max_pool2d_grad", {&in_shape, &pooled});
  require_int32_windows("nn.max_pool2d_grad", a, in_shape, pooled);
  const DLDataType dt = x.dtype();
  te::Reducer first_max = te::comm_reducer(
      [](const std::vector<te::Expr>& best, const std::vector<te::Expr>& v) {
        te::Expr larger = v[1] > best[1];
        return std::vector<te::Expr>{te::select(larger, v[0], best[0]), te::select(larger, v[1], best[1])};
      },
      {te::Expr(-1), te::lowest(dt)}, "first_max");
  const te::Tensor routed = te::compute_multi(
      pooled,
      [&](const te::Idx& o) {
        std::vector<te::Axis> r = {te::reduce_axis(w.size[0], "r0"), te::reduce_axis(w.size[1], "r1")};
        te::Idx xi = o;
        te::Expr inside;
        for (size_t k = 0; k < 2; ++k) {
          const size_t ax = a.axes[k];
          te::Expr pos = o[ax] * te::Expr(w.strides[k]) - te::Expr(w.pad_head[k]) + r[k].var();
          te::Expr within = te::logical_and(pos >= 0, pos < te::Expr(in_shape[ax]));
          inside = inside ? te::logical_and(inside, within) : within;
          xi[ax] = te_util::clamp(pos, 0, in_shape[ax] - 1);
        }
        te::Expr tap = r[0].var() * te::Expr(w.size[1]) + r[1].var();
        return te::reduce(first_max, {tap, x(xi)}, r, inside);
      },
      "max_pool2d_grad_route")[0];
  return {te::compute(
      in_shape,
      [&](const te::Idx& i) {
        CoveringWindows c = covering_windows(a, pooled, i);
        te::Expr tap = (i[a.axes[0]] - c.start[0]) * te::Expr(w.size[1]) + (i[a.axes[1]] - c.start[1]);
        return te::sum(dy(c.window), c.order, te::logical_and(c.covers, te::equal(routed(c.window), tap)));
      },
      "max_pool2d_grad")};
}

/// avg_pool2d_grad is linear in out_grad and constant in data: out_grad's
/// gradient applies the transposed scatter, which is average pooling with the
/// same divisors. Where this op divides by the whole window (ceil_mode with
/// count_include_pad), that is average pooling of a tail padded by strides - 1
/// more, without ceil_mode, so that every window lies inside the padding.
std::vector<weft::sdk::Expr> avg_grad_gradient(const weft::sdk::Expr& c, const weft::sdk::Expr& g) {
  Attrs given = c.attrs();
  std::vector<int64_t> padding = given.get_ints("padding"), strides = given.get_ints("strides");
  bool ceil_mode = given.get_bool("ceil_mode");
  if (ceil_mode && given.get_bool("count_include_pad")) {
    for (size_t i = 0; i < 2; ++i) padding[2 + i] += strides[i] - 1;
    ceil_mode = false;
  }
  weft::sdk::AttrList attrs = {{"padding", padding}, {"ceil_mode", ceil_mode}};
  for (const char* name : {"pool_size", "strides", "dilation", "layout", "out_layout", "count_include_pad"}) {
    attrs.emplace_back(name, given.get_value(name));
  }
  return {weft::sdk::call("nn.avg_pool2d", {g}, attrs), weft::sdk::grad::zeros_like(c.arg(1))};
}

/// max_pool2d_grad is linear in out_grad and piecewise constant in data: each
/// output gradient went to its window's first maximum, so out_grad's gradient
/// gathers the upstream gradient there. Each window tap is a strided slice of
/// the data padded with the lowest value (as the kernel reads padding, it never
/// wins) and of the zero-padded upstream gradient; comparing the taps in the
/// kernel's order with a running maximum, strictly, keeps the first maximum.
std::vector<weft::sdk::Expr> max_grad_gradient(const weft::sdk::Expr& c, const weft::sdk::Expr& g) {
  using weft::sdk::call;
  using weft::sdk::Expr;
  namespace ad = weft::sdk::grad;
  Expr data = c.arg(1);
  const PoolAttrs a = PoolAttrs::read(c.attrs(), "HW", true, data.type());
  const Window& w = a.window;
  const std::vector<int64_t> in = ad::static_shape(data, "nn.max_pool2d_grad's data");
  const std::vector<int64_t> pooled = ad::static_shape(c.arg(0), "nn.max_pool2d_grad's out_grad");
  const DLDataType dt = data.type().dtype();
  double lowest = 0;
  if (dt == weft::sdk::dtype::float64) {
    lowest = std::numeric_limits<double>::lowest();
  } else if (dt == weft::sdk::dtype::float32) {
    lowest = std::numeric_limits<float>::lowest();
  } else {
    throw Error("the gradient of nn.max_pool2d_grad takes float32 or float64, got " + weft::sdk::dtype_name(dt));
  }
  // The tail reaches as far as the last window does (ceil_mode may pass the given padding).
  std::vector<Value> widths(in.size(), Value(std::vector<int64_t>{0, 0}));
  for (size_t i = 0; i < 2; ++i) {
    const size_t axis = a.axes[i];
    const int64_t reach = (pooled[axis] - 1) * w.strides[i] + w.size[i];
    widths[axis] = Value(std::vector<int64_t>{w.pad_head[i], std::max<int64_t>(0, reach - w.pad_head[i] - in[axis])});
  }
  Expr x = call("nn.pad", {data, weft::sdk::scalar(lowest, dt)}, {{"pad_width", widths}});
  Expr up = call("nn.pad", {g, ad::scalar_like(data, 0.0)}, {{"pad_width", widths}});
  const std::vector<int64_t> axes = {static_cast<int64_t>(a.axes[0]), static_cast<int64_t>(a.axes[1])};
  auto tap = [&](const Expr& e, int64_t r0, int64_t r1) {
    std::vector<int64_t> begin = {r0, r1}, end(2);
    for (size_t i = 0; i < 2; ++i) end[i] = begin[i] + (pooled[a.axes[i]] - 1) * w.strides[i] + 1;
    return call("strided_slice", {e}, {{"begin", begin}, {"end", end}, {"strides", w.strides}, {"axes", axes}});
  };
  Expr best = weft::sdk::scalar(lowest, dt), picked = ad::scalar_like(data, 0.0);
  for (int64_t r0 = 0; r0 < w.size[0]; ++r0) {
    for (int64_t r1 = 0; r1 < w.size[1]; ++r1) {
      Expr value = tap(x, r0, r1);
      Expr wins = call("greater", {value, best});
      picked = ad::where(wins, tap(up, r0, r1), picked);
      best = ad::where(wins, value, best);
    }
  }
  return {picked, ad::zeros_like(data)};
}

}  // namespace

void register_pool_grad_ops(Registrar& reg) {
  for (const GradOp& p : {GradOp{"nn.max_pool2d_grad", true}, GradOp{"nn.avg_pool2d_grad", false}}) {
    OpBuilder& op =
        reg.op(p.name)
            .describe(std::string("Gradient of nn.") + (p.is_max ? "max" : "avg") +
                      "_pool2d with respect to its input, given out_grad (the gradient of the pooled output) and "
                      "the pooled data; attributes as the pooling's.")
            .input("out_grad", "Tensor", "The gradient of the pooling's output.")
            .input("data", "Tensor", "The pooling's input.")
            .support_level(2)
            .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
    int_tuple_attr(op, "pool_size", 2, 1, 1, "The window's size along H and W.");
    int_tuple_attr(op, "strides", 2, 1, 1, "The step between windows along H and W.");
    int_tuple_attr(op, "dilation", 2, 1, 1, "Must be 1: kept for the reference's attribute set.");
    padding_attr(op, 2, "Implicit padding (top, left, bottom, right).");
    op.attr("layout", std::string("NCHW"), "The data layout; it must have H and W unsplit.",
            "a layout string such as NCHW");
    op.attr("out_layout", std::string(""), "Empty or equal to layout.");
    op.attr("ceil_mode", false, "Round the pooled extent up instead of down.");
    if (!p.is_max) op.attr("count_include_pad", false, "Divide by the whole window, padding included.");
    op.type_relation([p](const std::vector<Type>& args, const Attrs& attrs) { return grad_relation(p, args, attrs); });
    op.kernel([p](const KernelArgs& k) {
      dispatch_float(k, [&](auto t) { grad_kernel<decltype(t)>(p, k); });
    });
    op.gradient(p.is_max ? max_grad_gradient : avg_grad_gradient);
    op.te_compute(p.is_max ? max_grad_te : avg_grad_te);
  }
}

}  // namespace weft_nn::pooling
