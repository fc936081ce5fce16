// layout_transform: moves data between layouts such as NCHW, NHWC and the
// blocked NCHW8c (C split into C/8 outer and 8 inner channels). As in TVM's
// BijectiveLayout, a primal axis (upper case) may be split by one subordinate
// axis (lower case with its factor); a dst primal extent is rounded up and the
// padding reads as zero.
#include <cctype>
#include <map>

#include <weft/sdk/gradient.hpp>

#include "kernel_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

struct LayoutAxis {
  char primal;         // 'C' for both C and c
  bool sub = false;    // a lower-case axis: the inner part of its primal
  int64_t factor = 0;  // a subordinate axis's extent
};

struct Layout {
  std::string name;
  std::vector<LayoutAxis> axes;
  /// The factor of primal letter p's subordinate axis, or 0 if it has none.
  int64_t factor_of(char p) const {
    for (const LayoutAxis& a : axes) {
      if (a.sub && a.primal == p) return a.factor;
    }
    return 0;
  }
  bool has_primal(char p) const {
    for (const LayoutAxis& a : axes) {
      if (!a.sub && a.primal == p) return true;
    }
    return false;
  }
};

Layout parse_layout(const std::string& name, const char* which) {
  auto bad = [&](const std::string& why) { return Error(std::string(which) + " '" + name + "' is invalid: " + why); };
  Layout layout{name, {}};
  int64_t factor = 0;
  for (char ch : name) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      factor = factor * 10 + (ch - '0');
      if (factor > (int64_t{1} << 40)) throw bad("factor too large");
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(ch))) throw bad(std::string("unexpected character '") + ch + "'");
    bool sub = std::islower(static_cast<unsigned char>(ch));
    char primal = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (!sub && factor != 0) throw bad(std::string("primal axis ") + ch + " cannot take a factor");
    if (sub && factor <= 0) throw bad(std::string("subordinate axis ") + ch + " needs a positive factor, as in 8" + ch);
    for (const LayoutAxis& a : layout.axes) {
      if (a.primal == primal && a.sub == sub) throw bad(std::string("axis ") + ch + " appears twice");
    }
    layout.axes.push_back({primal, sub, factor});
    factor = 0;
  }
  if (factor != 0) throw bad("it ends with a factor");
  if (layout.axes.empty()) throw bad("it is empty");
  for (const LayoutAxis& a : layout.axes) {
    if (a.sub && !layout.has_primal(a.primal)) {
      throw bad(std::string("subordinate axis ") + static_cast<char>(std::tolower(a.primal)) + " has no primal axis " +
                a.primal);
    }
  }
  return layout;
}

/// The layouts named by the attrs, checked to hold the same primal axes.
std::pair<Layout, Layout> layouts(const Attrs& attrs) {
  Layout src = parse_layout(attrs.get_string("src_layout"), "src_layout");
  Layout dst = parse_layout(attrs.get_string("dst_layout"), "dst_layout");
  auto covers = [](const Layout& a, const Layout& b) {
    for (const LayoutAxis& x : a.axes) {
      if (!b.has_primal(x.primal)) return false;
    }
    return true;
  };
  if (!covers(src, dst) || !covers(dst, src)) {
    throw Error("cannot convert layout " + src.name + " to " + dst.name + ": their primal axes differ");
  }
  return {src, dst};
}

/// Each primal axis's full extent (outer extent times its factor) in `shape` of `layout`.
std::map<char, int64_t> primal_extents(const Layout& layout, const Shape& shape) {
  std::map<char, int64_t> out;
  for (size_t i = 0; i < layout.axes.size(); ++i) {
    const LayoutAxis& a = layout.axes[i];
    if (a.sub) continue;
    int64_t f = layout.factor_of(a.primal);
    out[a.primal] = shape[i] == WEFT_DIM_ANY ? WEFT_DIM_ANY : shape[i] * (f ? f : 1);
  }
  return out;
}

Type layout_transform_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  auto [src, dst] = layouts(attrs);
  Shape in = data.shape();
  if (in.size() != src.axes.size()) {
    throw Error("data " + data.str() + " has rank " + std::to_string(in.size()) + " but src_layout " + src.name +
                " has " + std::to_string(src.axes.size()) + " axes");
  }
  for (size_t i = 0; i < in.size(); ++i) {
    const LayoutAxis& a = src.axes[i];
    if (a.sub && in[i] != a.factor && in[i] != WEFT_DIM_ANY) {
      throw Error("data " + data.str() + " does not match src_layout " + src.name + ": dim " + std::to_string(i) +
                  " is " + std::to_string(in[i]) + ", expected " + std::to_string(a.factor));
    }
  }
  std::map<char, int64_t> total = primal_extents(src, in);
  Shape out;
  for (const LayoutAxis& a : dst.axes) {
    int64_t f = dst.factor_of(a.primal), t = total[a.primal];
    if (a.sub) out.push_back(a.factor);
    else if (t == WEFT_DIM_ANY) out.push_back(WEFT_DIM_ANY);
    else out.push_back(f ? (t + f - 1) / f : t);
  }
  return Type::tensor(out, data.dtype());
}

void layout_transform_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  auto [src, dst] = layouts(k.attrs);
  Shape in_shape = in.shape(), in_strides = row_major_strides(in_shape);
  gather_elements(in, k.outputs.at(0), [&](const Shape& index) -> int64_t {
    std::map<char, int64_t> total;  // each primal axis's index, from the dst axes
    for (size_t i = 0; i < dst.axes.size(); ++i) {
      const LayoutAxis& a = dst.axes[i];
      int64_t f = dst.factor_of(a.primal);
      total[a.primal] += a.sub ? index[i] : index[i] * (f ? f : 1);
    }
    int64_t off = 0;
    for (size_t i = 0; i < src.axes.size(); ++i) {
      const LayoutAxis& a = src.axes[i];
      int64_t f = src.factor_of(a.primal), t = total[a.primal];
      int64_t at = a.sub ? t % a.factor : (f ? t / f : t);
      if (at >= in_shape[i]) return -1;  // padding of a rounded-up dst axis
      off += at * in_strides[i];
    }
    return off;
  });
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
      .gradient([](const Expr& c, const Expr& g) {
        // The transform back, then the padding a rounded-up axis gained (which
        // reads no input) cut off.
        Attrs a = c.attrs();
        Expr back = call("layout_transform", {g},
                         {{"src_layout", a.get_string("dst_layout")}, {"dst_layout", a.get_string("src_layout")}});
        Shape shape = grad::static_shape(c.arg(0), "layout_transform's data");
        return std::vector<Expr>{
            call("strided_slice", {back}, {{"begin", Shape(shape.size(), 0)}, {"end", shape}})};
      });
}

}  // namespace weft_tensor
