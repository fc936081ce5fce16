// Reductions over axes: sum, mean, max, min, prod, all, any, argmax, argmin
// and variance (of data about a given mean). axis is an int, a list or None (all
// axes; an empty list too, as in the reference); exclude reduces the axes not
// listed; keepdims keeps reduced axes as extent 1. Integer sums and products
// wrap on overflow as NumPy's do.
#include <limits>

#include <weft/sdk/gradient.hpp>
#include <weft/sdk/integer_math.hpp>

#include "kernel_util.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// Whether each axis of a rank-`ndim` tensor is reduced.
std::vector<bool> reduced_axes(int64_t ndim, const Attrs& attrs) {
  Shape axis;
  bool given = optional_ints(attrs, "axis", axis);
  bool exclude = attrs.get_bool("exclude");
  if (!given && exclude) throw Error("exclude=True needs an axis to exclude, got axis=None");
  if (axis.empty()) return std::vector<bool>(ndim, true);
  std::vector<bool> listed(ndim, false);
  for (int64_t a : axis) {
    int64_t n = normalize_axis(a, ndim);
    if (listed[n]) throw Error("axis " + shape_str(axis) + " lists axis " + std::to_string(a) + " twice");
    listed[n] = true;
  }
  if (exclude) listed.flip();
  return listed;
}

/// The input's shape with reduced axes set to 1.
Shape kept_shape(const Shape& in, const std::vector<bool>& reduced) {
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    if (reduced[d]) out[d] = 1;
  }
  return out;
}

Shape reduce_shape(const Shape& in, const Attrs& attrs) {
  std::vector<bool> reduced = reduced_axes(static_cast<int64_t>(in.size()), attrs);
  if (attrs.get_bool("keepdims")) return kept_shape(in, reduced);
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) out.push_back(in[d]);
  }
  return out;
}

Type reduce_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  return Type::tensor(reduce_shape(data.shape(), attrs), data.dtype());
}

Type bool_reduce_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  if (data.dtype() != dtype::boolean) throw Error("expected a bool tensor, got " + data.str());
  return reduce_relation(args, attrs);
}

Type arg_reduce_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  if (data.ndim() == 0) throw Error("expected a tensor of rank >= 1, got " + data.str());
  return Type::tensor(reduce_shape(data.shape(), attrs), dtype::int32);
}

Type variance_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data"), mean = tensor_arg(args, 1, "mean");
  if (data.ndim() == 0) throw Error("expected data of rank >= 1, got " + data.str());
  if (mean.ndim() != data.ndim() || mean.dtype() != data.dtype() ||
      broadcast_shapes(data.shape(), mean.shape()) != data.shape()) {
    throw Error("mean " + mean.str() + " must have the rank and dtype of data " + data.str() +
                " and broadcast to its shape");
  }
  return Type::tensor(reduce_shape(data.shape(), attrs), data.dtype());
}

/// For each input element, the offset of the output element it reduces into.
std::vector<int64_t> reduce_offsets(const TensorView& in, const Attrs& attrs) {
  Shape shape = in.shape();
  return broadcast_offsets(kept_shape(shape, reduced_axes(in.ndim(), attrs)), shape);
}

/// How many input elements reduce into each output element.
int64_t reduce_count(const TensorView& in, const TensorView& out) {
  return out.numel() == 0 ? 0 : in.numel() / out.numel();
}

/// out = fold of the input elements reducing into it, from `init`.
template <typename Init, typename F>
Kernel fold_kernel(std::string op, Init init, F f) {
  return [op, init, f](const KernelArgs& k) {
    const TensorView& in = k.inputs.at(0);
    const TensorView& out = k.outputs.at(0);
    std::vector<int64_t> offsets = reduce_offsets(in, k.attrs);
    visit_number(out.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      const T* x = in.data<T>();
      T* o = out.data<T>();
      std::fill(o, o + out.numel(), init(zero));
      for (size_t i = 0; i < offsets.size(); ++i) o[offsets[i]] = f(o[offsets[i]], x[i]);
    });
  };
}

