// Selecting elements by position: take (gather along an axis, or from the
// flattened tensor) and strided_slice.
#include <limits>
#include <optional>

#include <weft/sdk/gradient.hpp>

#include "kernel_util.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

// ---- take ---------------------------------------------------------------------------------

/// take's dims: data is [batch..., pre..., n, post...], indices [batch..., idx...].
struct TakeDims {
  int64_t batch = 1, pre = 1, n = 1, idx = 1, post = 1;
  Shape out;
};

TakeDims take_dims(const Shape& data, const Shape& indices, const Attrs& attrs) {
  TakeDims t;
  Value axis_value = attrs.get_value("axis");
  if (axis_value.is_none()) {  // the flattened data
    t.n = product(data);
    t.idx = product(indices);
    t.out = indices;
    return t;
  }
  int64_t nd = static_cast<int64_t>(data.size()), ni = static_cast<int64_t>(indices.size());
  int64_t axis = normalize_axis(axis_value.as_int(), nd);
  int64_t batch_dims = attrs.get_int("batch_dims");
  if (batch_dims < 0) batch_dims += ni;
  if (batch_dims < 0 || batch_dims > ni || batch_dims > axis) {
    throw Error("batch_dims " + std::to_string(attrs.get_int("batch_dims")) + " is out of range: it must lie in [" +
                std::to_string(-ni) + ", " + std::to_string(ni) + "] and not exceed axis " + std::to_string(axis));
  }
  for (int64_t i = 0; i < batch_dims; ++i) {
    if (data[i] != indices[i]) {
      throw Error("the batch dims of data " + shape_str(data) + " and indices " + shape_str(indices) +
                  " differ at dim " + std::to_string(i));
    }
    t.batch *= data[i];
    t.out.push_back(data[i]);
  }
  for (int64_t i = batch_dims; i < axis; ++i) {
    t.pre *= data[i];
    t.out.push_back(data[i]);
  }
  t.n = data[axis];
  for (int64_t i = batch_dims; i < ni; ++i) {
    t.idx *= indices[i];
    t.out.push_back(indices[i]);
  }
  for (int64_t i = axis + 1; i < nd; ++i) {
    t.post *= data[i];
    t.out.push_back(data[i]);
  }
  return t;
}

Type take_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data"), indices = tensor_arg(args, 1, "indices");
  if (!is_integer(indices.dtype())) throw Error("indices must be a tensor of integers, got " + indices.str());
  return Type::tensor(take_dims(data.shape(), indices.shape(), attrs).out, data.dtype());
}

void take_kernel(const KernelArgs& k) {
  const TensorView& data = k.inputs.at(0);
  const TensorView& indices = k.inputs.at(1);
  const TensorView& out = k.outputs.at(0);
  TakeDims t = take_dims(data.shape(), indices.shape(), k.attrs);
  std::string mode = k.attrs.get_string("mode");
  size_t bytes = out.element_bytes();
  const char* src = bytes_of(data);
  char* dst = mutable_bytes_of(out);
  for (int64_t b = 0; b < t.batch; ++b) {
    for (int64_t p = 0; p < t.pre; ++p) {
      for (int64_t i = 0; i < t.idx; ++i) {
        int64_t index = index_at(indices, b * t.idx + i);
        if (mode == "clip") index = std::min(std::max<int64_t>(index, 0), t.n - 1);
        else if (mode == "wrap" && t.n > 0) index = ((index % t.n) + t.n) % t.n;
        if (index < 0 || index >= t.n) {
          throw Error("index " + std::to_string(index_at(indices, b * t.idx + i)) + " is out of range for extent " +
                      std::to_string(t.n) + " (mode " + mode + ")");
        }
        size_t block = static_cast<size_t>(t.post) * bytes;
        std::memcpy(dst + (((b * t.pre + p) * t.idx + i) * t.post) * bytes,
                    src + (((b * t.pre + p) * t.n + index) * t.post) * bytes, block);
      }
    }
  }
}

// ---- strided_slice ------------------------------------------------------------------------

/// Per sliced axis: where it starts, its step and how many elements it keeps.
struct SliceAxis {
  int64_t axis, begin, stride, size;
};

/// The reference's CanonicalizeIndex: negative counts from the end, then
/// clamp to the range a slice of this direction can start or stop in.
int64_t canonical_index(int64_t index, int64_t extent, int64_t stride) {
  int64_t lo = stride < 0 ? -1 : 0, hi = stride < 0 ? extent - 1 : extent;
  if (index < 0) index += extent;
  return std::min(std::max(index, lo), hi);
}

