// nn.upsampling and nn.upsampling3d: resizing the spatial axes by scale
// factors, as Relay's upsampling.cc types them and TOPI's resize2d/resize3d
// compute them (upsampling uses the "asymmetric" coordinate transformation
// unless align_corners, and bicubic's alpha is -0.5).
//
// Interpolation is separable: each spatial axis contributes taps (source
// index, weight), and an output element is the weighted sum over the product
// of its axes' taps. Coordinates and weights are computed in double (TOPI uses
// float32); indices follow TOPI's rounding exactly.
#include <cmath>
#include <string>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "te_util.h"
#include "transform.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;

enum class Method { kNearest, kLinear, kCubic };
enum class Coord { kHalfPixel, kAlignCorners, kAsymmetric };

struct Tap {
  int64_t index;
  double weight;
};

constexpr double kCubicAlpha = -0.5;  // TOPI resize's bicubic_alpha default, which upsampling keeps

/// TOPI get_inx: the source coordinate of output index x.
double source_coord(int64_t x, int64_t in, int64_t out, Coord mode) {
  double scale = static_cast<double>(in) / static_cast<double>(out);
  switch (mode) {
    case Coord::kHalfPixel:
      return (x + 0.5) * scale - 0.5;
    case Coord::kAlignCorners:
      return out > 1 ? static_cast<double>(in - 1) / (out - 1) * x : 0.0;
    case Coord::kAsymmetric:
      return scale * x;
  }
  return 0.0;
}

/// Taps of every output index along one axis; source indices clamp to the axis.
std::vector<std::vector<Tap>> axis_taps(int64_t in, int64_t out, Method method, Coord mode) {
  auto clamp = [in](int64_t i) { return i < 0 ? 0 : (i >= in ? in - 1 : i); };
  std::vector<std::vector<Tap>> taps(out);
  for (int64_t x = 0; x < out; ++x) {
    double s = source_coord(x, in, out, mode);
    if (method == Method::kNearest) {
      // TOPI rounds half to even under align_corners, else floors with an epsilon.
      double r = mode == Coord::kAlignCorners ? std::nearbyint(s) : std::floor(s + 1e-5);
      taps[x] = {{clamp(static_cast<int64_t>(r)), 1.0}};
      continue;
    }
    int64_t i0 = static_cast<int64_t>(std::floor(s));
    double t = s - std::floor(s);
    if (method == Method::kLinear) {
      taps[x] = {{clamp(i0), 1.0 - t}, {clamp(i0 + 1), t}};
      continue;
    }
    const double a = kCubicAlpha, t2 = t * t, t3 = t2 * t;
    double w[4] = {a * (t3 - 2 * t2 + t), (a + 2) * t3 - (3 + a) * t2 + 1, -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t,
                   -a * t3 + a * t2};
    for (int k = 0; k < 4; ++k) taps[x].push_back({clamp(i0 - 1 + k), w[k]});
  }
  return taps;
}