/// all (AND) or any (OR) of bool elements.
Kernel bool_fold_kernel(bool is_all) {
  return [is_all](const KernelArgs& k) {
    const TensorView& in = k.inputs.at(0);
    const TensorView& out = k.outputs.at(0);
    std::vector<int64_t> offsets = reduce_offsets(in, k.attrs);
    const uint8_t* x = in.data<uint8_t>();
    uint8_t* o = out.data<uint8_t>();
    std::fill(o, o + out.numel(), is_all ? 1 : 0);
    for (size_t i = 0; i < offsets.size(); ++i) {
      uint8_t& acc = o[offsets[i]];
      acc = is_all ? (acc && x[i]) : (acc || x[i]);
    }
  };
}

void mean_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& out = k.outputs.at(0);
  std::vector<int64_t> offsets = reduce_offsets(in, k.attrs);
  int64_t count = reduce_count(in, out);
  visit_number(out.dtype(), "mean", [&](auto zero) {
    using T = decltype(zero);
    if (std::is_integral_v<T> && count == 0) throw Error("mean: integer mean over no elements");
    const T* x = in.data<T>();
    T* o = out.data<T>();
    std::fill(o, o + out.numel(), T(0));
    for (size_t i = 0; i < offsets.size(); ++i) o[offsets[i]] = wrapping_add(o[offsets[i]], x[i]);
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = o[i] / static_cast<T>(count);
  });
}

/// The position of the max (or min) within the reduced axes, flattened in
/// row-major order; ties go to the first (or, with select_last_index, last).
Kernel arg_kernel(std::string op, bool is_max) {
  return [op, is_max](const KernelArgs& k) {
    const TensorView& in = k.inputs.at(0);
    const TensorView& out = k.outputs.at(0);
    Shape shape = in.shape();
    std::vector<bool> reduced = reduced_axes(in.ndim(), k.attrs);
    std::vector<int64_t> offsets = broadcast_offsets(kept_shape(shape, reduced), shape);
    Shape reduced_only = shape;  // non-reduced axes at 1: offsets within the reduced sub-space
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!reduced[d]) reduced_only[d] = 1;
    }
    std::vector<int64_t> positions = broadcast_offsets(reduced_only, shape);
    bool last = k.attrs.get_bool("select_last_index");
    int32_t* o = out.data<int32_t>();
    visit_number(in.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      const T* x = in.data<T>();
      std::vector<T> best(static_cast<size_t>(out.numel()));
      std::vector<bool> seen(best.size(), false);
      for (size_t i = 0; i < offsets.size(); ++i) {
        int64_t j = offsets[i];
        bool better = !seen[j] || (is_max ? x[i] > best[j] : x[i] < best[j]) || (last && x[i] == best[j]);
        if (better) {
          best[j] = x[i];
          o[j] = static_cast<int32_t>(positions[i]);
          seen[j] = true;
        }
      }
    });
  };
}

void variance_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& mean = k.inputs.at(1);
  const TensorView& out = k.outputs.at(0);
  std::vector<int64_t> offsets = reduce_offsets(in, k.attrs);
  std::vector<int64_t> mean_offsets = broadcast_offsets(mean.shape(), in.shape());
  int64_t count = reduce_count(in, out) - (k.attrs.get_bool("unbiased") ? 1 : 0);
  visit_float(out.dtype(), "variance", [&](auto zero) {
    using T = decltype(zero);
    const T* x = in.data<T>();
    const T* m = mean.data<T>();
    T* o = out.data<T>();
    std::fill(o, o + out.numel(), T(0));
    for (size_t i = 0; i < offsets.size(); ++i) {
      T d = x[i] - m[mean_offsets[i]];
      o[offsets[i]] += d * d;
    }
    for (int64_t i = 0; i < out.numel(); ++i) o[i] /= static_cast<T>(count);
  });
}

/// max/min: the gradient goes to the elements equal to the result, shared
/// equally among ties, as Relay.
std::vector<Expr> extremum_gradient(const Expr& c, const Expr& g) {
  Expr x = c.arg(0);
  Attrs a = c.attrs();
  Expr hits = grad::cast_like(call("equal", {grad::unreduce(c, x, a), x}), x);
  Expr count =
      call("sum", {hits}, {{"axis", a.get_value("axis")}, {"keepdims", true}, {"exclude", a.get_bool("exclude")}});
  return {grad::mul(grad::div(hits, count), grad::unreduce(g, x, a))};
}