std::vector<SliceAxis> slice_plan(const Shape& shape, const Attrs& attrs) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  Shape begin = attrs.get_ints("begin"), end = attrs.get_ints("end"), strides = attrs.get_ints("strides"), axes;
  bool size_mode = attrs.get_string("slice_mode") == "size";
  int64_t ndim = static_cast<int64_t>(shape.size());
  if (optional_ints(attrs, "axes", axes)) {
    if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size()) {
      throw Error("axes, begin, end and strides must have one length, got " + std::to_string(axes.size()) + ", " +
                  std::to_string(begin.size()) + ", " + std::to_string(end.size()) + " and " +
                  std::to_string(strides.size()));
    }
    for (int64_t& a : axes) a = normalize_axis(a, ndim, "axes entry");
  } else {
    if (static_cast<int64_t>(std::max({begin.size(), end.size(), strides.size()})) > ndim) {
      throw Error("begin " + shape_str(begin) + ", end " + shape_str(end) + " and strides " + shape_str(strides) +
                  " may not be longer than the rank " + std::to_string(ndim) + " of data");
    }
    for (int64_t i = 0; i < ndim; ++i) axes.push_back(i);
    strides.resize(ndim, 1);
    for (size_t i = begin.size(); i < strides.size(); ++i) begin.push_back(strides[i] > 0 ? 0 : kMax);
    for (size_t i = end.size(); i < strides.size(); ++i) end.push_back(strides[i] < 0 ? 0 : kMax);
  }
  std::vector<SliceAxis> plan;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t stride = size_mode ? 1 : strides[i];
    if (stride == 0) throw Error("strides " + shape_str(strides) + " may not contain 0");
    int64_t stop = end[i];
    if (size_mode) {  // a negative size takes the rest
      stop = end[i] < 0 || begin[i] > kMax - end[i] ? kMax : begin[i] + end[i];
    }
    int64_t dim = shape[axes[i]];
    if (dim == WEFT_DIM_ANY) {
      plan.push_back({axes[i], begin[i], stride, WEFT_DIM_ANY});
      continue;
    }
    int64_t b = canonical_index(begin[i], dim, stride), e = canonical_index(stop, dim, stride);
    if (stride < 0 ? e > b : b > e) {
      throw Error("begin " + std::to_string(begin[i]) + " and end " + std::to_string(end[i]) +
                  " select nothing valid along axis " + std::to_string(axes[i]) + " of extent " +
                  std::to_string(dim) + " with stride " + std::to_string(stride));
    }
    // ceil(distance / |stride|), unsigned: |INT64_MIN| and distance + step - 1 overflow int64.
    const uint64_t step = stride < 0 ? 0 - static_cast<uint64_t>(stride) : static_cast<uint64_t>(stride);
    const auto distance = static_cast<uint64_t>(b > e ? b - e : e - b);
    plan.push_back({axes[i], b, stride, distance == 0 ? 0 : static_cast<int64_t>((distance - 1) / step + 1)});
  }
  return plan;
}

Type strided_slice_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape out = data.shape();
  for (const SliceAxis& s : slice_plan(out, attrs)) out[s.axis] = s.size;
  return Type::tensor(out, data.dtype());
}

void strided_slice_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& out = k.outputs.at(0);
  Shape in_shape = in.shape();
  Shape begin(in_shape.size(), 0), step(in_shape.size(), 1);
  for (const SliceAxis& s : slice_plan(in_shape, k.attrs)) {
    begin[s.axis] = s.begin;
    step[s.axis] = s.stride;
  }
  Shape in_strides = row_major_strides(in_shape);
  gather_elements(in, out, [&](const Shape& index) {
    int64_t off = 0;
    for (size_t d = 0; d < index.size(); ++d) off += (begin[d] + index[d] * step[d]) * in_strides[d];
    return off;
  });
}

// ---- gradients ----------------------------------------------------------------------------

