// layout_transform: moves data between layouts such as NCHW, NHWC and the
// blocked NCHW8c (C split into C/8 outer and 8 inner channels), through the
// SDK's BijectiveLayout (TVM's): a dst primal extent is rounded up and the
// padding reads as zero.
#include <weft/sdk/gradient.hpp>
#include <weft/sdk/layout.hpp>

#include <optional>

#include "kernel_util.h"
#include "rewrite_match.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// The attr `which` as a layout; a bad one is an Error naming the attr.
Layout layout_attr(const Attrs& attrs, const char* which) {
  std::string name = attrs.get_string(which);
  try {
    return Layout(name);
  } catch (const LayoutError& e) {
    throw Error(std::string(which) + ": " + e.what());
  }
}

/// The mapping the attrs name; Error unless both layouts hold the same primal axes.
BijectiveLayout layouts(const Attrs& attrs) {
  Layout src = layout_attr(attrs, "src_layout"), dst = layout_attr(attrs, "dst_layout");
  if (!src.defined() || !dst.defined() || src.ndim() == 0 || dst.ndim() == 0) {
    throw Error("layout_transform needs two layouts with axes, not '" + src.name() + "' and '" + dst.name() + "'");
  }
  try {
    return BijectiveLayout(src, dst);
  } catch (const LayoutError& e) {
    throw Error(e.what());
  }
}

Type layout_transform_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  BijectiveLayout map = layouts(attrs);
  Shape in = data.shape();
  if (in.size() != map.src().ndim()) {
    throw Error("data " + data.str() + " has rank " + std::to_string(in.size()) + " but src_layout " +
                map.src().name() + " has " + std::to_string(map.src().ndim()) + " axes");
  }
  try {
    return Type::tensor(map.forward_shape(in), data.dtype());
  } catch (const LayoutError& e) {
    throw Error("data " + data.str() + " does not match src_layout: " + e.what());
  }
}

/// BijectiveLayout::backward_index with its per-element work hoisted: each
/// dst axis adds its index times a multiplier to one primal coordinate, and
/// each src axis reads a primal coordinate whole, divided or modulo its
/// split factor. A weight of resnet-50 moves element by element through
/// this at FoldConstant, so nothing here allocates per element.
class BackwardIndex {
 public:
  BackwardIndex(const BijectiveLayout& map, const Shape& in_shape) : in_shape_(in_shape) {
    const Layout &src = map.src(), &dst = map.dst();
    auto slot_of = [&](char primal) {
      for (size_t i = 0; i < primals_.size(); ++i) {
        if (primals_[i] == primal) return i;
      }
      primals_.push_back(primal);
      return primals_.size() - 1;
    };
    for (const LayoutAxis& a : dst.axes()) {
      const int64_t f = dst.factor_of(a.name);
      dst_axes_.push_back({slot_of(a.primal_name()), a.primal() && f > 0 ? f : 1});
    }
    const Shape strides = row_major_strides(in_shape);
    for (size_t i = 0; i < src.ndim(); ++i) {
      const LayoutAxis& a = src[i];
      src_axes_.push_back({slot_of(a.primal_name()), src.factor_of(a.name), a.primal(), strides[i]});
    }
    coords_.resize(primals_.size());
  }

  /// Where the source splits no axis and no output position is padding (a
  /// weight's OIHW into OIHW16i16o), the input offset is linear in the
  /// output's index: its stride per output axis. Else nullopt.
  std::optional<Shape> linear_strides(const Shape& out_shape) const {
    std::vector<int64_t> reach(primals_.size(), 0);  // per primal axis, its largest coordinate
    for (size_t d = 0; d < dst_axes_.size(); ++d) reach[dst_axes_[d].slot] += (out_shape[d] - 1) * dst_axes_[d].multiplier;
    std::vector<int64_t> stride_of(primals_.size(), 0);
    for (size_t i = 0; i < src_axes_.size(); ++i) {
      const SrcAxis& a = src_axes_[i];
      if (a.factor > 0 || reach[a.slot] >= in_shape_[i]) return std::nullopt;
      stride_of[a.slot] = a.stride;
    }
    Shape strides;
    for (const DstAxis& a : dst_axes_) strides.push_back(a.multiplier * stride_of[a.slot]);
    return strides;
  }

  /// The input offset of dst `index`, or -1 for padding of a rounded-up axis.
  int64_t operator()(const Shape& index) {
    std::fill(coords_.begin(), coords_.end(), 0);
    for (size_t d = 0; d < dst_axes_.size(); ++d) coords_[dst_axes_[d].slot] += index[d] * dst_axes_[d].multiplier;
    int64_t off = 0;
    for (size_t i = 0; i < src_axes_.size(); ++i) {
      const SrcAxis& a = src_axes_[i];
      const int64_t total = coords_[a.slot];
      const int64_t at = a.factor <= 0 ? total : a.primal ? total / a.factor : total % a.factor;
      if (at >= in_shape_[i]) return -1;
      off += at * a.stride;
    }
    return off;
  }

 private:
  struct DstAxis {
    size_t slot;
    int64_t multiplier;
  };
  struct SrcAxis {
    size_t slot;
    int64_t factor;
    bool primal;
    int64_t stride;
  };
  Shape in_shape_;
  std::vector<char> primals_;
  std::vector<DstAxis> dst_axes_;
  std::vector<SrcAxis> src_axes_;
  std::vector<int64_t> coords_;  // per primal axis, for the element at hand
};

void layout_transform_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  BackwardIndex offset_of(layouts(k.attrs), in.shape());
  if (std::optional<Shape> strides = offset_of.linear_strides(k.outputs.at(0).shape()))
    copy_strided(in, k.outputs.at(0), *strides);
  else
    gather_elements(in, k.outputs.at(0), offset_of);
}

