// nn.pad and nn.mirror_pad: padding every axis by [before, after] widths, as
// Relay's pad.cc and TOPI's pad/mirror_pad compute it.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "te_util.h"
#include "transform.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;
using transform::IntPairs;

/// Output dims of data padded by `widths`; checks the pair count. Unknown
/// dims stay unknown.
std::vector<int64_t> padded_shape(const Type& data, const IntPairs& widths, const char* attr) {
  std::vector<int64_t> shape = data.shape();
  if (widths.size() != shape.size()) {
    throw Error(std::string(attr) + " has " + std::to_string(widths.size()) + " pairs but data " + data.str() +
                " has " + std::to_string(shape.size()) + " dimensions; expected one [before, after] pair per axis");
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == WEFT_DIM_ANY) continue;
    const int64_t before = widths[i].first, after = widths[i].second;
    int64_t n = checked_field(attr, [&] { return (CheckedInt(shape[i]) + before + after).value(); });
    if (n < 0) {
      throw Error("padding axis " + std::to_string(i) + " of data " + data.str() + " by [" +
                  std::to_string(widths[i].first) + ", " + std::to_string(widths[i].second) +
                  "] leaves a negative extent " + std::to_string(n));
    }
    shape[i] = n;
  }
  return shape;
}

/// Mirrored widths must stay within the axis: at most n when the border
/// element is repeated, n - 1 when it is not.
void check_mirror_widths(const Type& data, const IntPairs& widths, bool repeat_edge, const std::string& mode) {
  std::vector<int64_t> shape = data.shape();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == WEFT_DIM_ANY) continue;
    int64_t limit = repeat_edge ? shape[i] : shape[i] - 1;
    for (int64_t w : {widths[i].first, widths[i].second}) {
      if (w > 0 && w > limit) {
        throw Error(mode + " padding of axis " + std::to_string(i) + " by " + std::to_string(w) + " exceeds data " +
                    data.str() + "; expected widths of at most " + std::to_string(limit));
      }
    }
  }
}

enum class Border { kConstant, kEdge, kReflect, kSymmetric };

/// Source index along one axis for output index `o`, or -1 for the constant.
int64_t border_index(int64_t o, int64_t before, int64_t n, Border mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case Border::kConstant:
      return -1;
    case Border::kEdge:
      return i < 0 ? 0 : n - 1;
    case Border::kReflect:
      return i < 0 ? -i : 2 * n - 2 - i;
    case Border::kSymmetric:
      return i < 0 ? -i - 1 : 2 * n - 1 - i;
  }
  return -1;
}

void pad_kernel(const TensorView& in, const TensorView& out, const IntPairs& widths, Border mode,
                const std::vector<unsigned char>& fill) {
  std::vector<int64_t> shape = in.shape();
  std::vector<int64_t> strides = transform::strides_of(shape);
  transform::gather(in, out, fill, [&](const std::vector<int64_t>& idx) {
    int64_t offset = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t i = border_index(idx[d], widths[d].first, shape[d], mode);
      if (i < 0) return int64_t{-1};
      offset += i * strides[d];
    }
    return offset;
  });
}

Border pad_border(const std::string& mode) {
  if (mode == "edge") return Border::kEdge;
  if (mode == "reflect") return Border::kReflect;
  return Border::kConstant;
}

// ---- TE computes -------------------------------------------------------------------------------

bool te_fill_dtype(DLDataType t) {
  return te_util::is_plain(t) || t == dtype::boolean;
}