/// take: each output element came from data[.., index, ..], so the data's
/// gradient adds the output gradient at every position that read it. With
/// data as (batch, pre, n, post), indices as (batch, idx) and the gradient as
/// (batch, pre, idx, post): d data[b, p, j, q] = sum_i g[b, p, i, q] [index(b, i) == j].
std::vector<Expr> take_gradient(const Expr& c, const Expr& g) {
  Expr data = c.arg(0), indices = c.arg(1);
  Attrs attrs = c.attrs();
  TakeDims t = take_dims(grad::static_shape(data, "take's data"), grad::static_shape(indices, "take's indices"), attrs);
  DLDataType index_type = indices.type().dtype();
  Expr index = indices;
  std::string mode = attrs.get_string("mode");
  if (mode == "wrap") {
    index = call("floor_mod", {index, grad::constant_of({}, index_type, {static_cast<double>(t.n)})});
  } else {  // clip; fast assumes the indices in range, where clipping changes nothing
    index = call("clip", {index}, {{"a_min", 0.0}, {"a_max", static_cast<double>(t.n - 1)}});
  }
  std::vector<double> positions(static_cast<size_t>(t.n));
  for (int64_t j = 0; j < t.n; ++j) positions[static_cast<size_t>(j)] = static_cast<double>(j);
  Expr hit = call("equal", {call("reshape", {index}, {{"newshape", Shape{t.batch, t.idx, 1}}}),
                            grad::constant_of({1, 1, t.n}, index_type, positions)});
  Expr one_hot = call("reshape", {grad::cast_like(hit, data)}, {{"newshape", Shape{t.batch, 1, t.idx, t.n, 1}}});
  Expr spread = call("reshape", {g}, {{"newshape", Shape{t.batch, t.pre, t.idx, 1, t.post}}});
  Expr summed = call("sum", {grad::mul(spread, one_hot)}, {{"axis", Shape{2}}});
  return {call("reshape_like", {summed, data}), grad::zeros_like(indices)};
}

/// strided_slice: along each sliced axis, output index o read data index
/// begin + o * stride; a 0/1 matrix (size x extent) sends the gradient back.
std::vector<Expr> strided_slice_gradient(const Expr& c, const Expr& g) {
  Expr data = c.arg(0);
  Shape shape = grad::static_shape(data, "strided_slice's data");
  Shape current = grad::static_shape(c, "strided_slice's output");
  Expr result = g;
  for (const SliceAxis& s : slice_plan(shape, c.attrs())) {
    const int64_t extent = shape[s.axis];
    std::vector<double> select(static_cast<size_t>(s.size * extent), 0.0);
    for (int64_t o = 0; o < s.size; ++o) select[static_cast<size_t>(o * extent + s.begin + o * s.stride)] = 1.0;
    result = grad::transpose_matrix_along_axis(result, current, static_cast<size_t>(s.axis), extent, select,
                                               data.type().dtype());
    current[s.axis] = extent;
  }
  return {result};
}

