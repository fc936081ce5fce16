// nn.adaptive_max/avg_pool1d/2d/3d and nn.global_max/avg_pool2d: pooling
// whose windows are chosen to give a requested output extent, as TOPI's
// adaptive_pool_impl computes them (global pooling is adaptive pooling to 1).
#include <algorithm>
#include <limits>
#include <optional>

#include <weft/sdk/gradient.hpp>

#include "pooling.h"
#include "te_util.h"

namespace weft_nn::pooling {

namespace {

struct AdaptiveOp {
  const char* name;
  const char* spatial;
  const char* layout;
  bool is_max;
  bool global;  // output extent 1, no output_size attr
};

/// The requested extent of each pooled axis; nullopt keeps the input's
/// extent (output_size None, empty, or a None entry).
std::vector<std::optional<int64_t>> requested_extents(const Attrs& attrs, size_t n, bool global) {
  if (global) return std::vector<std::optional<int64_t>>(n, 1);
  Value size = attrs.get_value("output_size");
  std::vector<std::optional<int64_t>> items;
  if (size.type() == WEFT_ATTR_INT_LIST) {
    for (int64_t v : size.as_ints()) items.emplace_back(v);
  } else if (size.type() == WEFT_ATTR_LIST) {
    for (const Value& v : size.as_list()) {
      items.push_back(v.is_none() ? std::nullopt : std::optional<int64_t>(v.as_int()));
    }
  }
  if (items.empty()) return std::vector<std::optional<int64_t>>(n, std::nullopt);
  if (items.size() == 1) return std::vector<std::optional<int64_t>>(n, items.front());
  return items;
}

/// An adaptive pooling's attrs read once against its data's type: its
/// relation, kernel and gradients share them.
struct AdaptiveAttrs {
  std::vector<size_t> axes;                       // the pooled axes' positions in the layout
  std::vector<std::optional<int64_t>> requested;  // per pooled axis; nullopt keeps the input's extent

  static AdaptiveAttrs read(const AdaptiveOp& p, const Attrs& attrs, const Type& data) {
    check_out_layout(attrs);
    AdaptiveAttrs a;
    a.axes = pooled_axes(attrs.get_string("layout"), p.spatial, data);
    a.requested = requested_extents(attrs, a.axes.size(), p.global);
    return a;
  }