template <typename T>
void resize(const TensorView& in, const TensorView& out, const std::vector<size_t>& axes, Method method, Coord mode) {
  std::vector<int64_t> in_shape = in.shape(), out_shape = out.shape();
  std::vector<int64_t> in_strides = transform::strides_of(in_shape);
  std::vector<std::vector<std::vector<Tap>>> taps;
  for (size_t a : axes) taps.push_back(axis_taps(in_shape[a], out_shape[a], method, mode));
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  std::vector<int64_t> idx(out_shape.size(), 0);
  std::vector<const std::vector<Tap>*> active(axes.size());
  std::vector<size_t> pick(axes.size());
  for (int64_t n = 0, total = out.numel(); n < total; ++n) {
    int64_t base = 0;
    for (size_t d = 0; d < idx.size(); ++d) base += idx[d] * in_strides[d];
    for (size_t j = 0; j < axes.size(); ++j) {
      base -= idx[axes[j]] * in_strides[axes[j]];  // spatial offsets come from the taps
      active[j] = &taps[j][idx[axes[j]]];
      pick[j] = 0;
    }
    double sum = 0;
    while (true) {
      double w = 1;
      int64_t offset = base;
      for (size_t j = 0; j < axes.size(); ++j) {
        const Tap& tap = (*active[j])[pick[j]];
        w *= tap.weight;
        offset += tap.index * in_strides[axes[j]];
      }
      sum += w * static_cast<double>(src[offset]);
      size_t j = axes.size();
      while (j-- > 0 && ++pick[j] == active[j]->size()) pick[j] = 0;
      if (j == static_cast<size_t>(-1)) break;
    }
    dst[n] = static_cast<T>(sum);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
}

void run_resize(const KernelArgs& k, const std::vector<size_t>& axes, Method method, Coord mode) {
  const TensorView& in = k.inputs.at(0);
  if (in.dtype() == dtype::float64) return resize<double>(in, k.outputs.at(0), axes, method, mode);
  if (in.dtype() == dtype::float32) return resize<float>(in, k.outputs.at(0), axes, method, mode);
  throw Error("the reference kernel takes float32 or float64 data, got " + dtype_name(in.dtype()));
}

/// Spatial axes of a layout: "NCHW" -> {2, 3}, "NDHWC" -> {1, 2, 3}, "NCHW16c" -> {2, 3}.
std::vector<size_t> spatial_axes(const std::string& layout) {
  std::vector<size_t> axes;
  Layout l(layout);
  for (size_t i = 0; i < l.ndim(); ++i) {
    if (l[i].name == 'D' || l[i].name == 'H' || l[i].name == 'W') axes.push_back(i);
  }
  return axes;
}

/// The layout attr of a resize of `canonical`'s spatial axes ("NCHW": H, W):
/// a layout of its axes with the spatial ones in that order and unsplit
/// (NCHW, NHWC, NCHW16c, ...), which Relay's relation takes (any layout
/// convertible to NCHW) and the separable kernel computes.
Normalizer spatial_layout(std::string canonical, std::string channels_last) {
  return [canonical, channels_last](const Value& v) {
    std::string s = v.as_string();
    auto bad = [&] {
      return Error("layout is '" + s + "'; expected the axes of " + canonical + " with " + canonical.substr(2) +
                   " in that order and unsplit, such as " + canonical + ", " + channels_last + " or " + canonical +
                   "16c");
    };
    Layout l;
    try {
      l = Layout(s);
    } catch (const LayoutError&) {
      throw bad();
    }
    if (!l.convertible_to(Layout(canonical))) throw bad();
    int last = -1;
    for (char axis : canonical.substr(2)) {
      if (l.index_of(axis) <= last || l.factor_of(axis) > 0) throw bad();
      last = l.index_of(axis);
    }
    return v;
  };
}

/// Relay's UpsamplingInferCorrectLayout: the op follows a new input layout
/// that keeps the D, H and W axes where its own layout has them, unsplit
/// (NCHW into NCHW16c); otherwise its input goes back to its own layout.
InferredLayouts upsampling_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                                   const std::vector<Layout>&, const std::vector<Type>&) {
  Layout own(attrs.get_string("layout"));
  if (!new_in.empty() && new_in[0].defined()) {
    const Layout& in = new_in[0];
    bool follows = true;
    for (char axis : {'D', 'H', 'W'})
      follows = follows && in.index_of(axis) == own.index_of(axis) && in.factor_of(axis) <= 0;
    if (follows) return {{in}, {in}, layouts::with(attrs, {{"layout", in.name()}})};
  }
  return {{own}, {own}, Attrs()};
}