/// Relay's StridedSliceInferCorrectLayout. Into a permutation of the old
/// layout (NHWC -> NCHW) the slice follows: listed axes are renumbered, or
/// begin, end and strides are reordered into the new axis order (missing ones
/// the whole extent). Into a blocked extension of it (NCHW -> NCHW4c) the
/// slice follows where each sliced split axis starts and ends on a block
/// boundary with stride 1, now counting blocks. Otherwise the data goes back
/// to the old layout.
InferredLayouts strided_slice_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                                      const std::vector<Layout>& old_in, const std::vector<Type>& types) {
  const Layout& old_layout = old_in[0];
  if (!old_layout.defined() || !types[0].is_tensor() || old_layout.ndim() != types[0].ndim()) {
    return layouts::cannot_follow(1);
  }
  InferredLayouts in_old{{old_layout}, {old_layout}, Attrs()};
  if (new_in.empty() || new_in[0] == old_layout) return in_old;
  const Layout& layout = new_in[0];
  std::vector<int64_t> shape = types[0].shape();
  std::vector<int64_t> begin = attrs.get_ints("begin"), end = attrs.get_ints("end");
  std::vector<int64_t> strides = attrs.get_ints("strides");
  bool by_size = attrs.get_string("slice_mode") == "size";
  if (by_size) strides.assign(strides.size(), 1);
  Value given_axes = attrs.get_value("axes");
  std::optional<std::vector<int64_t>> axes;
  if (!given_axes.is_none()) axes = given_axes.as_ints();
  auto stride_at = [&](size_t i) { return i < strides.size() ? strides[i] : int64_t{1}; };
  const std::string old_name = old_layout.name(), name = layout.name();
  bool extends = name.rfind(old_name, 0) == 0 && name.size() > old_name.size();
  bool permutes = old_name.rfind(name, 0) != 0 && !extends && old_layout.ndim() == layout.ndim() &&
                  layout.ndim() == layout.ndim_primal() && old_layout.ndim() == old_layout.ndim_primal();
  if (!extends && !permutes) return in_old;

  AttrList changes;
  if (axes) {
    // The axes a slice lists are renumbered either way; a blocked split axis counts blocks.
    std::vector<int64_t> moved, new_begin = begin, new_end = end;
    for (size_t i = 0; i < axes->size(); ++i) {
      int64_t at = layouts::renumbered_axis(old_layout, layout, (*axes)[i]);
      if (at < 0 || i >= begin.size() || i >= end.size()) return in_old;
      moved.push_back(at);
      int64_t factor = extends ? layout.factor_of(layout[static_cast<size_t>(at)].name) : -1;
      if (factor > 0) {
        if (stride_at(i) != 1 || begin[i] % factor || end[i] % factor) return in_old;
        new_begin[i] = begin[i] / factor;
        new_end[i] = end[i] / factor;
      }
    }
    changes = {{"axes", Value(moved)}, {"begin", Value(new_begin)}, {"end", Value(new_end)}};
  } else if (permutes) {
    std::vector<int64_t> new_begin, new_end, new_strides;
    for (const LayoutAxis& a : layout.axes()) {
      size_t from = static_cast<size_t>(old_layout.index_of(a.name));
      new_begin.push_back(from < begin.size() ? begin[from] : 0);
      new_end.push_back(from < end.size() ? end[from] : shape[from]);
      new_strides.push_back(stride_at(from));
    }
    changes = {{"begin", Value(new_begin)}, {"end", Value(new_end)}, {"strides", Value(new_strides)}};
  } else {
    if (end.size() != begin.size()) return in_old;
    std::vector<int64_t> new_begin, new_end;
    for (size_t i = 0; i < begin.size(); ++i) {
      int64_t factor = layout.factor_of(old_layout[i].name);
      int64_t b = begin[i], e = end[i];
      if (factor > 0) {
        // In size mode end is a size (negative: to the end); it stays one, in blocks.
        int64_t stop = by_size ? (e < 0 ? shape[i] : b + e) : e;
        if (stride_at(i) != 1 || b % factor || stop % factor) return in_old;
        b /= factor;
        e = by_size ? stop / factor - b : stop / factor;
      }
      new_begin.push_back(b);
      new_end.push_back(e);
    }
    changes = {{"begin", Value(new_begin)}, {"end", Value(new_end)}};
  }
  return {{layout}, {layout}, layouts::with(attrs, changes)};
}

// ---- TE ----------------------------------------------------------------------------------

/// take's index read at `at`, brought into [0, n) as the mode says: clamped
/// (clip), wrapped (wrap) or, for fast, clamped too (the kernel's error on an
/// index out of range has no TE form; in range, all three agree).
/// e clamped into [0, n) by selects, whose conditions the bounds proof
/// assumes (it bounds neither a load nor min/max of one).
te::Expr clamp_index(const te::Expr& e, int64_t n) {
  const DLDataType dt = e.dtype();
  return te::select(e >= te::int_imm(0, dt), te::select(e < te::int_imm(n, dt), e, te::int_imm(n - 1, dt)),
                    te::int_imm(0, dt));
}

te::Expr take_position(const te::Tensor& indices, const te::Idx& at, int64_t n, const std::string& mode) {
  te::Expr v = indices(at);
  const bool wide = v.dtype() == dtype::int64;
  const DLDataType dt = wide ? dtype::int64 : dtype::int32;
  v = te::cast(dt, v);  // int8/int16/uint8 widen exactly
  te::Expr p = mode == "wrap" ? te::floormod(v, te::int_imm(n, dt)) : clamp_index(v, n);
  if (!wide) return p;
  // In [0, n) already; clamped again in int32 so that the bound is provable
  // (the interval arithmetic does not see through a narrowing cast).
  return clamp_index(te::cast(dtype::int32, p), n);
}