  std::vector<int64_t> pooled_shape(const Type& data) const {
    std::vector<int64_t> shape = data.shape();
    for (size_t i = 0; i < axes.size(); ++i) {
      if (requested[i]) shape[axes[i]] = *requested[i];
    }
    return shape;
  }
};

Type adaptive_relation(const AdaptiveOp& p, const std::vector<Type>& args, const Attrs& attrs) {
  Type data = data_arg(args, 1);
  return Type::tensor(AdaptiveAttrs::read(p, attrs, data).pooled_shape(data), data.dtype());
}

/// The inputs [begin, end) that output o of an axis pooled from `in` to `out`
/// elements reads: [floor(o * in / out), ceil((o + 1) * in / out)).
struct Span {
  int64_t begin, end;
};
Span adaptive_span(int64_t o, int64_t in, int64_t out) { return {o * in / out, ((o + 1) * in + out - 1) / out}; }

/// Each output takes the max or mean of its adaptive_span along every pooled axis.
template <typename T>
void adaptive_kernel(const AdaptiveOp& p, const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& out = k.outputs.at(0);
  const std::vector<size_t> axes = AdaptiveAttrs::read(p, k.attrs, Type::tensor(in.shape(), in.dtype())).axes;
  std::vector<int64_t> in_shape = in.shape(), out_shape = out.shape(), in_strides = strides_of(in_shape);
  const T* x = in.data<T>();
  T* y = out.data<T>();
  std::vector<int64_t> begin(axes.size()), window(axes.size());
  int64_t o = 0;
  for_each_index(out_shape, [&](const std::vector<int64_t>& index) {
    int64_t base = 0;
    for (size_t d = 0; d < index.size(); ++d) base += index[d] * in_strides[d];
    int64_t count = 1;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = static_cast<int64_t>(axes[i]), idx = index[a], ie = in_shape[a], oe = out_shape[a];
      base -= idx * in_strides[a];
      const Span span = adaptive_span(idx, ie, oe);
      begin[i] = span.begin;
      window[i] = span.end - span.begin;
      count *= window[i];
    }
    T acc = p.is_max ? std::numeric_limits<T>::lowest() : T(0);
    for_each_index(window, [&](const std::vector<int64_t>& r) {
      int64_t offset = base;
      for (size_t i = 0; i < axes.size(); ++i) offset += (begin[i] + r[i]) * in_strides[axes[i]];
      acc = p.is_max ? std::max(acc, x[offset]) : acc + x[offset];
    });
    y[o++] = p.is_max ? acc : acc / static_cast<T>(count);
  });
}

/// output_size's normal form: a list of ints, or of ints and Nones.
Value normalize_output_size(size_t n, const Value& v) {
  std::vector<std::optional<int64_t>> entries;
  if (v.type() == WEFT_ATTR_INT) {
    entries.emplace_back(v.as_int());
  } else if (v.type() == WEFT_ATTR_INT_LIST) {
    std::vector<int64_t> listed = v.as_ints();
    entries.assign(listed.begin(), listed.end());
  } else if (v.type() == WEFT_ATTR_LIST) {
    for (const Value& item : v.as_list()) {
      if (item.is_none()) {
        entries.emplace_back(std::nullopt);
      } else if (item.type() == WEFT_ATTR_INT) {
        entries.emplace_back(item.as_int());
      } else {
        throw Error("output_size entries must be ints or None");
      }
    }
  } else {
    throw Error("output_size must be an int or a list");
  }
  // [] (the reference's C++ default) keeps every extent, as None does.
  if (entries.empty()) return Value::none();
  if (entries.size() > 1 && entries.size() != n) throw Error("output_size has the wrong length");
  bool all_ints = true;
  std::vector<int64_t> ints;
  for (const std::optional<int64_t>& e : entries) {
    if (e && *e < 1) throw Error("output_size entries must be positive");
    all_ints = all_ints && e.has_value();
    ints.push_back(e.value_or(0));
  }
  if (all_ints) return Value(ints);
  std::vector<Value> items;
  for (const std::optional<int64_t>& e : entries) items.push_back(e ? Value(*e) : Value::none());
  return Value(items);
}

namespace grad = weft::sdk::grad;
using weft::sdk::call;
using weft::sdk::Expr;

// Global pools keep every axis but the pooled ones (extent 1 in the output),
// so broadcasting the output back to the data undoes them in any layout.

std::vector<Expr> global_avg_gradient(const Expr& c, const Expr& g) {
  Expr x = c.arg(0);
  double window = 1.0;
  std::vector<int64_t> in = grad::static_shape(x, "the pooled data"), out = grad::static_shape(c, "the pooled output");
  for (size_t i = 0; i < in.size(); ++i) window *= static_cast<double>(in[i] / out[i]);
  return {grad::div(call("broadcast_to_like", {g, x}), grad::scalar_like(x, window))};
}

/// The gradient goes to the maxima, shared equally among ties.
std::vector<Expr> global_max_gradient(const Expr& c, const Expr& g) {
  Expr x = c.arg(0);
  Expr hits = grad::cast_like(call("equal", {call("broadcast_to_like", {c, x}), x}), x);
  Expr count = call("broadcast_to_like", {grad::collapse_sum_like(hits, c), x});
  return {grad::mul(grad::div(hits, count), call("broadcast_to_like", {g, x}))};
}

/// Adaptive average pooling is separable: along each pooled axis, output o
/// averages its adaptive_span, an (out x in) matrix; the gradient applies the
/// transposed matrices axis by axis.
std::vector<Expr> adaptive_avg_gradient(const AdaptiveOp& p, const Expr& c, const Expr& g) {
  Expr x = c.arg(0);
  std::vector<int64_t> in = grad::static_shape(x, "the pooled data"), current = grad::static_shape(c, "the output");
  Expr result = g;
  for (size_t axis : AdaptiveAttrs::read(p, c.attrs(), x.type()).axes) {
    const int64_t ie = in[axis], oe = current[axis];
    std::vector<double> matrix(static_cast<size_t>(oe * ie), 0.0);
    for (int64_t o = 0; o < oe; ++o) {
      const Span span = adaptive_span(o, ie, oe);
      const double share = 1.0 / static_cast<double>(span.end - span.begin);
      for (int64_t i = span.begin; i < span.end; ++i) matrix[static_cast<size_t>(o * ie + i)] = share;
    }
    result = grad::transpose_matrix_along_axis(result, current, axis, ie, matrix, x.type().dtype());
    current[axis] = ie;
  }
  return {result};
}

/// Adaptive windows are boxes: output o of an axis covers its adaptive_span.
std::vector<Expr> adaptive_max_gradient(const AdaptiveOp& p, const Expr& c, const Expr& g) {
  return {window_max_gradient(c, g, AdaptiveAttrs::read(p, c.attrs(), c.arg(0).type()).axes,
                              [](size_t, int64_t oe, int64_t ie) {
                                std::vector<double> member(static_cast<size_t>(oe * ie), 0.0);
                                for (int64_t o = 0; o < oe; ++o) {
                                  const Span span = adaptive_span(o, ie, oe);
                                  for (int64_t i = span.begin; i < span.end; ++i) {
                                    member[static_cast<size_t>(o * ie + i)] = 1.0;
                                  }
                                }
                                return member;
                              })};
}

/// The adaptive pool as adaptive_kernel: along each pooled axis a reduce
/// axis as long as the widest span, the update conditioned on lying in the
/// output's span (its read clamped into the axis, where it lies then).
std::vector<te::Tensor> adaptive_te(const AdaptiveOp& p, const std::vector<te::Tensor>& in, const Attrs& attrs,
                                    const Type& out) {
  const te::Tensor& x = in.at(0);
  te_util::require_float(x.dtype(), p.name);
  const std::vector<size_t> axes = AdaptiveAttrs::read(p, attrs, Type::tensor(x.shape(), x.dtype())).axes;
  const std::vector<int64_t> shape = x.shape(), oshape = out.shape();
  for (int64_t d : shape) {
    if (d == 0) throw weft::sdk::Unsupported(std::string(p.name) + ": no TE for empty data");
  }
  std::vector<int64_t> widest(axes.size(), 0);
  std::vector<bool> uniform(axes.size(), true);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t ie = shape[axes[i]], oe = oshape[axes[i]];
    for (int64_t o = 0; o < oe; ++o) {
      Span s = adaptive_span(o, ie, oe);
      if (o > 0 && s.end - s.begin != widest[i]) uniform[i] = false;
      widest[i] = std::max(widest[i], s.end - s.begin);
    }
  }
  auto span = [&](const te::Idx& o, size_t i) {
    const int64_t ie = shape[axes[i]], oe = oshape[axes[i]];
    const te::Expr& idx = o[axes[i]];
    te::Expr begin = te::floordiv(idx * te::Expr(ie), te::Expr(oe));
    te::Expr end = te::floordiv((idx + 1) * te::Expr(ie) + te::Expr(oe - 1), te::Expr(oe));
    return std::pair<te::Expr, te::Expr>{begin, end};
  };
  te::Tensor acc = te::compute(
      oshape,
      [&](const te::Idx& o) {
        std::vector<te::Axis> r;
        te::Idx j = o;
        te::Expr cond;
        for (size_t i = 0; i < axes.size(); ++i) {
          const size_t ax = axes[i];
          r.push_back(te::reduce_axis(widest[i], "r" + std::to_string(i)));
          auto [begin, end] = span(o, i);
          if (oshape[ax] == 1) {
            j[ax] = r.back().var();
          } else if (uniform[i]) {
            j[ax] = begin + r.back().var();
          } else {
            j[ax] = te_util::clamp(begin + r.back().var(), 0, shape[ax] - 1);
            te::Expr in_span = r.back().var() < end - begin;
            cond = cond.get() ? te::logical_and(cond, in_span) : in_span;
          }
        }
        return p.is_max ? te::max(x(j), r, cond) : te::sum(x(j), r, cond);
      },
      p.is_max ? "adaptive_max" : "adaptive_sum");
  if (p.is_max) return {acc};
  return {te::compute(
      oshape,
      [&](const te::Idx& o) {
        te::Expr count;
        for (size_t i = 0; i < axes.size(); ++i) {
          auto [begin, end] = span(o, i);
          te::Expr c = uniform[i] ? te::Expr(widest[i]) : end - begin;
          count = i == 0 ? c : count * c;
        }
        return acc(o) / te::cast(x.dtype(), count);
      },
      "adaptive_avg")};
}