/// The padded tensor as pad_kernel gathers it: the constant through te::pad
/// (after cropping where a width is negative), the border modes by an index
/// per axis, clamped into the axis (where it already lies).
te::Tensor pad_te(const te::Tensor& x, const IntPairs& widths, Border mode, const te::Expr& fill,
                  const std::vector<int64_t>& out_shape) {
  std::vector<int64_t> shape = x.shape();
  for (int64_t d : shape) {
    if (d == 0) throw Unsupported("pad: no TE for an empty axis");
  }
  for (int64_t d : out_shape) {
    if (d == 0) throw Unsupported("pad: no TE for an empty result");
  }
  if (mode == Border::kConstant) {
    te::Tensor cropped = x;
    bool crops = false;
    std::vector<int64_t> before, after, cshape = shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      crops = crops || widths[d].first < 0 || widths[d].second < 0;
      cshape[d] += std::min<int64_t>(widths[d].first, 0) + std::min<int64_t>(widths[d].second, 0);
      before.push_back(std::max<int64_t>(widths[d].first, 0));
      after.push_back(std::max<int64_t>(widths[d].second, 0));
    }
    if (crops) {
      cropped = te::compute(
          cshape,
          [&](const te::Idx& i) {
            te::Idx j = i;
            for (size_t d = 0; d < j.size(); ++d) {
              if (widths[d].first < 0) j[d] = j[d] + te::Expr(-widths[d].first);
            }
            return x(j);
          },
          "crop");
    }
    bool pads = false;
    for (size_t d = 0; d < shape.size(); ++d) pads = pads || before[d] > 0 || after[d] > 0;
    if (!pads) {
      return te::compute(out_shape, [&](const te::Idx& i) { return cropped(i); }, "pad");
    }
    return te::pad(cropped, before, after, fill, "pad");
  }
  return te::compute(
      out_shape,
      [&](const te::Idx& o) {
        te::Idx j = o;
        for (size_t d = 0; d < j.size(); ++d) {
          const int64_t b = widths[d].first, n = shape[d];
          if (b == 0 && widths[d].second <= 0) continue;
          te::Expr i = b == 0 ? o[d] : o[d] - te::Expr(b);
          te::Expr src;
          switch (mode) {
            case Border::kEdge: src = i; break;
            case Border::kReflect:
              src = te::select(i < 0, -i, te::select(i >= te::Expr(n), te::Expr(2 * n - 2) - i, i));
              break;
            case Border::kSymmetric:
              src = te::select(i < 0, -i - te::Expr(1), te::select(i >= te::Expr(n), te::Expr(2 * n - 1) - i, i));
              break;
            case Border::kConstant: break;
          }
          j[d] = te_util::clamp(src, 0, n - 1);
        }
        return x(j);
      },
      "pad");
}

/// `g` sliced along `axis` to [begin, end), in reverse order when `reverse`.
Expr slice_along(const Expr& g, const std::vector<int64_t>& shape, size_t axis, int64_t begin, int64_t end,
                 bool reverse) {
  std::vector<int64_t> b(shape.size(), 0), e = shape, step(shape.size(), 1);
  if (reverse) {
    // A stop of -(extent + 1) canonicalizes to -1: the reversed slice runs down to index 0.
    b[axis] = end - 1;
    e[axis] = begin == 0 ? -(shape[axis] + 1) : begin - 1;
    step[axis] = -1;
  } else {
    b[axis] = begin;
    e[axis] = end;
  }
  return call("strided_slice", {g}, {{"begin", b}, {"end", e}, {"strides", step}});
}

/// `part` zero-padded along `axis` by [before, after], zero in `like`'s dtype.
Expr zero_pad_along(const Expr& part, const Expr& like, size_t rank, size_t axis, int64_t before, int64_t after) {
  std::vector<Value> widths(rank, Value(std::vector<int64_t>{0, 0}));
  widths[axis] = Value(std::vector<int64_t>{before, after});
  return call("nn.pad", {part, grad::scalar_like(like, 0.0)}, {{"pad_width", widths}});
}

/// Negative widths crop, each on its own side (a padded side still mirrors
/// the whole axis), so padding by `widths` is padding by their positive parts
/// and then cropping. Returns the gradient of that padded tensor, `g` with
/// zeros where the crop took elements away, and the positive parts.
std::pair<Expr, IntPairs> uncropped(const Expr& padded, const Expr& g, IntPairs widths) {
  std::vector<Value> cropped;
  bool crops = false;
  for (auto& [before, after] : widths) {
    cropped.emplace_back(std::vector<int64_t>{std::max<int64_t>(-before, 0), std::max<int64_t>(-after, 0)});
    crops = crops || before < 0 || after < 0;
    before = std::max<int64_t>(before, 0);
    after = std::max<int64_t>(after, 0);
  }
  if (!crops) return {g, widths};
  return {call("nn.pad", {g, grad::scalar_like(padded, 0.0)}, {{"pad_width", cropped}}), widths};
}