std::vector<te::Tensor> take_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor &data = in.at(0), &indices = in.at(1);
  Shape dshape = data.shape(), ishape = indices.shape(), oshape = out.shape();
  if (te_is_empty(oshape)) return te_one(te_empty(oshape, out.dtype(), "take"));
  std::string mode = attrs.get_string("mode");
  te_require_int32_extent(dshape, "take");
  Value axis_value = attrs.get_value("axis");
  if (axis_value.is_none()) {
    int64_t n = product(dshape);
    if (n == 0) throw Unsupported("take: no TE for taking from empty data");
    return te_one(te::compute(
        oshape, [&](const te::Idx& i) { return data(te_unflatten(take_position(indices, i, n, mode), dshape)); },
        "take"));
  }
  const int64_t nd = static_cast<int64_t>(dshape.size()), ni = static_cast<int64_t>(ishape.size());
  const int64_t axis = normalize_axis(axis_value.as_int(), nd);
  int64_t batch_dims = attrs.get_int("batch_dims");
  if (batch_dims < 0) batch_dims += ni;
  const int64_t n = dshape[static_cast<size_t>(axis)];
  if (n == 0) throw Unsupported("take: no TE for taking along an empty axis");
  return te_one(te::compute(
      oshape,
      [&](const te::Idx& i) {
        // out is [batch..., pre..., idx..., post...]; indices [batch..., idx...].
        te::Idx at(i.begin(), i.begin() + batch_dims);
        at.insert(at.end(), i.begin() + axis, i.begin() + axis + (ni - batch_dims));
        te::Idx j(i.begin(), i.begin() + axis);
        j.push_back(take_position(indices, at, n, mode));
        j.insert(j.end(), i.begin() + axis + (ni - batch_dims), i.end());
        return data(j);
      },
      "take"));
}

std::vector<te::Tensor> strided_slice_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& x = in.at(0);
  Shape shape = x.shape();
  if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "strided_slice"));
  Shape begin(shape.size(), 0), step(shape.size(), 1);
  for (const SliceAxis& s : slice_plan(shape, attrs)) {
    begin[s.axis] = s.begin;
    step[s.axis] = s.stride;
  }
  return te_one(te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        te::Idx j;
        for (size_t d = 0; d < i.size(); ++d) {
          te::Expr e = step[d] == 1 ? i[d] : i[d] * te::Expr(step[d]);
          j.push_back(begin[d] == 0 ? e : te::Expr(begin[d]) + e);
        }
        return x(j);
      },
      "strided_slice"));
}

}  // namespace

void register_indexing_ops(Registrar& reg) {
  reg.op("take")
      .describe(
          "Elements of data at indices along axis (of the flattened data when axis is None); out-of-range indices "
          "are clamped (clip), wrapped (wrap) or an error (fast).")
      .input("data", "Tensor", "The tensor to take from.")
      .input("indices", "Tensor", "Integer positions along axis.")
      .attr("batch_dims", int64_t{0}, "Leading dims shared by data and indices.")
      .attr_optional("axis", WEFT_ATTR_INT, "The axis to take along; None takes from the flattened data.",
                     "an int or None")
      .attr("mode", std::string("clip"), "What an out-of-range index does: clip, wrap or fast.",
            "one of clip, wrap, fast")
      .normalize(one_of({"clip", "wrap", "fast"}))
      .support_level(3)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(take_relation)
      .kernel(take_kernel)
      .te_compute(take_te)
      .gradient(take_gradient);
  reg.op("strided_slice")
      .describe(
          "The slice begin:end:strides of data along each axis (the listed axes, or the leading ones). Negative "
          "begin/end count from the end; in slice_mode size, end holds sizes (negative: to the end) and strides "
          "are 1.")
      .input("data", "Tensor", "The tensor to slice.")
      .attr_required("begin", WEFT_ATTR_ANY, "Where each slice starts.", "an int or a list of ints")
      .normalize(int_list_normal)
      .attr_required("end", WEFT_ATTR_ANY, "Where each slice stops (exclusive), or its size.",
                     "an int or a list of ints")
      .normalize(int_list_normal)
      .attr("strides", WEFT_ATTR_ANY, Value(std::vector<int64_t>{1}), "The step of each slice; may be negative.",
            "an int or a list of ints")
      .normalize(int_list_normal)
      .attr("slice_mode", std::string("end"), "end: end is an index; size: end is a size.", "end or size")
      .normalize(one_of({"end", "size"}))
      .attr_optional("axes", WEFT_ATTR_ANY, "The axes begin, end and strides apply to; None for the leading ones.",
                     "a list of ints or None")
      .normalize(int_list_normal)
      .support_level(4)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(strided_slice_relation)
      .infer_layout(strided_slice_layouts)
      .kernel(strided_slice_kernel)
      .te_compute(strided_slice_te)
      .gradient(strided_slice_gradient);
}

}  // namespace weft_tensor