void register_adaptive(Registrar& reg, const AdaptiveOp& p) {
  const size_t n = std::string(p.spatial).size();
  std::string what = p.is_max ? "largest" : "mean";
  std::string doc =
      p.global ? "Global " + std::string(p.is_max ? "max" : "average") + " pooling: the " + what +
                     " value over all of the H and W axes, which become 1."
               : "Adaptive " + std::string(p.is_max ? "max" : "average") + " pooling over the " + p.spatial +
                     " axes to output_size: output index o of an axis of in elements pooled to out takes the " + what +
                     " over input indices [floor(o * in / out), ceil((o + 1) * in / out)).";
  OpBuilder& op =
      reg.op(p.name)
          .describe(doc)
          .input("data", "Tensor", std::string("The input, laid out as `layout` (") + p.layout + " by default).")
          .support_level(p.global ? 2 : 10)
          .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  if (!p.global) {
    op.attr_optional("output_size", WEFT_ATTR_ANY,
                     "The output extent of each pooled axis: None keeps the input's extents, one int applies to "
                     "every pooled axis, and a None entry keeps that axis's extent.",
                     "None, a positive int, or " + std::to_string(n) + " positive ints or Nones")
        .normalize([n](const Value& v) { return normalize_output_size(n, v); });
  }
  op.attr("layout", std::string(p.layout),
          "The data layout; it must have the pooled axes " + std::string(p.spatial) + " unsplit.",
          "a layout string such as " + std::string(p.layout));
  op.attr("out_layout", std::string(""), "The output layout: empty or equal to layout (pooling keeps the layout).");
  op.infer_layout([p](const Attrs& attrs, const std::vector<weft::sdk::Layout>& new_in,
                      const std::vector<weft::sdk::Layout>&, const std::vector<weft::sdk::Type>&) {
    return pool_layouts(p.spatial, attrs, new_in);
  });
  if (p.global && std::string(p.spatial) == "HW") op.convert_layout(convert_pool);  // global 2-d pools only
  op.type_relation(
      [p](const std::vector<Type>& args, const Attrs& attrs) { return adaptive_relation(p, args, attrs); });
  if (p.global) {
    op.gradient(p.is_max ? global_max_gradient : global_avg_gradient);
  } else if (p.is_max) {
    op.gradient([p](const Expr& c, const Expr& g) { return adaptive_max_gradient(p, c, g); });
  } else {
    op.gradient([p](const Expr& c, const Expr& g) { return adaptive_avg_gradient(p, c, g); });
  }
  op.kernel([p](const KernelArgs& k) {
    dispatch_float(k, [&](auto t) { adaptive_kernel<decltype(t)>(p, k); });
  });
  op.te_compute([p](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
    return adaptive_te(p, in, attrs, out);
  });

}

}  // namespace

