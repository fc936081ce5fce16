// Growing a tensor by repetition (broadcast_to, broadcast_to_like, tile,
// repeat) and the sums automatic differentiation uses to undo a broadcast
// (collapse_sum_like, collapse_sum_to).
#include <weft/sdk/gradient.hpp>

#include "kernel_util.h"
#include "rewrite_match.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// `data` broadcast to `target` must give `target`.
void check_broadcasts_to(const Type& data, const Shape& target) {
  Shape got;
  try {
    got = broadcast_shapes(data.shape(), target);
  } catch (const Error&) {
    got.clear();
  }
  if (got != target) throw Error("cannot broadcast " + data.str() + " to shape " + shape_str(target));
}

Type broadcast_to_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape target = checked_shape(attrs.get_ints("shape"));
  check_broadcasts_to(data, target);
  return Type::tensor(target, data.dtype());
}

Type broadcast_to_like_relation(const std::vector<Type>& args, const Attrs&) {
  Type data = tensor_arg(args, 0, "data"), like = tensor_arg(args, 1, "broadcast_type");
  if (data.dtype() != like.dtype()) throw Error("dtypes differ: " + data.str() + " and " + like.str());
  check_broadcasts_to(data, like.shape());
  return like;
}

void broadcast_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& out = k.outputs.at(0);
  std::vector<int64_t> offsets = broadcast_offsets(in.shape(), out.shape());
  size_t bytes = out.element_bytes();
  for (size_t i = 0; i < offsets.size(); ++i) {
    std::memcpy(mutable_bytes_of(out) + i * bytes, bytes_of(in) + offsets[i] * bytes, bytes);
  }
}

/// `target` must broadcast to data's shape (the sum undoes that broadcast).
Type collapse_to(const Type& data, const Shape& target) {
  Shape got;
  try {
    got = broadcast_shapes(data.shape(), target);
  } catch (const Error&) {
    got.clear();
  }
  if (got != data.shape()) throw Error("cannot collapse " + data.str() + " to shape " + shape_str(target));
  return Type::tensor(target, data.dtype());
}

Type collapse_sum_like_relation(const std::vector<Type>& args, const Attrs&) {
  Type data = tensor_arg(args, 0, "data"), like = tensor_arg(args, 1, "collapse_type");
  if (data.dtype() != like.dtype()) throw Error("dtypes differ: " + data.str() + " and " + like.str());
  return collapse_to(data, like.shape());
}

Type collapse_sum_to_relation(const std::vector<Type>& args, const Attrs& attrs) {
  return collapse_to(tensor_arg(args, 0, "data"), checked_shape(attrs.get_ints("shape")));
}

/// Sums data over the dims the output broadcasts along.
void collapse_sum_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  const TensorView& out = k.outputs.at(0);
  std::vector<int64_t> offsets = broadcast_offsets(out.shape(), in.shape());
  visit_number(out.dtype(), "collapse_sum", [&](auto zero) {
    using T = decltype(zero);
    const T* x = in.data<T>();
    T* o = out.data<T>();
    std::fill(o, o + out.numel(), T(0));
    for (size_t i = 0; i < offsets.size(); ++i) o[offsets[i]] += x[i];
  });
}

/// reps and the data's shape, both padded with leading 1s to one rank.
std::pair<Shape, Shape> tile_dims(const Shape& data, const Shape& reps) {
  size_t rank = std::max(data.size(), reps.size());
  Shape d(rank - data.size(), 1), r(rank - reps.size(), 1);
  d.insert(d.end(), data.begin(), data.end());
  r.insert(r.end(), reps.begin(), reps.end());
  return {d, r};
}

Type tile_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape reps = attrs.get_ints("reps");
  for (int64_t r : reps) {
    if (r <= 0) throw Error("reps " + shape_str(reps) + " must all be positive");
  }
  auto [d, r] = tile_dims(data.shape(), reps);
  Shape out(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] == WEFT_DIM_ANY) {
      out[i] = WEFT_DIM_ANY;
    } else {
      const int64_t extent = d[i], rep = r[i];  // clang 14 cannot capture structured bindings
      out[i] = checked_field("reps", [&] { return (CheckedInt(extent) * rep).value(); });
    }
  }
  return Type::tensor(out, data.dtype());
}

void tile_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  Shape in_shape = in.shape(), strides = row_major_strides(in_shape);
  size_t lead = k.outputs.at(0).shape().size() - in_shape.size();
  gather_elements(in, k.outputs[0], [&](const Shape& index) {
    int64_t off = 0;
    for (size_t d = 0; d < in_shape.size(); ++d) off += (index[lead + d] % in_shape[d]) * strides[d];
    return off;
  });
}

int64_t repeat_axis(const Attrs& attrs, int64_t ndim) { return normalize_axis(attrs.get_int("axis"), ndim); }

