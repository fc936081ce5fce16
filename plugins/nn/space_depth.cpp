// nn.depth_to_space and nn.space_to_depth: moving block_size x block_size
// pixel blocks between the channel and spatial axes, as TOPI's transform.h
// computes them (DCR: depth-column-row channel order as TensorFlow's; CRD:
// column-row-depth as PyTorch's pixel_shuffle; space_to_depth uses DCR).
#include <string>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "te_util.h"
#include "transform.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;

/// Positions of N, C, H, W in a 4-D layout.
struct Axes {
  size_t n, c, h, w;
};

Axes axes_of(const std::string& layout) { return layout == "NHWC" ? Axes{0, 3, 1, 2} : Axes{0, 1, 2, 3}; }

/// The input type checked for a 4-D layout and a positive block size.
std::vector<int64_t> checked_shape(const Type& data, const std::string& layout, int64_t block) {
  std::vector<int64_t> shape = data.shape();
  if (shape.size() != 4) throw Error("data " + data.str() + " is not 4-D; expected a " + layout + " tensor");
  if (block < 1) throw Error("block_size is " + std::to_string(block) + "; expected >= 1");
  return shape;
}

/// out = data read at the NCHW source index `source(n, c, h, w)` of each
/// output NCHW index, in either layout.
template <typename Source>
void rearrange(const KernelArgs& k, Source source) {
  const TensorView& in = k.inputs.at(0);
  Axes a = axes_of(k.attrs.get_string("layout"));
  std::vector<int64_t> strides = transform::strides_of(in.shape());
  transform::gather(in, k.outputs.at(0), {}, [&](const std::vector<int64_t>& idx) {
    int64_t s[4];
    source(idx[a.n], idx[a.c], idx[a.h], idx[a.w], s);
    return s[0] * strides[a.n] + s[1] * strides[a.c] + s[2] * strides[a.h] + s[3] * strides[a.w];
  });
}

/// depth_to_space's gradient: space_to_depth with the same block size and
/// layout undoes it. space_to_depth always yields DCR channel order
/// (block offset outer), so for CRD the channels are regrouped with the
/// offset inner: (offset, c) -> (c, offset).
/// The TE of a rearrangement: out[idx] = in[source(n, c, y, x)].
template <typename Source>
std::vector<te::Tensor> rearrange_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out,
                                     Source source, const char* name) {
  const te::Tensor& x = in.at(0);
  Axes a = axes_of(attrs.get_string("layout"));
  return {te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        te::Expr s[4];
        source(i[a.n], i[a.c], i[a.h], i[a.w], s);
        te::Idx j(4);
        j[a.n] = s[0];
        j[a.c] = s[1];
        j[a.h] = s[2];
        j[a.w] = s[3];
        return x(j);
      },
      name)};
}

std::vector<Expr> depth_to_space_gradient(const Expr& c, const Expr& g) {
  const Attrs& attrs = c.attrs();
  const std::string layout = attrs.get_string("layout");
  const int64_t b = attrs.get_int("block_size");
  Expr dx = call("nn.space_to_depth", {g}, {{"block_size", b}, {"layout", layout}});
  if (attrs.get_string("mode") == "CRD") {
    std::vector<int64_t> shape = grad::static_shape(c.arg(0), "depth_to_space's data");
    Axes a = axes_of(layout);
    const int64_t channels = shape[a.c] / (b * b);
    std::vector<int64_t> split, order;
    for (size_t d = 0; d < 4; ++d) {
      if (d == a.c) {
        split.push_back(b * b);
        split.push_back(channels);
        order.push_back(static_cast<int64_t>(split.size()) - 1);
        order.push_back(static_cast<int64_t>(split.size()) - 2);
      } else {
        split.push_back(shape[d]);
        order.push_back(static_cast<int64_t>(split.size()) - 1);
      }
    }
    Expr grouped = call("reshape", {dx}, {{"newshape", split}});
    dx = call("reshape", {call("transpose", {grouped}, {{"axes", order}})}, {{"newshape", shape}});
  }
  return {dx};
}

}  // namespace