/// Output type: each spatial axis scaled by its factor and rounded half to
/// even (TVM's round on a constant).
Type scaled_type(const Type& data, const std::string& layout, const std::vector<double>& scales) {
  std::vector<int64_t> shape = data.shape();
  const size_t rank = Layout(layout).ndim();
  if (shape.size() != rank) {
    throw Error("data " + data.str() + " has " + std::to_string(shape.size()) + " dimensions; layout " + layout +
                " expects " + std::to_string(rank));
  }
  std::vector<size_t> axes = spatial_axes(layout);
  static const char* names[] = {"scale_d", "scale_h", "scale_w"};
  for (size_t j = 0; j < axes.size(); ++j) {
    const char* name = names[3 - axes.size() + j];
    if (!(scales[j] > 0)) throw Error(std::string(name) + " is " + std::to_string(scales[j]) + "; expected > 0");
    if (shape[axes[j]] != WEFT_DIM_ANY) {
      const double extent = std::nearbyint(static_cast<double>(shape[axes[j]]) * scales[j]);
      // Converting a double past int64's range to int64 is undefined.
      if (!(extent < 0x1p63)) {
        throw Error(std::string(name) + " " + std::to_string(scales[j]) + " scales axis extent " +
                    std::to_string(shape[axes[j]]) + " past what int64 can count");
      }
      shape[axes[j]] = static_cast<int64_t>(extent);
    }
  }
  return Type::tensor(shape, data.dtype());
}

/// The resize as `resize` computes it: per axis the source coordinate in
/// float64 as source_coord, its taps' indices (clamped) and weights as
/// axis_taps, and the weighted sum over the product of the axes' taps in the
/// kernel's order, in float64, cast to the data's dtype. Nearest reads the
/// one tap (a weight of 1 changes nothing).
struct TeTap {
  te::Expr index, weight;
};

std::vector<TeTap> te_axis_taps(const te::Expr& x, int64_t in, int64_t out, Method method, Coord mode) {
  const DLDataType f64 = dtype::float64;
  auto c = [&](double v) { return te::make_const(f64, v); };
  te::Expr xf = te::cast(f64, x);
  te::Expr s;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  switch (mode) {
    case Coord::kHalfPixel: s = (xf + c(0.5)) * c(scale) - c(0.5); break;
    case Coord::kAlignCorners:
      s = out > 1 ? c(static_cast<double>(in - 1) / (out - 1)) * xf : c(0.0);
      break;
    case Coord::kAsymmetric: s = c(scale) * xf; break;
  }
  auto index = [&](const te::Expr& e) { return te_util::clamp_index(e, in); };
  if (method == Method::kNearest) {
    te::Expr r = mode == Coord::kAlignCorners ? te::round(s) : te::floor(s + c(1e-5));
    return {{index(te::cast(dtype::int32, r)), c(1.0)}};
  }
  te::Expr fl = te::floor(s);
  te::Expr i0 = te::cast(dtype::int32, fl);
  te::Expr t = s - fl;
  if (method == Method::kLinear) return {{index(i0), c(1.0) - t}, {index(i0 + 1), t}};
  const double a = kCubicAlpha;
  te::Expr t2 = t * t, t3 = t2 * t;
  te::Expr w[4] = {c(a) * (t3 - c(2) * t2 + t), c(a + 2) * t3 - c(3 + a) * t2 + c(1),
                   c(-(a + 2)) * t3 + c(3 + 2 * a) * t2 - c(a) * t, c(-a) * t3 + c(a) * t2};
  std::vector<TeTap> taps;
  for (int k = 0; k < 4; ++k) taps.push_back({index(i0 + (k - 1)), w[k]});
  return taps;
}

