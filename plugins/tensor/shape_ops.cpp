// Ops that change a tensor's shape but not its row-major data (reshape,
// reshape_like, squeeze, expand_dims) and transpose, which permutes axes.
#include <algorithm>
#include <optional>
#include <set>

#include <weft/sdk/gradient.hpp>
#include <weft/sdk/layout.hpp>

#include "kernel_util.h"
#include "rewrite_match.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// The reference's InferNewShape: newshape with its special codes
///   0 copy a dim (unless allowzero), -1 infer one dim, -2 copy the rest,
///   -3 merge two dims, -4 split one dim into the next two values.
Shape infer_new_shape(const Shape& in, const Shape& newshape, bool allowzero) {
  auto fail = [&](const std::string& why) {
    return Error("cannot reshape " + shape_str(in) + " to newshape " + shape_str(newshape) + ": " + why);
  };
  Shape out;
  std::set<size_t> used_in, used_out;
  size_t src = 0;
  int64_t infer_at = -1;
  for (size_t i = 0; i < newshape.size(); ++i) {
    int64_t v = newshape[i];
    if (v > 0 || (v == 0 && allowzero)) {
      out.push_back(v);
      ++src;
    } else if (v == 0) {
      if (src >= in.size()) throw fail("0 at position " + std::to_string(i) + " has no input dim to copy");
      used_in.insert(src);
      used_out.insert(out.size());
      out.push_back(in[src++]);
    } else if (v == -1) {
      if (infer_at >= 0) throw fail("only one dim can be inferred (-1)");
      infer_at = static_cast<int64_t>(out.size());
      out.push_back(1);
      ++src;
    } else if (v == -2) {
      while (src < in.size()) {
        used_in.insert(src);
        used_out.insert(out.size());
        out.push_back(in[src++]);
      }
    } else if (v == -3) {
      if (src + 1 >= in.size()) throw fail("-3 at position " + std::to_string(i) + " needs two input dims");
      used_in.insert(src);
      used_in.insert(src + 1);
      int64_t d1 = in[src++], d2 = in[src++];
      used_out.insert(out.size());
      out.push_back(d1 == WEFT_DIM_ANY || d2 == WEFT_DIM_ANY ? WEFT_DIM_ANY : d1 * d2);
    } else if (v == -4) {
      if (i + 2 >= newshape.size()) throw fail("-4 at position " + std::to_string(i) + " needs two values after it");
      if (src >= in.size()) throw fail("-4 at position " + std::to_string(i) + " has no input dim to split");
      used_in.insert(src);
      int64_t d0 = in[src++], d1 = newshape[++i], d2 = newshape[++i];
      if (d1 == -1 && d2 == -1) throw fail("-4 cannot split into two inferred (-1) dims");
      if ((d1 == 0 && d2 == -1) || (d2 == 0 && d1 == -1)) throw fail("-4 cannot infer a dim beside a 0");
      used_out.insert(out.size());
      out.push_back(d1 != -1 ? d1 : d0 == WEFT_DIM_ANY ? WEFT_DIM_ANY : d0 / d2);
      used_out.insert(out.size());
      out.push_back(d2 != -1 ? d2 : d0 == WEFT_DIM_ANY ? WEFT_DIM_ANY : d0 / d1);
    } else {
      throw fail("unsupported special value " + std::to_string(v));
    }
  }
  if (infer_at >= 0) {
    int64_t dim = 1;
    for (size_t i = 0; i < in.size() && dim != WEFT_DIM_ANY; ++i) {
      if (used_in.count(i)) continue;
      dim = in[i] == WEFT_DIM_ANY ? WEFT_DIM_ANY : dim * in[i];
    }
    for (size_t i = 0; i < out.size() && dim != WEFT_DIM_ANY; ++i) {
      if (used_out.count(i)) continue;
      if (out[i] == WEFT_DIM_ANY) dim = WEFT_DIM_ANY;
      else if (out[i] == 0) throw fail("cannot infer -1 beside a 0 extent");
      else dim /= out[i];
    }
    out[infer_at] = dim;
  }
  return out;
}

bool is_static(const Shape& s) {
  return std::none_of(s.begin(), s.end(), [](int64_t d) { return d == WEFT_DIM_ANY; });
}