/// Relay's ReduceInferCorrectLayout: the reduced axes are the old layout's
/// letters, found again in the layout the data arrives in (a split axis
/// reduces both its parts, and with keepdims leaves a block of 1); the data
/// (and variance's mean) take that layout, the result drops the reduced
/// letters. Asked about the call as it stands, the attrs stay as they are.
InferredLayouts reduce_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                               const std::vector<Layout>& old_in, const std::vector<Type>& types) {
  const Layout& old_layout = old_in[0];
  if (!old_layout.defined() || !types[0].is_tensor() || old_layout.ndim() != types[0].ndim()) {
    return layouts::cannot_follow(old_in.size());
  }
  std::vector<bool> reduced = reduced_axes(static_cast<int64_t>(old_layout.ndim()), attrs);
  bool exclude = attrs.get_bool("exclude"), keepdims = attrs.get_bool("keepdims");
  auto is_reduced = [&](char primal) {
    for (size_t i = 0; i < reduced.size(); ++i) {
      if (reduced[i] && old_layout[i].primal_name() == primal) return true;
    }
    return false;
  };
  const Layout& layout = new_in.empty() ? old_layout : new_in[0];
  std::string in, out;
  std::vector<int64_t> axis;  // the new axis attr: reduced axes, or kept ones under exclude
  for (size_t i = 0; i < layout.ndim(); ++i) {
    const LayoutAxis& a = layout[i];
    std::string written = (a.primal() ? "" : std::to_string(a.factor)) + a.name;
    bool gone = is_reduced(a.primal_name());
    if (gone != exclude) axis.push_back(static_cast<int64_t>(i));
    in += written;
    if (!gone) out += written;
    else if (keepdims) out += a.primal() ? written : "1" + std::string(1, a.name);
  }
  // axis None reduces every axis in any layout, so it stays None.
  Value given = attrs.get_value("axis");
  bool every_axis = !exclude && (given.is_none() || given.as_ints().empty());
  Attrs changed = new_in.empty() || every_axis ? Attrs() : layouts::with(attrs, {{"axis", Value(axis)}});
  return {std::vector<Layout>(old_in.size(), Layout(in)), {Layout(out)}, changed};
}

OpBuilder& reduce_op(Registrar& reg, const char* name, const char* doc) {
  return reg.op(name)
      .describe(doc)
      .input("data", "Tensor", "The input tensor.")
      .attr_optional("axis", WEFT_ATTR_ANY, "The axes to reduce; None (or []) for all.",
                     "an int, a list of ints or None")
      .normalize(int_list_normal)
      .attr("keepdims", false, "Whether reduced axes stay, with extent 1.")
      .support_level(4)
      .pattern(WEFT_PATTERN_COMM_REDUCE)
      .infer_layout(reduce_layouts);
}

// ---- TE ------------------------------------------------------------------------------------

/// A reduction's TE: one reduce axis per reduced dim, in dim order (the
/// kernels fold the input in row-major order, so the additions happen in
/// the same order), and data's index from the output index and those axes.
struct TeReduction {
  Shape in, out;
  std::vector<bool> reduced;
  std::vector<te::Axis> axes;
  bool keepdims = false;

  TeReduction(const te::Tensor& x, const Attrs& attrs, const Type& out_type) : in(x.shape()), out(out_type.shape()) {
    reduced = reduced_axes(static_cast<int64_t>(in.size()), attrs);
    keepdims = attrs.get_bool("keepdims");
    if (te_is_empty(in)) return;  // no axes: a reduce axis has a positive extent; callers handle it
    for (size_t d = 0; d < in.size(); ++d) {
      if (reduced[d]) axes.push_back(te::reduce_axis(in[d], "k" + std::to_string(d)));
    }
  }

  /// data's index at output index i.
  te::Idx index(const te::Idx& i) const {
    te::Idx j;
    size_t k = 0, o = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      if (reduced[d]) {
        j.push_back(axes[k++].var());
        if (keepdims) ++o;
      } else {
        j.push_back(i[o++]);
      }
    }
    return j;
  }

  /// The number of elements each output folds.
  int64_t count() const {
    int64_t n = 1;
    for (size_t d = 0; d < in.size(); ++d) {
      if (reduced[d]) n *= in[d];
    }
    return n;
  }

  bool empty_input() const { return te_is_empty(in); }
};