te::Tensor resize_te(const te::Tensor& x, const Type& out, const std::vector<size_t>& axes, Method method,
                     Coord mode) {
  te_util::require_float(x.dtype(), "upsampling");
  const std::vector<int64_t> shape = x.shape(), oshape = out.shape();
  for (int64_t d : shape) {
    if (d == 0) throw Unsupported("upsampling: no TE for empty data");
  }
  return te::compute(
      oshape,
      [&](const te::Idx& o) {
        std::vector<std::vector<TeTap>> taps;
        for (size_t a : axes) taps.push_back(te_axis_taps(o[a], shape[a], oshape[a], method, mode));
        if (method == Method::kNearest) {
          te::Idx j = o;
          for (size_t k = 0; k < axes.size(); ++k) j[axes[k]] = taps[k][0].index;
          return x(j);
        }
        te::Expr sum;
        std::vector<size_t> pick(axes.size(), 0);
        while (true) {
          te::Idx j = o;
          te::Expr w;
          for (size_t k = 0; k < axes.size(); ++k) {
            const TeTap& tap = taps[k][pick[k]];
            w = k == 0 ? tap.weight : w * tap.weight;
            j[axes[k]] = tap.index;
          }
          te::Expr term = w * te::cast(dtype::float64, x(j));
          sum = sum.get() ? sum + term : te::make_const(dtype::float64, 0.0) + term;
          size_t k = axes.size();
          while (k-- > 0 && ++pick[k] == taps[k].size()) pick[k] = 0;
          if (k == static_cast<size_t>(-1)) break;
        }
        return te::cast(x.dtype(), sum);
      },
      "resize");
}

}  // namespace

/// Resizing is linear and separable: along each spatial axis the output is
/// (out x in) tap weights times the input, so the gradient applies the
/// transposed weights axis by axis.
std::vector<Expr> resize_gradient(const Expr& c, const Expr& g, Method method, Coord mode) {
  Expr data = c.arg(0);
  std::vector<int64_t> in = grad::static_shape(data, "the resized data"), current = grad::static_shape(c, "the output");
  Expr result = g;
  for (size_t axis : spatial_axes(c.attrs().get_string("layout"))) {
    std::vector<double> matrix(static_cast<size_t>(current[axis] * in[axis]), 0.0);
    std::vector<std::vector<Tap>> taps = axis_taps(in[axis], current[axis], method, mode);
    for (size_t o = 0; o < taps.size(); ++o) {
      for (const Tap& t : taps[o]) matrix[o * static_cast<size_t>(in[axis]) + static_cast<size_t>(t.index)] += t.weight;
    }
    result = grad::transpose_matrix_along_axis(result, current, axis, in[axis], matrix, data.type().dtype());
    current[axis] = in[axis];
  }
  return {result};
}