Type reshape_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape in = data.shape(), newshape = attrs.get_ints("newshape");
  Shape out = infer_new_shape(in, newshape, attrs.get_bool("allowzero"));
  if (is_static(in) && is_static(out) && product(in) != product(out)) {
    throw Error("cannot reshape " + shape_str(in) + " (" + std::to_string(product(in)) + " elements) to " +
                shape_str(out) + " (" + std::to_string(product(out)) + " elements) given by newshape " +
                shape_str(newshape));
  }
  return Type::tensor(out, data.dtype());
}

/// reshape_like's target: data's dims outside [lhs_begin, lhs_end) around
/// shape_like's dims in [rhs_begin, rhs_end).
Type reshape_like_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data"), like = tensor_arg(args, 1, "shape_like");
  Shape lhs = data.shape(), rhs = like.shape();
  auto bound = [&](const char* key, int64_t rank) {
    Value v = attrs.get_value(key);
    int64_t given = v.is_none() ? rank : v.as_int();
    int64_t b = given < 0 ? given + rank : given;
    if (b < 0 || b > rank) {
      throw Error(std::string(key) + " " + std::to_string(given) + " is out of range for rank " + std::to_string(rank));
    }
    return b;
  };
  int64_t lb = bound("lhs_begin", static_cast<int64_t>(lhs.size()));
  int64_t le = bound("lhs_end", static_cast<int64_t>(lhs.size()));
  int64_t rb = bound("rhs_begin", static_cast<int64_t>(rhs.size()));
  int64_t re = bound("rhs_end", static_cast<int64_t>(rhs.size()));
  if (lb > le || rb > re) throw Error("a begin bound lies after its end bound");
  Shape out(lhs.begin(), lhs.begin() + lb);
  out.insert(out.end(), rhs.begin() + rb, rhs.begin() + re);
  out.insert(out.end(), lhs.begin() + le, lhs.end());
  if (is_static(lhs) && is_static(out) && product(lhs) != product(out)) {
    throw Error("cannot reshape " + data.str() + " like " + like.str() + ": the target shape " + shape_str(out) +
                " holds " + std::to_string(product(out)) + " elements, not " + std::to_string(product(lhs)));
  }
  return Type::tensor(out, data.dtype());
}

Type squeeze_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape in = data.shape(), axes, out;
  int64_t ndim = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (!optional_ints(attrs, "axis", axes)) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == WEFT_DIM_ANY) throw Error("axis must be given for a dynamic dimension, got " + data.str());
      drop[i] = in[i] == 1;
    }
  }
  for (int64_t a : axes) {
    int64_t axis = normalize_axis(a, ndim);
    if (in[axis] != 1 && in[axis] != WEFT_DIM_ANY) {
      throw Error("cannot squeeze axis " + std::to_string(a) + " of extent " + std::to_string(in[axis]) + " in " +
                  data.str() + " (expected extent 1)");
    }
    drop[axis] = true;
  }
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return Type::tensor(out, data.dtype());
}

Type expand_dims_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape in = data.shape();
  int64_t ndim = static_cast<int64_t>(in.size()), axis = attrs.get_int("axis"), n = attrs.get_int("num_newaxis");
  if (n < 0) throw Error("num_newaxis must be >= 0, got " + std::to_string(n));
  if (n > kMaxTensorRank - ndim) {  // before the shape is allocated
    throw Error("num_newaxis " + std::to_string(n) + " on " + data.str() + " passes the " +
                std::to_string(kMaxTensorRank) + " axes a tensor may have (expected at most " +
                std::to_string(kMaxTensorRank - ndim) + ")");
  }
  if (axis < -ndim - 1 || axis > ndim) {
    throw Error("axis " + std::to_string(axis) + " is out of range for " + data.str() + " (expected [" +
                std::to_string(-ndim - 1) + ", " + std::to_string(ndim) + "])");
  }
  int64_t pivot = axis < 0 ? ndim + axis + 1 : axis;
  Shape out(in.begin(), in.begin() + pivot);
  out.insert(out.end(), static_cast<size_t>(n), 1);
  out.insert(out.end(), in.begin() + pivot, in.end());
  return Type::tensor(out, data.dtype());
}