Type repeat_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  int64_t repeats = attrs.get_int("repeats");
  if (repeats < 1) throw Error("repeats must be >= 1, got " + std::to_string(repeats));
  Shape out = data.shape();
  int64_t axis = repeat_axis(attrs, static_cast<int64_t>(out.size()));
  if (out[axis] != WEFT_DIM_ANY)
    out[axis] = checked_field("repeats", [&] { return (CheckedInt(out[axis]) * repeats).value(); });
  return Type::tensor(out, data.dtype());
}

void repeat_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  Shape strides = row_major_strides(in.shape());
  int64_t repeats = k.attrs.get_int("repeats"), axis = repeat_axis(k.attrs, in.ndim());
  gather_elements(in, k.outputs.at(0), [&](const Shape& index) {
    int64_t off = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      off += (static_cast<int64_t>(d) == axis ? index[d] / repeats : index[d]) * strides[d];
    }
    return off;
  });
}

/// broadcast_to and broadcast_to_like: data read where NumPy broadcasting maps.
std::vector<te::Tensor> broadcast_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  const te::Tensor& x = in.at(0);
  if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "broadcast_to"));
  return te_one(te::compute(out.shape(), [&](const te::Idx& i) { return x(te::broadcast_index(x, i)); },
                            "broadcast_to"));
}

/// collapse_sum: out[j] sums data over the dims broadcasting made, reduce
/// axes in data's dim order (the kernel's row-major order of additions).
std::vector<te::Tensor> collapse_sum_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  const te::Tensor& x = in.at(0);
  te_require_number(x.dtype(), "collapse_sum");
  Shape ishape = x.shape(), oshape = out.shape();
  const size_t lead = ishape.size() - oshape.size();
  if (te_is_empty(oshape) || te_is_empty(ishape)) {  // sums of nothing, or nothing to sum into
    return te_one(te_empty(oshape, out.dtype(), "collapse_sum"));
  }
  std::vector<te::Axis> axes;
  std::vector<int> axis_of(ishape.size(), -1);
  for (size_t d = 0; d < ishape.size(); ++d) {
    bool reduced = d < lead || (oshape[d - lead] == 1 && ishape[d] != 1);
    if (reduced) {
      axis_of[d] = static_cast<int>(axes.size());
      axes.push_back(te::reduce_axis(ishape[d], "k" + std::to_string(d)));
    }
  }
  return te_one(te::compute(
      oshape,
      [&](const te::Idx& i) {
        te::Idx j;
        for (size_t d = 0; d < ishape.size(); ++d) {
          if (axis_of[d] >= 0) j.push_back(axes[static_cast<size_t>(axis_of[d])].var());
          else j.push_back(ishape[d] == 1 ? te::Expr(0) : i[d - lead]);
        }
        return te::sum(x(j), axes);
      },
      "collapse_sum"));
}

/// tile: data at each output index modulo data's extent (dims lined up right).
std::vector<te::Tensor> tile_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  const te::Tensor& x = in.at(0);
  Shape ishape = x.shape(), oshape = out.shape();
  if (te_is_empty(oshape)) return te_one(te_empty(oshape, out.dtype(), "tile"));
  const size_t lead = oshape.size() - ishape.size();
  return te_one(te::compute(
      oshape,
      [&](const te::Idx& i) {
        te::Idx j;
        for (size_t d = 0; d < ishape.size(); ++d) {
          const te::Expr& o = i[lead + d];
          j.push_back(ishape[d] == 1 ? te::Expr(0) : ishape[d] == oshape[lead + d] ? o : te::floormod(o, te::Expr(ishape[d])));
        }
        return x(j);
      },
      "tile"));
}

/// repeat: data at the output index divided by repeats along axis.
std::vector<te::Tensor> repeat_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& x = in.at(0);
  if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "repeat"));
  const int64_t repeats = attrs.get_int("repeats");
  const size_t axis = static_cast<size_t>(repeat_axis(attrs, static_cast<int64_t>(x.ndim())));
  return te_one(te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        te::Idx j = i;
        if (repeats != 1) j[axis] = te::floordiv(i[axis], te::Expr(repeats));
        return x(j);
      },
      "repeat"));
}

}  // namespace

namespace {

// broadcast_to and collapse_sum_to carry the reference's InitOpAttrs, whose
// dtype TVM prints; neither op reads it.
constexpr const char* kIgnoredDtypeDoc =
    "Ignored, as by the reference (a field of its InitOpAttrs); the output has data's dtype.";

/// Output dim i of tile is reps[i] copies of data dim i: view the gradient as
/// (reps[0], dim[0], reps[1], dim[1], ...) and sum the copies.
std::vector<Expr> tile_gradient(const Expr& c, const Expr& g) {
  std::vector<int64_t> dims = grad::static_shape(c.arg(0), "tile's data");
  std::vector<int64_t> reps = c.attrs().get_ints("reps");
  size_t rank = std::max(dims.size(), reps.size());
  dims.insert(dims.begin(), rank - dims.size(), 1);
  reps.insert(reps.begin(), rank - reps.size(), 1);
  std::vector<int64_t> split_shape, copy_axes;
  for (size_t i = 0; i < rank; ++i) {
    copy_axes.push_back(static_cast<int64_t>(split_shape.size()));
    split_shape.push_back(reps[i]);
    split_shape.push_back(dims[i]);
  }
  Expr summed = call("sum", {call("reshape", {g}, {{"newshape", split_shape}})}, {{"axis", copy_axes}});
  return {call("reshape_like", {summed, c.arg(0)})};
}

/// Each element of repeat's output along axis is one of `repeats` copies:
/// view the gradient with a copies axis after axis and sum it.
std::vector<Expr> repeat_gradient(const Expr& c, const Expr& g) {
  std::vector<int64_t> dims = grad::static_shape(c.arg(0), "repeat's data");
  int64_t axis = c.attrs().get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(dims.size());
  std::vector<int64_t> split_shape = dims;
  split_shape.insert(split_shape.begin() + axis + 1, c.attrs().get_int("repeats"));
  return {call("sum", {call("reshape", {g}, {{"newshape", split_shape}})}, {{"axis", std::vector<int64_t>{axis + 1}}})};
}
}  // namespace