using Fold = te::Expr (*)(const te::Expr&, const std::vector<te::Axis>&, const te::Expr&);
using Combine = te::Expr (*)(const te::Expr& acc, const te::Expr& x);
using Identity = te::Expr (*)(DLDataType dt);

/// sum / max / min / prod: the builtin reducer, whose identity and combine
/// (acc + x; acc < x ? x : acc; x < acc ? x : acc; acc * x) are the kernel's.
/// With no axis reduced each output folds one element: combine(identity, x),
/// as the kernel does (so a max of -inf alone is the lowest finite value).
TeCompute fold_te(const char* name, Fold fold, Identity identity, Combine combine) {
  return [=](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
    const te::Tensor& x = in.at(0);
    const DLDataType dt = x.dtype();
    te_require_number(dt, name);
    TeReduction r(x, attrs, out);
    if (te_is_empty(r.out)) return te_one(te_empty(r.out, out.dtype(), name));
    if (r.empty_input()) {  // every output folds nothing: the kernel's initial value
      return te_one(te::compute(r.out, [&](const te::Idx&) { return identity(dt); }, name));
    }
    if (r.axes.empty()) {
      return te_one(te::compute(r.out, [&](const te::Idx& i) { return combine(identity(dt), x(r.index(i))); }, name));
    }
    return te_one(te::compute(r.out, [&](const te::Idx& i) { return fold(x(r.index(i)), r.axes, te::Expr()); }, name));
  };
}

/// sum(source) over r's axes as a stage of its own; with none reduced, 0 + source.
template <typename F>
te::Tensor sum_stage(const TeReduction& r, DLDataType dt, F source, const std::string& name) {
  if (r.empty_input()) return te_empty(r.out, dt, name);
  if (r.axes.empty()) {
    return te::compute(r.out, [&](const te::Idx& i) { return te::make_const(dt, 0) + source(r.index(i)); }, name);
  }
  return te::compute(r.out, [&](const te::Idx& i) { return te::sum(source(r.index(i)), r.axes); }, name);
}

/// all / any over bool data.
TeCompute bool_fold_te(bool is_all) {
  return [is_all](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
    const char* name = is_all ? "all" : "any";
    const te::Tensor& x = in.at(0);
    TeReduction r(x, attrs, out);
    te::Expr identity = te::make_const(dtype::boolean, is_all ? 1 : 0);
    if (te_is_empty(r.out)) return te_one(te_empty(r.out, out.dtype(), name));
    if (r.empty_input()) return te_one(te::compute(r.out, [&](const te::Idx&) { return identity; }, name));
    if (r.axes.empty()) return te_one(te::compute(r.out, [&](const te::Idx& i) { return x(r.index(i)); }, name));
    te::Reducer reducer = te::comm_reducer(
        [is_all](const std::vector<te::Expr>& a, const std::vector<te::Expr>& b) {
          return std::vector<te::Expr>{is_all ? te::logical_and(a[0], b[0]) : te::logical_or(a[0], b[0])};
        },
        {identity}, name);
    return te_one(te::compute_multi(
        r.out, [&](const te::Idx& i) { return te::reduce(reducer, {x(r.index(i))}, r.axes); }, name)[0]);
  };
}

/// mean: a sum stage (wrapping for integers), then a divide by the count.
std::vector<te::Tensor> mean_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& x = in.at(0);
  DLDataType dt = x.dtype();
  te_require_number(dt, "mean");
  TeReduction r(x, attrs, out);
  if (te_is_empty(r.out)) return te_one(te_empty(r.out, out.dtype(), "mean"));
  const int64_t count = r.count();
  if (!te_is_float(dt) && count == 0) throw Unsupported("mean: integer mean over no elements");
  te::Tensor total = sum_stage(r, dt, [&](const te::Idx& j) { return x(j); }, "mean_sum");
  te::Expr n = te::make_const(dt, static_cast<double>(count));
  return te_one(te::compute(r.out, [&](const te::Idx& i) { return total(i) / n; }, "mean"));
}