/// The permutation transpose applies: `axes`, or reversed dims when None.
Shape transpose_axes(const Type& data, const Attrs& attrs) {
  int64_t ndim = static_cast<int64_t>(data.ndim());
  Shape axes;
  if (!optional_ints(attrs, "axes", axes)) {
    for (int64_t i = ndim - 1; i >= 0; --i) axes.push_back(i);
    return axes;
  }
  if (static_cast<int64_t>(axes.size()) != ndim) {
    throw Error("axes " + shape_str(axes) + " has " + std::to_string(axes.size()) + " entries but data " +
                data.str() + " has rank " + std::to_string(ndim));
  }
  std::vector<bool> seen(axes.size(), false);
  for (int64_t& a : axes) {
    int64_t given = a;
    a = normalize_axis(a, ndim, "axes entry");
    if (seen[a]) throw Error("axes " + shape_str(axes) + " is not a permutation: " + std::to_string(given) + " repeats");
    seen[a] = true;
  }
  return axes;
}

Type transpose_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  Shape in = data.shape(), out;
  for (int64_t a : transpose_axes(data, attrs)) out.push_back(in[a]);
  return Type::tensor(out, data.dtype());
}

void transpose_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  Shape axes, in_strides = row_major_strides(in.shape());
  if (!optional_ints(k.attrs, "axes", axes)) {
    for (int64_t i = in.ndim() - 1; i >= 0; --i) axes.push_back(i);
  }
  Shape strides;  // per output axis, in elements of the input
  for (int64_t a : axes) strides.push_back(in_strides[a < 0 ? a + in.ndim() : a]);
  copy_strided(in, k.outputs.at(0), strides);
}

/// Shape-only ops keep the row-major data as it is.
void copy_kernel(const KernelArgs& k) {
  const TensorView& out = k.outputs.at(0);
  std::memcpy(mutable_bytes_of(out), bytes_of(k.inputs.at(0)), out.numel() * out.element_bytes());
}

/// The gradient of an op that only reshapes: the gradient in data's shape.
std::vector<Expr> reshape_back(const Expr& c, const Expr& g) { return {call("reshape_like", {g, c.arg(0)})}; }

// ---- SimplifyExpr: the reference's SimplifyReshape, SimplifyTranspose, SimplifyNoOpTranspose ----

/// reshape(reshape(x)) -> reshape(x, the outer result's shape) when that shape is static.
Expr reshape_of_reshape(const Expr& c) {
  if (!is_call_of(c.arg(0), "reshape")) return {};
  Shape shape = c.type().shape();
  for (int64_t d : shape)
    if (d == WEFT_DIM_ANY) return {};
  return call("reshape", {c.arg(0).arg(0)}, {{"newshape", shape}});
}

/// As the reference's SimplifyNoOpTranspose and SimplifyTranspose: a
/// transpose that keeps every axis in place is its data; one after another
/// permutation (a transpose or a permuting layout_transform) is one transpose
/// of the composed axes; one after a layout_transform that drops rank (NCHW4c
/// -> NCHW) folds into it (NCHW4c -> NHWC).
Expr simplified_transpose(const Expr& c) {
  Shape order = *axis_order(c);
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity &= order[i] == static_cast<int64_t>(i);
  if (identity) return c.arg(0);
  Expr inner = c.arg(0);
  if (auto inner_order = axis_order(inner)) {
    return call("transpose", {inner.arg(0)}, {{"axes", compose(*inner_order, order)}});
  }
  if (!is_call_of(inner, "layout_transform")) return {};
  Layout from(inner.attrs().get_string("src_layout")), to(inner.attrs().get_string("dst_layout"));
  if (from.ndim() <= to.ndim()) return {};
  return call("layout_transform", {inner.arg(0)}, {{"src_layout", from.name()}, {"dst_layout", permute_layout(to, order)}});
}

/// squeeze(expand_dims(x)) and expand_dims(squeeze(x)) that give x's type back -> x.
CallRewrite undo_of(const char* inner_op) {
  return [inner_op](const Expr& c) -> Expr {
    if (!is_call_of(c.arg(0), inner_op)) return {};
    Expr x = c.arg(0).arg(0);
    return same_type(x.type(), c.type()) ? x : Expr();
  };
}

OpBuilder& data_op(Registrar& reg, const char* name, const char* doc, int level, weft_op_pattern_t pattern) {
  return reg.op(name).describe(doc).input("data", "Tensor", "The input tensor.").support_level(level).pattern(pattern);
}

/// An axis as written in a layout: its letter, after its block size if it has one.
std::string written(const LayoutAxis& a) { return (a.primal() ? "" : std::to_string(a.factor)) + a.name; }