weft::sdk::Expr window_max_gradient(const weft::sdk::Expr& c, const weft::sdk::Expr& g,
                                    const std::vector<size_t>& axes, const WindowMembership& membership) {
  namespace grad = weft::sdk::grad;
  using weft::sdk::call;
  using weft::sdk::Expr;
  Expr x = c.arg(0);
  std::vector<int64_t> in = grad::static_shape(x, "the pooled data"), out = grad::static_shape(c, "the output");
  std::vector<int64_t> out_view, in_view, out_axes, in_axes;
  std::optional<Expr> window;
  for (size_t d = 0; d < in.size(); ++d) {
    auto pooled = std::find(axes.begin(), axes.end(), d);
    if (pooled == axes.end()) {
      out_view.push_back(out[d]);
      in_view.push_back(in[d]);
      continue;
    }
    const int64_t oe = out[d], ie = in[d];
    out_axes.push_back(static_cast<int64_t>(out_view.size()));
    in_axes.push_back(static_cast<int64_t>(out_view.size()) + 1);
    out_view.insert(out_view.end(), {oe, 1});
    in_view.insert(in_view.end(), {1, ie});
    std::vector<int64_t> mask_shape(in.size() + axes.size(), 1);
    mask_shape[static_cast<size_t>(out_axes.back())] = oe;
    mask_shape[static_cast<size_t>(in_axes.back())] = ie;
    Expr mask = grad::constant_of(mask_shape, x.type().dtype(),
                                  membership(static_cast<size_t>(pooled - axes.begin()), oe, ie));
    window = window ? grad::mul(*window, mask) : mask;
  }
  auto view = [](const Expr& e, const std::vector<int64_t>& shape) {
    return call("reshape", {e}, {{"newshape", shape}});
  };
  Expr hits = grad::mul(grad::cast_like(call("equal", {view(c, out_view), view(x, in_view)}), x), *window);
  // Every window holds its maximum, so count >= 1 wherever a window has data.
  Expr count = call("maximum", {call("sum", {hits}, {{"axis", in_axes}, {"keepdims", true}}), grad::scalar_like(x, 1.0)});
  Expr shares = grad::mul(grad::div(hits, count), view(g, out_view));
  Expr dx = call("sum", {shares}, {{"axis", out_axes}, {"keepdims", true}});
  return call("reshape", {dx}, {{"newshape", in}});
}

void register_adaptive_pooling_ops(Registrar& reg) {
  for (const AdaptiveOp& p : {AdaptiveOp{"nn.global_max_pool2d", "HW", "NCHW", true, true},
                              AdaptiveOp{"nn.global_avg_pool2d", "HW", "NCHW", false, true},
                              AdaptiveOp{"nn.adaptive_max_pool1d", "W", "NCW", true, false},
                              AdaptiveOp{"nn.adaptive_max_pool2d", "HW", "NCHW", true, false},
                              AdaptiveOp{"nn.adaptive_max_pool3d", "DHW", "NCDHW", true, false},
                              AdaptiveOp{"nn.adaptive_avg_pool1d", "W", "NCW", false, false},
                              AdaptiveOp{"nn.adaptive_avg_pool2d", "HW", "NCHW", false, false},
                              AdaptiveOp{"nn.adaptive_avg_pool3d", "DHW", "NCDHW", false, false}}) {
    register_adaptive(reg, p);
  }
}

}  // namespace weft_nn::pooling