/// argmax / argmin: a tuple reduction over (position, value) that, as the
/// kernel, takes the first element, then one strictly better (or equal,
/// with select_last_index); the position is row-major over the reduced dims.
TeCompute arg_te(const char* name, bool is_max) {
  return [name, is_max](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
    const te::Tensor& x = in.at(0);
    DLDataType dt = x.dtype();
    te_require_number(dt, name);
    TeReduction r(x, attrs, out);
    if (te_is_empty(r.out)) return te_one(te_empty(r.out, out.dtype(), name));
    if (r.empty_input()) throw Unsupported(std::string(name) + ": no TE for a reduction over no elements");
    if (r.axes.empty()) {  // each output sees one element, at position 0
      return te_one(te::compute(r.out, [](const te::Idx&) { return te::Expr(0); }, name));
    }
    te_require_int32_extent(r.in, name);
    const bool last = attrs.get_bool("select_last_index");
    te::Reducer reducer = te::comm_reducer(
        [is_max, last](const std::vector<te::Expr>& acc, const std::vector<te::Expr>& v) {
          te::Expr better = is_max ? v[1] > acc[1] : v[1] < acc[1];
          if (last) better = te::logical_or(better, te::equal(v[1], acc[1]));
          better = te::logical_or(acc[0] < te::Expr(0), better);  // nothing seen yet
          return std::vector<te::Expr>{te::select(better, v[0], acc[0]), te::select(better, v[1], acc[1])};
        },
        {te::Expr(-1), te::make_const(dt, 0)}, name);
    Shape sub;
    for (size_t d = 0; d < r.in.size(); ++d) {
      if (r.reduced[d]) sub.push_back(r.in[d]);
    }
    te::Idx ks;
    for (const te::Axis& a : r.axes) ks.push_back(a.var());
    std::vector<te::Tensor> both = te::compute_multi(
        r.out,
        [&](const te::Idx& i) {
          return te::reduce(reducer, {te_flat_index(ks, sub), x(r.index(i))}, r.axes);
        },
        name);
    // The reduction's stage has both values; the output is its positions.
    const te::Tensor& position = both[0];
    return te_one(te::compute(r.out, [&](const te::Idx& i) { return position(i); }, name));
  };
}

/// variance: sum((data - mean)^2) as a stage, then a divide by N (N - 1 unbiased).
std::vector<te::Tensor> variance_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor &x = in.at(0), &m = in.at(1);
  DLDataType dt = x.dtype();
  te_require_float(dt, "variance");
  TeReduction r(x, attrs, out);
  if (te_is_empty(r.out)) return te_one(te_empty(r.out, out.dtype(), "variance"));
  const int64_t count = r.count() - (attrs.get_bool("unbiased") ? 1 : 0);
  te::Tensor total = sum_stage(
      r, dt,
      [&](const te::Idx& j) {
        te::Expr d = x(j) - m(te::broadcast_index(m, j));
        return d * d;
      },
      "variance_sum");
  te::Expr n = te::make_const(dt, static_cast<double>(count));
  return te_one(te::compute(r.out, [&](const te::Idx& i) { return total(i) / n; }, "variance"));
}

}  // namespace