/// Relay's TransposeInferCorrectLayout: the permutation follows the data into
/// the layout it arrives in when that layout holds each permuted axis letter
/// (the output's axes then are the input's, permuted), else runs in the old layout.
InferredLayouts transpose_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                                  const std::vector<Layout>& old_in, const std::vector<Type>&) {
  const Layout& old_layout = old_in[0];
  if (!old_layout.defined()) return layouts::cannot_follow(1);
  const int64_t rank = static_cast<int64_t>(old_layout.ndim());
  Value given = attrs.get_value("axes");
  std::vector<int64_t> axes = given.is_none() ? std::vector<int64_t>{} : given.as_ints();
  if (axes.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) axes.push_back(i);
  }
  for (int64_t& a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return layouts::cannot_follow(1);
  }
  Layout in = old_layout;
  if (!new_in.empty() && new_in[0] != old_layout) {
    std::vector<int64_t> moved;
    for (int64_t a : axes) {
      int at = new_in[0].index_of(old_layout[static_cast<size_t>(a)].name);
      if (at < 0) break;
      moved.push_back(at);
    }
    if (moved.size() == new_in[0].ndim()) {
      axes = moved;
      in = new_in[0];
    }
  }
  std::string out;
  for (int64_t a : axes) out += written(in[static_cast<size_t>(a)]);
  try {
    return {{in}, {Layout(out)}, in == old_layout ? Attrs() : layouts::with(attrs, {{"axes", Value(axes)}})};
  } catch (const LayoutError&) {
    return layouts::cannot_follow(1);
  }
}

/// Relay's SqueezeInferCorrectLayout: the squeezed axes (those of extent 1
/// when axis is None) are the old layout's letters, found again in the layout
/// the data arrives in and dropped from the output's; where that layout lacks
/// one or splits it, the squeeze runs in the old layout.
InferredLayouts squeeze_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                                const std::vector<Layout>& old_in, const std::vector<Type>& types) {
  const Layout& old_layout = old_in[0];
  if (!old_layout.defined() || !types[0].is_tensor() || old_layout.ndim() != types[0].ndim()) {
    return layouts::cannot_follow(1);
  }
  const int64_t rank = static_cast<int64_t>(old_layout.ndim());
  std::vector<int64_t> shape = types[0].shape(), axes;
  Value given = attrs.get_value("axis");
  if (given.is_none()) {
    for (int64_t i = 0; i < rank; ++i) {
      if (shape[static_cast<size_t>(i)] == 1) axes.push_back(i);
    }
  } else {
    axes = given.as_ints();
  }
  for (int64_t& a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return layouts::cannot_follow(1);
  }
  auto squeezed_in = [&](const Layout& layout) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> at;
    for (int64_t a : axes) {
      char letter = old_layout[static_cast<size_t>(a)].name;
      int i = layout.index_of(letter);
      if (i < 0 || (LayoutAxis{letter}.primal() && layout.factor_of(letter) > 0)) return std::nullopt;
      at.push_back(i);
    }
    return at;
  };
  Layout in = new_in.empty() ? old_layout : new_in[0];
  auto at = squeezed_in(in);
  if (!at) {
    in = old_layout;
    at = axes;
  }
  std::string out;
  for (size_t i = 0; i < in.ndim(); ++i) {
    if (std::find(at->begin(), at->end(), static_cast<int64_t>(i)) == at->end()) out += written(in[i]);
  }
  return {{in}, {Layout(out)}, in == old_layout ? Attrs() : layouts::with(attrs, {{"axis", Value(*at)}})};
}

/// The TE of an op that keeps the row-major data: data read in out's shape.
std::vector<te::Tensor> reshape_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  return te_one(te_reshape(in.at(0), out.shape(), "reshape"));
}

/// out[i] = data[j] with j[axes[d]] = i[d].
std::vector<te::Tensor> transpose_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& x = in.at(0);
  Shape axes;
  const int64_t ndim = static_cast<int64_t>(x.ndim());
  if (!optional_ints(attrs, "axes", axes)) {
    for (int64_t i = ndim - 1; i >= 0; --i) axes.push_back(i);
  }
  for (int64_t& a : axes) a = a < 0 ? a + ndim : a;
  if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "transpose"));
  return te_one(te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        te::Idx j(axes.size());
        for (size_t d = 0; d < axes.size(); ++d) j[static_cast<size_t>(axes[d])] = i[d];
        return x(j);
      },
      "transpose"));
}

}  // namespace

