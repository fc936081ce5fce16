// nn.max_pool2d_grad and nn.avg_pool2d_grad: the gradient of 2-d pooling
// with respect to its input, as TOPI's pool_grad computes it.
#include <algorithm>
#include <limits>

#include <weft/sdk/gradient.hpp>

#include "pooling.h"

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
    if (!p.is_max) op.gradient(avg_grad_gradient);
  }
}

}  // namespace weft_nn::pooling