void register_upsampling_ops(Registrar& reg) {
  reg.op("nn.upsampling")
      .describe(
          "Upsamples the H and W axes of 4-D data by scale_h and scale_w (out = round(in * scale)) with "
          "nearest_neighbor, bilinear or bicubic interpolation. Without align_corners, output index x maps to "
          "source coordinate x * in / out (TOPI's 'asymmetric'); with it, to x * (in - 1) / (out - 1).")
      .input("data", "Tensor", "4-D data in NCHW or NHWC layout (or NCHW<n>c).")
      .attr("scale_h", 1.0, "The scale factor of the height axis.")
      .attr("scale_w", 1.0, "The scale factor of the width axis.")
      .attr("layout", "NCHW", "The data layout.", "NCHW, NHWC, NCHW16c, ...: NCHW's axes, H before W, unsplit")
      .normalize(spatial_layout("NCHW", "NHWC"))
      .attr("method", "nearest_neighbor", "The interpolation.", "nearest_neighbor, bilinear or bicubic")
      .normalize(transform::one_of("method", {"nearest_neighbor", "bilinear", "bicubic"}))
      .attr("align_corners", false, "Keep the corner pixels in place.")
      .support_level(2)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .infer_layout(upsampling_layouts)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        return scaled_type(transform::tensor_arg(args, 0, "data"), attrs.get_string("layout"),
                           {attrs.get_float("scale_h"), attrs.get_float("scale_w")});
      })
      .kernel([](const KernelArgs& k) {
        std::string method = k.attrs.get_string("method");
        Method m = method == "bilinear" ? Method::kLinear : method == "bicubic" ? Method::kCubic : Method::kNearest;
        Coord c = k.attrs.get_bool("align_corners") ? Coord::kAlignCorners : Coord::kAsymmetric;
        run_resize(k, spatial_axes(k.attrs.get_string("layout")), m, c);
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        std::string method = attrs.get_string("method");
        Method m = method == "bilinear" ? Method::kLinear : method == "bicubic" ? Method::kCubic : Method::kNearest;
        Coord c = attrs.get_bool("align_corners") ? Coord::kAlignCorners : Coord::kAsymmetric;
        return resize_te(in.at(0), out, spatial_axes(attrs.get_string("layout")), m, c);
      })
      .gradient([](const Expr& c, const Expr& g) {
        std::string method = c.attrs().get_string("method");
        Method m = method == "bilinear" ? Method::kLinear : method == "bicubic" ? Method::kCubic : Method::kNearest;
        Coord coord = c.attrs().get_bool("align_corners") ? Coord::kAlignCorners : Coord::kAsymmetric;
        return resize_gradient(c, g, m, coord);
      });

  reg.op("nn.upsampling3d")
      .describe(
          "Upsamples the D, H and W axes of 5-D data by scale_d, scale_h and scale_w (out = round(in * scale)) "
          "with nearest_neighbor or trilinear interpolation; coordinate_transformation_mode maps output to "
          "source coordinates as in ONNX Resize.")
      .input("data", "Tensor", "5-D data in NCDHW or NDHWC layout (or NCDHW<n>c).")
      .attr("scale_d", 1.0, "The scale factor of the depth axis.")
      .attr("scale_h", 1.0, "The scale factor of the height axis.")
      .attr("scale_w", 1.0, "The scale factor of the width axis.")
      .attr("layout", "NCDHW", "The data layout.",
            "NCDHW, NDHWC, NCDHW16c, ...: NCDHW's axes, D, H and W in that order, unsplit")
      .normalize(spatial_layout("NCDHW", "NDHWC"))
      .attr("method", "nearest_neighbor", "The interpolation.", "nearest_neighbor or trilinear")
      .normalize(transform::one_of("method", {"nearest_neighbor", "trilinear"}))
      .attr("coordinate_transformation_mode", "half_pixel", "How output indices map to source coordinates.",
            "half_pixel, align_corners or asymmetric")
      .normalize(transform::one_of("coordinate_transformation_mode", {"half_pixel", "align_corners", "asymmetric"}))
      .support_level(2)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .infer_layout(upsampling_layouts)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        return scaled_type(transform::tensor_arg(args, 0, "data"), attrs.get_string("layout"),
                           {attrs.get_float("scale_d"), attrs.get_float("scale_h"), attrs.get_float("scale_w")});
      })
      .kernel([](const KernelArgs& k) {
        Method m = k.attrs.get_string("method") == "trilinear" ? Method::kLinear : Method::kNearest;
        std::string mode = k.attrs.get_string("coordinate_transformation_mode");
        Coord c = mode == "align_corners" ? Coord::kAlignCorners
                  : mode == "asymmetric"  ? Coord::kAsymmetric
                                          : Coord::kHalfPixel;
        run_resize(k, spatial_axes(k.attrs.get_string("layout")), m, c);
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        Method m = attrs.get_string("method") == "trilinear" ? Method::kLinear : Method::kNearest;
        std::string mode = attrs.get_string("coordinate_transformation_mode");
        Coord c = mode == "align_corners" ? Coord::kAlignCorners
                  : mode == "asymmetric"  ? Coord::kAsymmetric
                                          : Coord::kHalfPixel;
        return resize_te(in.at(0), out, spatial_axes(attrs.get_string("layout")), m, c);
      })
      .gradient([](const Expr& c, const Expr& g) {
        Method m = c.attrs().get_string("method") == "trilinear" ? Method::kLinear : Method::kNearest;
        std::string mode = c.attrs().get_string("coordinate_transformation_mode");
        Coord coord = mode == "align_corners" ? Coord::kAlignCorners
                      : mode == "asymmetric"  ? Coord::kAsymmetric
                                              : Coord::kHalfPixel;
        return resize_gradient(c, g, m, coord);
      });
}

}  // namespace weft_nn