/// The data's gradient through edge, reflect or symmetric padding by widths
/// >= 0, `g` being the padded result's: axis by axis, the gradient of the
/// copied core plus each border's gradient sent back to the elements it
/// copied (mirrored, or summed into the edge element).
Expr border_gradient(const Expr& data, const Expr& g, const IntPairs& widths, Border mode, const char* op) {
  std::vector<int64_t> dims = grad::static_shape(data, std::string(op) + "'s data"), shape = dims;
  for (size_t d = 0; d < dims.size(); ++d) shape[d] += widths[d].first + widths[d].second;
  Expr acc = g;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t before = widths[d].first, after = widths[d].second, n = dims[d];
    if (before == 0 && after == 0) continue;
    Expr dx = slice_along(acc, shape, d, before, before + n, false);
    auto send_back = [&](int64_t begin, int64_t end, bool leading) {
      const int64_t k = end - begin;
      if (k == 0) return;
      if (mode == Border::kEdge) {
        Expr summed = call("sum", {slice_along(acc, shape, d, begin, end, false)},
                           {{"axis", std::vector<int64_t>{static_cast<int64_t>(d)}}, {"keepdims", true}});
        dx = grad::add(dx, zero_pad_along(summed, data, dims.size(), d, leading ? 0 : n - 1, leading ? n - 1 : 0));
        return;
      }
      // Mirrored, the leading border copies input [skip, skip + k) and the trailing one
      // [n - skip - k, n - skip), skip being 1 for reflect (the edge is not repeated).
      const int64_t skip = mode == Border::kReflect ? 1 : 0;
      const int64_t at = leading ? skip : n - skip - k;
      Expr mirrored = slice_along(acc, shape, d, begin, end, true);
      dx = grad::add(dx, zero_pad_along(mirrored, data, dims.size(), d, at, n - at - k));
    };
    send_back(0, before, true);
    send_back(before + n, before + n + after, false);
    acc = dx;
    shape[d] = n;
  }
  return acc;
}

/// Relay's PadInferCorrectLayout: the padding follows the layout its data
/// arrives in, each axis taking the widths of its letter; an axis that
/// layout splits into blocks must not be padded, else the data goes back to
/// its old layout. The pad value is a scalar.
InferredLayouts pad_layouts(const Attrs& attrs, const std::vector<Layout>& new_in, const std::vector<Layout>& old_in,
                            const std::vector<Type>&) {
  const Layout& old_layout = old_in[0];
  IntPairs widths = transform::get_pairs(attrs, "pad_width");
  if (!old_layout.defined() || old_layout.ndim() != widths.size()) return layouts::cannot_follow(2);
  InferredLayouts in_old{{old_layout, Layout("")}, {old_layout}, Attrs()};
  if (new_in.empty() || new_in[0] == old_layout) return in_old;
  std::vector<Value> moved;
  for (const LayoutAxis& a : new_in[0].axes()) {
    int at = old_layout.index_of(a.primal_name());
    if (at < 0) return in_old;
    auto [before, after] = widths[static_cast<size_t>(at)];
    if (!a.primal() || new_in[0].factor_of(a.name) > 0) {
      if (before != 0 || after != 0) return in_old;
    }
    moved.push_back(Value(std::vector<int64_t>{before, after}));
  }
  return {{new_in[0], Layout("")}, {new_in[0]}, layouts::with(attrs, {{"pad_width", Value(moved)}})};
}

}  // namespace