void register_broadcast_ops(Registrar& reg) {
  reg.op("broadcast_to")
      .describe("data broadcast to shape as in NumPy.")
      .input("data", "Tensor", "The input tensor.")
      .attr_required("shape", WEFT_ATTR_ANY, "The target shape.", "an int or a list of ints")
      .normalize(int_list_normal)
      .attr_optional("dtype", WEFT_ATTR_DTYPE, kIgnoredDtypeDoc, "None or a dtype")
      .support_level(4)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(broadcast_to_relation)
      .kernel(broadcast_kernel)
      .te_compute(broadcast_te)
      .gradient([](const Expr& c, const Expr& g) { return std::vector<Expr>{grad::collapse_sum_like(g, c.arg(0))}; });
  reg.op("broadcast_to_like")
      .describe("data broadcast to the shape of broadcast_type as in NumPy.")
      .input("data", "Tensor", "The input tensor.")
      .input("broadcast_type", "Tensor", "The tensor whose type the result takes.")
      .support_level(10)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(broadcast_to_like_relation)
      .kernel(broadcast_kernel)
      .te_compute(broadcast_te)
      .rewrite("simplify_expr", concretized("broadcast_to", {0}, "shape", false))
      .gradient([](const Expr& c, const Expr& g) {
        return std::vector<Expr>{grad::collapse_sum_like(g, c.arg(0)), grad::zeros_like(c.arg(1))};
      });
  reg.op("collapse_sum_like")
      .describe("data summed down to the shape of collapse_type, undoing a NumPy broadcast to data's shape.")
      .input("data", "Tensor", "The input tensor.")
      .input("collapse_type", "Tensor", "The tensor whose type the result takes.")
      .support_level(10)
      .pattern(WEFT_PATTERN_COMM_REDUCE)
      .type_relation(collapse_sum_like_relation)
      .kernel(collapse_sum_kernel)
      .te_compute(collapse_sum_te)
      .rewrite("simplify_expr", concretized("collapse_sum_to", {0}, "shape", false))
      .gradient([](const Expr& c, const Expr& g) {
        return std::vector<Expr>{call("broadcast_to_like", {g, c.arg(0)}), grad::zeros_like(c.arg(1))};
      });
  reg.op("collapse_sum_to")
      .describe("data summed down to shape, undoing a NumPy broadcast to data's shape.")
      .input("data", "Tensor", "The input tensor.")
      .attr_required("shape", WEFT_ATTR_ANY, "The target shape.", "an int or a list of ints")
      .normalize(int_list_normal)
      .attr_optional("dtype", WEFT_ATTR_DTYPE, kIgnoredDtypeDoc, "None or a dtype")
      .support_level(4)
      .pattern(WEFT_PATTERN_COMM_REDUCE)
      .type_relation(collapse_sum_to_relation)
      .kernel(collapse_sum_kernel)
      .te_compute(collapse_sum_te)
      .gradient([](const Expr& c, const Expr& g) {
        return std::vector<Expr>{call("broadcast_to_like", {g, c.arg(0)})};
      });
  reg.op("tile")
      .describe("data repeated reps times along each dim; data or reps is padded with leading 1s to one rank.")
      .input("data", "Tensor", "The input tensor.")
      .attr_required("reps", WEFT_ATTR_ANY, "Repetitions per dim, all positive.", "an int or a list of ints")
      .normalize(int_list_normal)
      .support_level(3)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(tile_relation)
      .kernel(tile_kernel)
      .te_compute(tile_te)
      .gradient(tile_gradient);
  reg.op("repeat")
      .describe("Each element of data repeated repeats times along axis.")
      .input("data", "Tensor", "The input tensor.")
      .attr_required("repeats", WEFT_ATTR_INT, "How many times each element repeats (>= 1).", "an int")
      .attr_required("axis", WEFT_ATTR_INT, "The axis to repeat along.", "an int")
      .support_level(3)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(repeat_relation)
      .kernel(repeat_kernel)
      .te_compute(repeat_te)
      .gradient(repeat_gradient);
}

}  // namespace weft_tensor