/// As the reference's SimplifyNoOpTranspose and SimplifyTranspose
/// (FoldRankChangingLayoutTrans): a transform to the layout data has is data;
/// after another transform or a transpose it becomes
/// - one transpose when both only permute axes (nothing when they cancel);
/// - data again when two transforms A -> B -> A give back data's type;
/// - one transform A -> C when both change the rank;
/// - one transform from the permuted layout when it adds rank after a
///   permutation (transpose to NCHW, then NCHW -> NCHW4c: NHWC -> NCHW4c);
/// - one transform to the permuted layout when it permutes after one that
///   drops rank (NCHW4c -> NCHW, then NCHW -> NHWC: NCHW4c -> NHWC).
Expr simplified_layout_transform(const Expr& c) {
  Layout b(c.attrs().get_string("src_layout")), to(c.attrs().get_string("dst_layout"));
  if (b.name() == to.name()) return c.arg(0);
  Expr inner = c.arg(0);
  std::optional<Shape> order = axis_order(c), inner_order = axis_order(inner);
  if (order && inner_order) return call("transpose", {inner.arg(0)}, {{"axes", compose(*inner_order, *order)}});
  auto transform = [&](const std::string& from, const std::string& dst) {
    return call("layout_transform", {inner.arg(0)}, {{"src_layout", from}, {"dst_layout", dst}});
  };
  if (inner_order && b.ndim() < to.ndim()) return transform(permute_layout(b, inverse(*inner_order)), to.name());
  if (!is_call_of(inner, "layout_transform") || inner.attrs().get_string("dst_layout") != b.name()) return {};
  Layout from(inner.attrs().get_string("src_layout"));
  if (from.name() == to.name()) return same_type(inner.arg(0).type(), c.type()) ? inner.arg(0) : Expr();
  if (from.ndim() != b.ndim() && b.ndim() != to.ndim()) return transform(from.name(), to.name());
  if (order && from.ndim() > b.ndim()) return transform(from.name(), permute_layout(b, *order));
  return {};
}

/// BackwardIndex in TE: per primal axis the position the output index names,
/// split into data's axes; where one passes data's extent (the padding of a
/// rounded-up axis) the element is zero.
std::vector<te::Tensor> layout_transform_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& x = in.at(0);
  if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "layout_transform"));
  BijectiveLayout map = layouts(attrs);
  const Layout &src = map.src(), &dst = map.dst();
  Shape in_shape = x.shape();
  te_require_int32_extent(in_shape, "layout_transform");
  te_require_int32_extent(out.shape(), "layout_transform");
  return te_one(te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        std::vector<char> primals;
        std::vector<te::Expr> coords;
        auto slot_of = [&](char primal) {
          for (size_t k = 0; k < primals.size(); ++k) {
            if (primals[k] == primal) return k;
          }
          primals.push_back(primal);
          coords.push_back(te::Expr(0));
          return primals.size() - 1;
        };
        for (size_t d = 0; d < dst.ndim(); ++d) {
          const LayoutAxis& a = dst[d];
          const int64_t f = dst.factor_of(a.name);
          const int64_t multiplier = a.primal() && f > 0 ? f : 1;
          size_t k = slot_of(a.primal_name());
          coords[k] = coords[k] + (multiplier == 1 ? i[d] : i[d] * te::Expr(multiplier));
        }
        te::Idx j;
        te::Expr inside;
        for (size_t d = 0; d < src.ndim(); ++d) {
          const LayoutAxis& a = src[d];
          const te::Expr total = coords[slot_of(a.primal_name())];
          const int64_t factor = src.factor_of(a.name);
          te::Expr at = factor <= 0 ? total
                        : a.primal() ? te::floordiv(total, te::Expr(factor))
                                     : te::floormod(total, te::Expr(factor));
          te::Expr fits = at < te::Expr(in_shape[d]);
          inside = inside.get() ? te::logical_and(inside, fits) : fits;
          // Clamped into data: a no-op where the select reads it.
          j.push_back(te::min(at, te::Expr(in_shape[d] - 1)));
        }
        return te::select(inside, x(j), te::make_const(x.dtype(), 0));
      },
      "layout_transform"));
}

}  // namespace

void register_layout_transform_op(Registrar& reg) {
  reg.op("layout_transform")
      .describe(
          "data moved from src_layout to dst_layout, e.g. NCHW to NHWC or to the blocked NCHW8c "
          "(out[n, C, h, w, c] = data[n, C * 8 + c, h, w]); padding of a rounded-up axis is zero.")
      .input("data", "Tensor", "The input tensor, in src_layout.")
      .attr_required("src_layout", WEFT_ATTR_STRING, "The layout of data.", "a layout such as \"NCHW\"")
      .attr_required("dst_layout", WEFT_ATTR_STRING, "The layout of the result.", "a layout such as \"NCHW8c\"")
      .support_level(5)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(layout_transform_relation)
      .kernel(layout_transform_kernel)
      .te_compute(layout_transform_te)
      .gradient([](const Expr& c, const Expr& g) {
        // The transform back, then the padding a rounded-up axis gained (which
        // reads no input) cut off.
        Attrs a = c.attrs();
        Expr back = call("layout_transform", {g},
                         {{"src_layout", a.get_string("dst_layout")}, {"dst_layout", a.get_string("src_layout")}});
        Shape shape = grad::static_shape(c.arg(0), "layout_transform's data");
        return std::vector<Expr>{
            call("strided_slice", {back}, {{"begin", Shape(shape.size(), 0)}, {"end", shape}})};
      })
      .rewrite("simplify_expr", simplified_layout_transform);
}

}  // namespace weft_tensor