void register_pad_ops(Registrar& reg) {
  reg.op("nn.pad")
      .describe(
          "Pads each axis of data by pad_width[i] = [before, after] elements: with pad_value (constant), the "
          "border element (edge) or the mirror image without the border (reflect). Negative widths crop.")
      .input("data", "Tensor", "The input tensor.")
      .input("pad_value", "Tensor", "A scalar: the value of the padded area (constant mode), cast to data's dtype.")
      .attr_required("pad_width", WEFT_ATTR_LIST, "[before, after] for each axis.", "one [before, after] pair per axis")
      .normalize(transform::int_pairs_normalizer("pad_width"))
      .attr("pad_mode", "constant", "constant, edge or reflect.", "constant, edge or reflect")
      .normalize(transform::one_of("pad_mode", {"constant", "edge", "reflect"}))
      .support_level(2)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        const Type& value = transform::tensor_arg(args, 1, "pad_value");
        if (value.ndim() != 0) throw Error("pad_value must be a scalar tensor, got " + value.str());
        IntPairs widths = transform::get_pairs(attrs, "pad_width");
        std::vector<int64_t> shape = padded_shape(data, widths, "pad_width");
        std::string mode = attrs.get_string("pad_mode");
        if (mode == "reflect") check_mirror_widths(data, widths, false, mode);
        if (mode == "edge") {
          std::vector<int64_t> in = data.shape();
          for (size_t i = 0; i < in.size(); ++i) {
            if (in[i] == 0 && (widths[i].first > 0 || widths[i].second > 0)) {
              throw Error("edge padding of axis " + std::to_string(i) + " of data " + data.str() +
                          " has no edge element to repeat");
            }
          }
        }
        return Type::tensor(shape, data.dtype());
      })
      .infer_layout(pad_layouts)
      .kernel([](const KernelArgs& k) {
        const TensorView& out = k.outputs.at(0);
        std::vector<unsigned char> fill = transform::scalar_bytes(out.dtype(), transform::scalar_value(k.inputs.at(1)));
        pad_kernel(k.inputs.at(0), out, transform::get_pairs(k.attrs, "pad_width"),
                   pad_border(k.attrs.get_string("pad_mode")), fill);
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const te::Tensor &x = in.at(0), &value = in.at(1);
        if (!te_fill_dtype(x.dtype()) || !te_fill_dtype(value.dtype()) || value.dtype().bits > 8 * 8 ||
            (value.dtype().code == kDLUInt && value.dtype().bits > 8)) {
          throw Unsupported("nn.pad: no TE for these dtypes");
        }
        // The kernel reads the value as a double and casts it to the data's dtype.
        te::Expr v = value(te::Idx{});
        te::Expr fill = v.dtype() == x.dtype() && x.dtype().code == kDLFloat
                            ? v
                            : te::cast(x.dtype(), v.dtype() == dtype::float64 ? v : te::cast(dtype::float64, v));
        return std::vector<te::Tensor>{pad_te(x, transform::get_pairs(attrs, "pad_width"),
                                              pad_border(attrs.get_string("pad_mode")), fill, out.shape())};
      })
      .gradient([](const Expr& c, const Expr& g_result) {
        // The data's gradient is the unpadded window; the pad value's is the rest.
        const std::string mode = c.attrs().get_string("pad_mode");
        auto [g, widths] = uncropped(c, g_result, transform::get_pairs(c.attrs(), "pad_width"));
        if (mode != "constant") {
          Expr dx = border_gradient(c.arg(0), g, widths, pad_border(mode), "nn.pad");
          return std::vector<Expr>{dx, grad::zeros_like(c.arg(1))};
        }
        std::vector<int64_t> dims = grad::static_shape(c.arg(0), "nn.pad's data"), begin, end;
        for (size_t i = 0; i < dims.size(); ++i) {
          begin.push_back(widths[i].first);
          end.push_back(widths[i].first + dims[i]);
        }
        Expr inner = call("strided_slice", {g}, {{"begin", begin}, {"end", end}});
        Expr value = c.arg(1);
        Expr border = grad::sub(grad::collapse_sum_like(g, grad::cast_like(value, c)),
                                grad::collapse_sum_like(inner, grad::cast_like(value, c)));
        return std::vector<Expr>{inner, grad::cast_like(border, value)};
      });

  reg.op("nn.mirror_pad")
      .describe(
          "Pads each axis of data by pad_width[i] = [before, after] mirrored elements: SYMMETRIC repeats the "
          "border element, REFLECT does not.")
      .input("data", "Tensor", "The input tensor.")
      .attr("mode", "SYMMETRIC", "SYMMETRIC or REFLECT.", "SYMMETRIC or REFLECT")
      .normalize(transform::one_of("mode", {"SYMMETRIC", "REFLECT"}))
      .attr_required("pad_width", WEFT_ATTR_LIST, "[before, after] for each axis.", "one [before, after] pair per axis")
      .normalize(transform::int_pairs_normalizer("pad_width"))
      .support_level(2)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        IntPairs widths = transform::get_pairs(attrs, "pad_width");
        for (size_t i = 0; i < widths.size(); ++i) {
          if (widths[i].first < 0 || widths[i].second < 0) {
            throw Error("pad_width[" + std::to_string(i) + "] = [" + std::to_string(widths[i].first) + ", " +
                        std::to_string(widths[i].second) + "] is negative; expected widths >= 0");
          }
        }
        std::vector<int64_t> shape = padded_shape(data, widths, "pad_width");
        std::string mode = attrs.get_string("mode");
        check_mirror_widths(data, widths, mode == "SYMMETRIC", mode);
        return Type::tensor(shape, data.dtype());
      })
      .kernel([](const KernelArgs& k) {
        const TensorView& out = k.outputs.at(0);
        Border mode = k.attrs.get_string("mode") == "SYMMETRIC" ? Border::kSymmetric : Border::kReflect;
        pad_kernel(k.inputs.at(0), out, transform::get_pairs(k.attrs, "pad_width"), mode,
                   std::vector<unsigned char>(transform::element_bytes(out.dtype())));
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const te::Tensor& x = in.at(0);
        if (!te_fill_dtype(x.dtype())) throw Unsupported("nn.mirror_pad: no TE for this dtype");
        Border mode = attrs.get_string("mode") == "SYMMETRIC" ? Border::kSymmetric : Border::kReflect;
        return std::vector<te::Tensor>{
            pad_te(x, transform::get_pairs(attrs, "pad_width"), mode, te::Expr(0), out.shape())};
      })
      .gradient([](const Expr& c, const Expr& g) {
        Border mode = c.attrs().get_string("mode") == "SYMMETRIC" ? Border::kSymmetric : Border::kReflect;
        return std::vector<Expr>{
            border_gradient(c.arg(0), g, transform::get_pairs(c.attrs(), "pad_width"), mode, "nn.mirror_pad")};
      });
}

}  // namespace weft_nn