void register_space_depth_ops(Registrar& reg) {
  reg.op("nn.depth_to_space")
      .describe(
          "Rearranges channels into block_size x block_size spatial blocks: (N, C, H, W) -> (N, C / block_size^2, "
          "H * block_size, W * block_size) in NCHW. mode DCR takes the block offset as the outer part of the "
          "channel index, CRD as the inner part.")
      .input("data", "Tensor", "4-D data whose channels divide by block_size^2.")
      .attr("block_size", int64_t{1}, "The edge of the spatial blocks.", "an int >= 1")
      .attr("layout", "NCHW", "The data layout.", "NCHW or NHWC")
      .normalize(transform::one_of("layout", {"NCHW", "NHWC"}))
      .attr("mode", "DCR", "The channel order: DCR or CRD.", "DCR or CRD")
      .normalize(transform::one_of("mode", {"DCR", "CRD"}))
      .support_level(5)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        std::string layout = attrs.get_string("layout");
        int64_t b = attrs.get_int("block_size");
        std::vector<int64_t> shape = checked_shape(data, layout, b);
        Axes a = axes_of(layout);
        const int64_t b2 = checked_field("block_size", [&] { return (CheckedInt(b) * b).value(); });
        if (shape[a.c] != WEFT_DIM_ANY) {
          if (shape[a.c] % b2 != 0) {
            throw Error("block_size " + std::to_string(b) + " does not divide data " + data.str() + ": its " +
                        std::to_string(shape[a.c]) + " channels are not a multiple of " + std::to_string(b2));
          }
          shape[a.c] /= b2;
        }
        for (size_t ax : {a.h, a.w}) {
          if (shape[ax] != WEFT_DIM_ANY)
            shape[ax] = checked_field("block_size", [&] { return (CheckedInt(shape[ax]) * b).value(); });
        }
        return Type::tensor(shape, data.dtype());
      })
      .kernel([](const KernelArgs& k) {
        const int64_t b = k.attrs.get_int("block_size");
        const bool dcr = k.attrs.get_string("mode") == "DCR";
        const int64_t out_c = k.outputs.at(0).shape()[axes_of(k.attrs.get_string("layout")).c];
        rearrange(k, [&](int64_t n, int64_t c, int64_t y, int64_t x, int64_t* s) {
          int64_t offset = b * (y % b) + x % b;
          s[0] = n;
          s[1] = dcr ? offset * out_c + c : c * b * b + offset;
          s[2] = y / b;
          s[3] = x / b;
        });
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const int64_t b = attrs.get_int("block_size");
        const bool dcr = attrs.get_string("mode") == "DCR";
        const int64_t out_c = out.shape()[axes_of(attrs.get_string("layout")).c];
        te::Expr eb(b);
        return rearrange_te(
            in, attrs, out,
            [&](const te::Expr& n, const te::Expr& c, const te::Expr& y, const te::Expr& x, te::Expr* s) {
              te::Expr offset = eb * te::floormod(y, eb) + te::floormod(x, eb);
              s[0] = n;
              s[1] = dcr ? offset * te::Expr(out_c) + c : c * te::Expr(b * b) + offset;
              s[2] = te::floordiv(y, eb);
              s[3] = te::floordiv(x, eb);
            },
            "depth_to_space");
      })
      .gradient(depth_to_space_gradient);

  reg.op("nn.space_to_depth")
      .describe(
          "Rearranges block_size x block_size spatial blocks into channels: (N, C, H, W) -> (N, C * block_size^2, "
          "H / block_size, W / block_size) in NCHW, the block offset being the outer part of the channel index.")
      .input("data", "Tensor", "4-D data whose height and width divide by block_size.")
      .attr("block_size", int64_t{1}, "The edge of the spatial blocks.", "an int >= 1")
      .attr("layout", "NCHW", "The data layout.", "NCHW or NHWC")
      .normalize(transform::one_of("layout", {"NCHW", "NHWC"}))
      // SubPixelAttrs' field, which the reference's space_to_depth ignores and
      // leaves unset (TVM prints mode=""): accepted, read as DCR.
      .attr("mode", "DCR", "Ignored, as by the reference; \"\" reads as DCR.", "DCR, CRD or \"\"")
      .normalize([](const Value& v) {
        return v.as_string().empty() ? Value("DCR") : transform::one_of("mode", {"DCR", "CRD"})(v);
      })
      .support_level(5)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        std::string layout = attrs.get_string("layout");
        int64_t b = attrs.get_int("block_size");
        std::vector<int64_t> shape = checked_shape(data, layout, b);
        Axes a = axes_of(layout);
        for (size_t ax : {a.h, a.w}) {
          if (shape[ax] == WEFT_DIM_ANY) continue;
          if (shape[ax] % b != 0) {
            throw Error("block_size " + std::to_string(b) + " does not divide the " + (ax == a.h ? "height" : "width") +
                        " of data " + data.str());
          }
          shape[ax] /= b;
        }
        if (shape[a.c] != WEFT_DIM_ANY)
          shape[a.c] = checked_field("block_size", [&] { return (CheckedInt(shape[a.c]) * b * b).value(); });
        return Type::tensor(shape, data.dtype());
      })
      .kernel([](const KernelArgs& k) {
        const int64_t b = k.attrs.get_int("block_size");
        const int64_t in_c = k.inputs.at(0).shape()[axes_of(k.attrs.get_string("layout")).c];
        rearrange(k, [&](int64_t n, int64_t c, int64_t y, int64_t x, int64_t* s) {
          int64_t offset = c / in_c;
          s[0] = n;
          s[1] = c % in_c;
          s[2] = y * b + offset / b;
          s[3] = x * b + offset % b;
        });
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const int64_t b = attrs.get_int("block_size");
        const int64_t in_c = in.at(0).shape()[axes_of(attrs.get_string("layout")).c];
        te::Expr eb(b), ec(in_c);
        return rearrange_te(
            in, attrs, out,
            [&](const te::Expr& n, const te::Expr& c, const te::Expr& y, const te::Expr& x, te::Expr* s) {
              te::Expr offset = te::floordiv(c, ec);
              s[0] = n;
              s[1] = te::floormod(c, ec);
              s[2] = y * eb + te::floordiv(offset, eb);
              s[3] = x * eb + te::floormod(offset, eb);
            },
            "space_to_depth");
      })
      .gradient([](const Expr& c, const Expr& g) {
        // depth_to_space in DCR order (the order space_to_depth writes) undoes it.
        const Attrs& attrs = c.attrs();
        return std::vector<Expr>{call("nn.depth_to_space", {g},
                                      {{"block_size", attrs.get_int("block_size")},
                                       {"layout", attrs.get_string("layout")},
                                       {"mode", "DCR"}})};
      });
}

}  // namespace weft_nn