void register_reduce_ops(Registrar& reg) {
  auto exclude = [](OpBuilder& b) -> OpBuilder& {
    return b.attr("exclude", false, "Whether to reduce the axes not listed in axis instead.");
  };
  exclude(reduce_op(reg, "sum", "The sum of data over axis."))
      .type_relation(reduce_relation)
      .kernel(fold_kernel("sum", [](auto z) { return z; }, [](auto a, auto x) { return wrapping_add(a, x); }))
      .te_compute(fold_te(
          "sum", [](const te::Expr& s, const std::vector<te::Axis>& a, const te::Expr& c) { return te::sum(s, a, c); },
          [](DLDataType dt) { return te::make_const(dt, 0); },
          [](const te::Expr& acc, const te::Expr& x) { return acc + x; }))
      .gradient([](const Expr& c, const Expr& g) { return std::vector<Expr>{grad::unreduce(g, c.arg(0), c.attrs())}; });
  exclude(reduce_op(reg, "mean", "The mean of data over axis."))
      .type_relation(reduce_relation)
      .kernel(mean_kernel)
      .te_compute(mean_te)
      .gradient([](const Expr& c, const Expr& g) {
        Expr x = c.arg(0);
        double count = static_cast<double>(grad::reduced_count(x, c.attrs()));
        return std::vector<Expr>{grad::div(grad::unreduce(g, x, c.attrs()), grad::scalar_like(x, count))};
      });
  exclude(reduce_op(reg, "max", "The maximum of data over axis."))
      .type_relation(reduce_relation)
      .kernel(fold_kernel(
          "max", [](auto z) { return std::numeric_limits<decltype(z)>::lowest(); },
          [](auto a, auto x) { return x > a ? x : a; }))
      .te_compute(fold_te(
          "max", [](const te::Expr& s, const std::vector<te::Axis>& a, const te::Expr& c) { return te::max(s, a, c); },
          [](DLDataType dt) { return te::lowest(dt); },
          [](const te::Expr& acc, const te::Expr& x) { return te::max(acc, x); }))
      .gradient(extremum_gradient);
  exclude(reduce_op(reg, "min", "The minimum of data over axis."))
      .type_relation(reduce_relation)
      .kernel(fold_kernel(
          "min", [](auto z) { return std::numeric_limits<decltype(z)>::max(); },
          [](auto a, auto x) { return x < a ? x : a; }))
      .te_compute(fold_te(
          "min", [](const te::Expr& s, const std::vector<te::Axis>& a, const te::Expr& c) { return te::min(s, a, c); },
          [](DLDataType dt) { return te::highest(dt); },
          [](const te::Expr& acc, const te::Expr& x) { return te::min(acc, x); }))
      .gradient(extremum_gradient);
  exclude(reduce_op(reg, "prod", "The product of data over axis."))
      .type_relation(reduce_relation)
      .kernel(fold_kernel("prod", [](auto z) { return static_cast<decltype(z)>(1); },
                          [](auto a, auto x) { return wrapping_mul(a, x); }))
      .te_compute(fold_te(
          "prod", [](const te::Expr& s, const std::vector<te::Axis>& a, const te::Expr& c) { return te::prod(s, a, c); },
          [](DLDataType dt) { return te::make_const(dt, 1); },
          [](const te::Expr& acc, const te::Expr& x) { return acc * x; }))
      .gradient([](const Expr& c, const Expr& g) {
        // d prod / dx_i = prod / x_i (as Relay, for nonzero elements).
        Expr x = c.arg(0);
        return std::vector<Expr>{grad::div(grad::unreduce(grad::mul(g, c), x, c.attrs()), x)};
      });
  exclude(reduce_op(reg, "all", "Whether every element of the bool data over axis is true."))
      .type_relation(bool_reduce_relation)
      .kernel(bool_fold_kernel(true))
      .te_compute(bool_fold_te(true));
  exclude(reduce_op(reg, "any", "Whether some element of the bool data over axis is true."))
      .type_relation(bool_reduce_relation)
      .kernel(bool_fold_kernel(false))
      .te_compute(bool_fold_te(false));
  for (bool is_max : {true, false}) {
    const char* name = is_max ? "argmax" : "argmin";
    exclude(reduce_op(reg, name,
                      is_max ? "The int32 index of the maximum of data over axis (flattened over several axes)."
                             : "The int32 index of the minimum of data over axis (flattened over several axes).")
                .attr("select_last_index", false, "Whether ties go to the last index rather than the first."))
        .type_relation(arg_reduce_relation)
        .kernel(arg_kernel(name, is_max))
        .te_compute(arg_te(name, is_max));
  }
  exclude(reduce_op(reg, "variance",
                    "The mean of (data - mean)^2 over axis, dividing by N - 1 when unbiased; mean broadcasts to "
                    "data (relay.variance passes mean(data, axis, keepdims=True)).")
              .input("mean", "Tensor", "The mean to measure from, of data's rank."))
      .attr("unbiased", false, "Whether to divide by N - 1 rather than N.")
      .type_relation(variance_relation)
      .kernel(variance_kernel)
      .te_compute(variance_te)
      .gradient([](const Expr& c, const Expr& g) {
        // d/dx sum((x - m)^2) / n = 2 (x - m) / n; the mean gets minus that, summed to its shape.
        Expr x = c.arg(0), m = c.arg(1);
        Attrs a = c.attrs();
        double n = static_cast<double>(grad::reduced_count(x, a) - (a.get_bool("unbiased") ? 1 : 0));
        Expr dx = grad::mul(grad::unreduce(g, x, a), grad::mul(grad::sub(x, m), grad::scalar_like(x, 2.0 / n)));
        return std::vector<Expr>{dx, grad::collapse_sum_like(grad::neg(dx), m)};
      });
}

}  // namespace weft_tensor