void register_shape_ops(Registrar& reg) {
  data_op(reg, "reshape",
          "data with a new shape of as many elements. newshape may use the codes 0 (copy a dim), -1 (infer one "
          "dim), -2 (copy the remaining dims), -3 (merge two dims) and -4 (split a dim into the next two values, "
          "one of which may be -1).",
          3, WEFT_PATTERN_INJECTIVE)
      .is_reshape()
      .attr_required("newshape", WEFT_ATTR_ANY, "The new shape, with special codes.", "an int or a list of ints")
      .normalize(int_list_normal)
      .attr("allowzero", false, "Whether a 0 in newshape means an empty dim rather than a copied one.")
      .type_relation(reshape_relation)
      .kernel(copy_kernel)
      .te_compute(reshape_te)
      .gradient(reshape_back)
      .rewrite("simplify_expr", reshape_of_reshape)
      .rewrite("simplify_expr_post_alter_op", reshape_of_reshape);
  reg.op("reshape_like")
      .describe(
          "data reshaped so that its dims [lhs_begin, lhs_end) become shape_like's dims [rhs_begin, rhs_end).")
      .input("data", "Tensor", "The input tensor.")
      .input("shape_like", "Tensor", "The tensor whose dims give the new shape.")
      .attr("lhs_begin", int64_t{0}, "First dim of data to replace.")
      .attr_optional("lhs_end", WEFT_ATTR_INT, "End of the dims of data to replace; None for data's rank.",
                     "an int or None")
      .attr("rhs_begin", int64_t{0}, "First dim of shape_like to use.")
      .attr_optional("rhs_end", WEFT_ATTR_INT, "End of the dims of shape_like to use; None for its rank.",
                     "an int or None")
      .support_level(3)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(reshape_like_relation)
      .kernel(copy_kernel)
      .te_compute(reshape_te)
      .rewrite("simplify_expr", concretized("reshape", {0}, "newshape", false))
      .gradient([](const Expr& c, const Expr& g) {
        return std::vector<Expr>{call("reshape_like", {g, c.arg(0)}), grad::zeros_like(c.arg(1))};
      });
  data_op(reg, "squeeze", "data without the given dims of extent 1 (all of them when axis is None).", 3,
          WEFT_PATTERN_INJECTIVE)
      .is_reshape()
      .attr_optional("axis", WEFT_ATTR_ANY, "The dims to remove, each of extent 1; None for every such dim.",
                     "an int, a list of ints or None")
      .normalize(int_list_normal)
      .type_relation(squeeze_relation)
      .infer_layout(squeeze_layouts)
      .kernel(copy_kernel)
      .te_compute(reshape_te)
      .gradient(reshape_back)
      .rewrite("simplify_expr", undo_of("expand_dims"));
  data_op(reg, "expand_dims", "data with num_newaxis dims of extent 1 inserted at axis.", 1, WEFT_PATTERN_BROADCAST)
      .is_reshape()
      .attr_required("axis", WEFT_ATTR_INT, "Where the new dims go, in [-ndim - 1, ndim].", "an int")
      .attr("num_newaxis", int64_t{1}, "How many dims to insert (>= 0).")
      .type_relation(expand_dims_relation)
      .kernel(copy_kernel)
      .te_compute(reshape_te)
      .gradient(reshape_back)
      .rewrite("simplify_expr", undo_of("squeeze"));
  data_op(reg, "transpose", "data with its dims permuted by axes (reversed when axes is None).", 3,
          WEFT_PATTERN_INJECTIVE)
      .attr_optional("axes", WEFT_ATTR_ANY, "The permutation: output dim i is input dim axes[i].",
                     "a list of ints or None")
      .normalize(int_list_normal)
      .type_relation(transpose_relation)
      .infer_layout(transpose_layouts)
      .kernel(transpose_kernel)
      .te_compute(transpose_te)
      .gradient([](const Expr& c, const Expr& g) {
        // The inverse permutation; None (reversal) is its own inverse.
        Value axes = c.attrs().get_value("axes");
        if (axes.is_none() || axes.as_ints().empty()) return std::vector<Expr>{call("transpose", {g})};
        std::vector<int64_t> perm = axes.as_ints(), inverse(perm.size());
        const int64_t n = static_cast<int64_t>(perm.size());
        for (int64_t i = 0; i < n; ++i) inverse[static_cast<size_t>(perm[i] < 0 ? perm[i] + n : perm[i])] = i;
        return std::vector<Expr>{call("transpose", {g}, {{"axes", inverse}})};
      })
      .rewrite("simplify_expr", simplified_transpose);
}

}  // namespace weft_tensor
