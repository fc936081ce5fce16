// Shared pieces of the convolution family: layouts (NCHW, NHWC, NCHW8c,
// OIHW8i8o, ...), attribute normalization as Relay's nn.py does it, and the
// canonical-order tensor copies every conv kernel computes on.
#pragma once

#include <weft/plugin.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft_nn::conv {

using weft::sdk::Attrs;
using weft::sdk::Error;
using weft::sdk::OpBuilder;
using weft::sdk::TensorView;
using weft::sdk::Type;
using weft::sdk::Value;

/// "(1, 3, 224, 224)", with "?" for dynamic dims.
std::string shape_str(const std::vector<int64_t>& shape);

/// A data layout in Relay's notation: upper-case letters are the primal axes
/// of a canonical layout ("NCHW"), and "8c" splits axis C into blocks of 8 as
/// its inner part. Parsing checks the layout holds exactly the canonical
/// layout's primal axes, which is when Relay's BijectiveLayout exists.
class Layout {
 public:
  /// Throws an Error naming `attr` when `name` is not convertible to `canonical`.
  static Layout parse(const std::string& name, const std::string& canonical, const std::string& attr);

  const std::string& name() const { return name_; }
  size_t rank() const { return axes_.size(); }
  /// The canonical shape of a tensor of this layout (Relay's ForwardShape).
  std::vector<int64_t> to_canonical(const std::vector<int64_t>& shape) const;
  /// This layout's shape for a canonical shape (BackwardShape); Error when a
  /// split axis does not divide.
  std::vector<int64_t> from_canonical(const std::vector<int64_t>& canonical_shape) const;
  /// For each canonical axis, the element offset of each index along it in a
  /// compact tensor of this layout whose canonical shape is `canonical_shape`.
  std::vector<std::vector<int64_t>> offset_tables(const std::vector<int64_t>& canonical_shape) const;

 private:
  struct Axis {
    size_t canonical_axis;
    int64_t factor;  // 0 for a primal axis, the block size for a split one
  };
  std::string name_;
  std::vector<Axis> axes_;
};

/// Element values of a tensor of any supported dtype, converted to T.
template <typename T>
std::vector<T> read_as(const TensorView& t);

/// The tensor's elements as T in the canonical order of `layout`.
template <typename T>
std::vector<T> to_canonical(const TensorView& t, const Layout& layout, const std::vector<int64_t>& canonical_shape);

/// Writes `values` (canonical order) into `out`, laid out as `layout`.
template <typename T>
void from_canonical(const std::vector<T>& values, const Layout& layout, const std::vector<int64_t>& canonical_shape,
                    const TensorView& out);

/// Runs `body.template operator()<T>()` with T the C++ type of `out_dtype`
/// (float, double or int32_t): the type a conv accumulates in, as TOPI casts
/// both operands to out_dtype before multiplying.
template <typename Body>
void dispatch_accumulator(const std::string& op, const TensorView& out, Body&& body) {
  using namespace weft::sdk;
  DLDataType dt = out.dtype();
  if (dt == dtype::float32) body.template operator()<float>();
  else if (dt == dtype::float64) body.template operator()<double>();
  else if (dt == dtype::int32) body.template operator()<int32_t>();
  else throw Error(op + ": the reference kernel computes in float32, float64 or int32, not " + dtype_name(dt));
}

// ---- Attributes ------------------------------------------------------------------

/// `n` ints from an int (repeated) or a list of `n` ints, each >= `min`.
Value int_tuple(const Value& v, size_t n, int64_t min);
/// Relay's get_pad_tuple{1,2,3}d: an int, `n` ints (both sides) or `2n` ints
/// (all befores, then all afters) -> 2n ints. A single int in a list counts as the int.
Value pad_tuple(const Value& v, size_t n);
/// The optional int-list attr `name` (kernel_size), or nullopt when None.
std::optional<std::vector<int64_t>> optional_ints(const Attrs& attrs, const std::string& name);
/// The optional int attr `name` (channels), or nullopt when None.
std::optional<int64_t> optional_int(const Attrs& attrs, const std::string& name);

/// Declares strides and padding for `n` spatial dims.
OpBuilder& stride_pad_attrs(OpBuilder& op, size_t n);
/// Declares dilation for `n` spatial dims.
OpBuilder& dilation_attr(OpBuilder& op, size_t n);
/// strides, padding, dilation, in Relay's order.
inline OpBuilder& window_attrs(OpBuilder& op, size_t n) { return dilation_attr(stride_pad_attrs(op, n), n); }
/// Declares channels and kernel_size.
OpBuilder& channel_attrs(OpBuilder& op, size_t n);
/// Declares data_layout, kernel_layout, out_layout.
OpBuilder& layout_attrs(OpBuilder& op, const std::string& data_layout, const std::string& kernel_layout);
/// Declares out_dtype.
OpBuilder& out_dtype_attr(OpBuilder& op);

/// The padding total per spatial dim (before + after) from a normalized 2n tuple.
std::vector<int64_t> pad_totals(const std::vector<int64_t>& padding);

// ---- One conv op's attributes -----------------------------------------------------

/// Which convolution an op computes: its spatial rank and the canonical layouts
/// its data (NCHW) and weight (OIHW, or IOHW for a transposed conv) convert from.
struct ConvKind {
  const char* op = "";
  size_t dims = 0;
  const char* data_canon = "";
  const char* kernel_canon = "";
  bool transposed = false;
};

/// The convolutions whose weight type inference can give (weight_inference.cpp).
inline constexpr ConvKind kConv1d{"nn.conv1d", 1, "NCW", "OIW"};
inline constexpr ConvKind kConv2d{"nn.conv2d", 2, "NCHW", "OIHW"};
inline constexpr ConvKind kConv3d{"nn.conv3d", 3, "NCDHW", "OIDHW"};
inline constexpr ConvKind kConv1dTranspose{"nn.conv1d_transpose", 1, "NCW", "IOW", true};
inline constexpr ConvKind kConv2dTranspose{"nn.conv2d_transpose", 2, "NCHW", "IOHW", true};
inline constexpr ConvKind kConv3dTranspose{"nn.conv3d_transpose", 3, "NCDHW", "IODHW", true};

/// Relay's ConvInferCorrectLayout: a conv takes its data and weight in its
/// layout attrs, whatever they arrive in, and gives out_layout (data_layout
/// when empty).
weft::sdk::InferredLayouts conv_layouts(const Attrs& attrs, const std::vector<weft::sdk::Layout>& new_in,
                                        const std::vector<weft::sdk::Layout>& old_in, const std::vector<Type>& types);
/// Gives `kind`'s op conv_layouts and a convert_layout hook (ConvertLayout's
/// rebuilding in the desired layouts; "default" kernel layouts as the
/// reference's), where the reference has them (not conv1d_transpose).
void layout_hooks(OpBuilder& op, const ConvKind& kind);

/// A conv op's normalized attrs read once into types: the one place the type
/// relation, infer_inputs and the kernel of conv{1,2,3}d (and transposes) get
/// layouts, window and channel attrs from. The kernels are prepared per call
/// site (OpBuilder::prepared_kernel): each reads this struct, and checks the
/// operands, once into a plan that every run of the call reuses.
struct ConvAttrs {
  ConvKind kind;
  Layout data_layout, kernel_layout, out_layout;  // out_layout defaults to data_layout
  std::vector<int64_t> strides, padding, dilation;
  std::vector<int64_t> output_padding;  // transposed convs only; empty otherwise
  int64_t groups = 1;
  std::optional<int64_t> channels;
  std::optional<std::vector<int64_t>> kernel_size;
  std::optional<DLDataType> out_dtype;  // None: the data's dtype

  /// Reads and checks the attrs (layouts convertible, groups >= 1); Error naming the attr.
  static ConvAttrs read(const ConvKind& kind, const Attrs& attrs);

  /// The weight shape, in canonical (OI... or IO...) order, that Relay's
  /// Conv*Rel / Conv*TransposeRel assign when channels and kernel_size are set:
  /// (channels, in_channels / groups, k...), for a depthwise conv (in_channels,
  /// channels / in_channels, k...), for a transposed conv (in_channels,
  /// channels / groups, k...). Requires channels and kernel_size.
  std::vector<int64_t> implied_weight(int64_t in_channels, bool depthwise) const;

  /// A conv call's data and weight checked against each other and the attrs,
  /// as Relay's Conv*Rel and Conv*TransposeRel check them: each shape's rank
  /// against its layout, groups dividing the input channels (and channels),
  /// and the weight equal to implied_weight where channels and kernel_size
  /// are both set, otherwise its kernel, output channels and input channels
  /// against kernel_size, channels and the data's channels. `depthwise_rule`:
  /// the op reads a (C, multiplier, k...) weight with groups == C as
  /// depthwise (conv2d and conv3d; not deformable_conv2d). Errors end in
  /// `operands.shapes`, the suffix naming both shapes.
  struct Operands {
    std::vector<int64_t> data;    ///< canonical (NC...)
    std::vector<int64_t> weight;  ///< canonical, as the kernel reads it (depthwise: (channels, 1, k...))
    int64_t out_channels = 0;
    std::string shapes;  ///< " (data shape ... in NCHW, weight shape ... in OIHW)"
  };
  Operands check_operands(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& weight_shape,
                          bool depthwise_rule) const;

  /// The output type for a canonical output shape: laid out as out_layout,
  /// of out_dtype or else the data's dtype.
  Type output_type(const std::vector<int64_t>& canonical_out, const Type& data) const;

  /// Error unless channels and kernel_size are set; `why` says what needs them.
  void require_channels_and_kernel_size(const std::string& why) const;

  /// The output's spatial extents from the input's and the kernel's, as
  /// Relay's relations compute them: (in + pad_before + pad_after -
  /// dilated_kernel) / stride + 1 with dilated_kernel = 1 + (kernel - 1) *
  /// dilation; ? where in or kernel is ?. Error, ending in `shapes`, where the
  /// dilated kernel is larger than the padded input.
  std::vector<int64_t> out_extents(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                                   const std::string& shapes) const;

  /// Relay's Conv2DRel and Conv3DRel refuse an untyped weight when groups > 1
  /// (they tell depthwise from grouped by the weight's shape); conv1d and the
  /// transposes infer it.
  bool needs_typed_weight() const { return !kind.transposed && kind.dims > 1 && groups > 1; }
};

// ---- Shapes --------------------------------------------------------------------

/// Both of two dims are known.
inline bool known(int64_t a, int64_t b = 0) { return a != WEFT_DIM_ANY && b != WEFT_DIM_ANY; }

/// The span of a kernel's taps, 1 + (kernel - 1) * dilation, and an extent
/// plus its padding: attr arithmetic that an overflowing attr must not wrap
/// (weft::sdk::CheckedInt throws instead).
inline int64_t dilated_extent(int64_t kernel, int64_t dilation) {
  using weft::sdk::CheckedInt;
  return weft::sdk::checked_field("dilation", [&] { return ((CheckedInt(kernel) - 1) * dilation + 1).value(); });
}
inline int64_t padded_extent(int64_t extent, int64_t pad_total) {
  using weft::sdk::CheckedInt;
  return weft::sdk::checked_field("padding", [&] { return (CheckedInt(extent) + pad_total).value(); });
}

/// The data and weight tensor types of a two-input conv; Error otherwise.
void expect_tensors(const std::vector<Type>& args, size_t n, const char* names);

/// The spatial extents of a canonical NC... shape: all but its first two.
inline std::vector<int64_t> spatial(const std::vector<int64_t>& canonical) {
  return std::vector<int64_t>(canonical.begin() + 2, canonical.end());
}

/// Checks a shape's rank against its layout.
void expect_rank(const std::vector<int64_t>& shape, const Layout& layout, const char* what);

/// One spatial axis of a convolution window.
struct Window {
  int64_t in = 1, kernel = 1, out = 1, stride = 1, pad_before = 0, dilation = 1;
};

/// Three windows (depth, height, width) from per-axis values of 1 to 3 spatial
/// axes; missing leading axes are extent-1 windows, so one loop nest serves
/// conv1d, conv2d and conv3d.
std::array<Window, 3> windows(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                              const std::vector<int64_t>& out, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation);

// ---- Sibling families, registered by register_convolution_ops ----------------------

void register_conv_transpose_ops(weft::sdk::Registrar& reg);
void register_conv_winograd_ops(weft::sdk::Registrar& reg);
void register_conv_winograd3d_ops(weft::sdk::Registrar& reg);
void register_conv_special_ops(weft::sdk::Registrar& reg);

// ---- Template definitions ----------------------------------------------------------

template <typename T>
std::vector<T> read_as(const TensorView& t) {
  using namespace weft::sdk;
  std::vector<T> out(static_cast<size_t>(t.numel()));
  auto copy = [&](const auto* p) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(p[i]);
  };
  DLDataType dt = t.dtype();
  if (dt == dtype::float32) copy(t.data<float>());
  else if (dt == dtype::float64) copy(t.data<double>());
  else if (dt == dtype::int8) copy(t.data<int8_t>());
  else if (dt == dtype::uint8) copy(t.data<uint8_t>());
  else if (dt == dtype::int32) copy(t.data<int32_t>());
  else if (dt == dtype::int64) copy(t.data<int64_t>());
  else throw Error("the reference kernel reads float32, float64, int8, uint8, int32 or int64 tensors, not " +
                   dtype_name(dt));
  return out;
}

namespace detail {
/// Calls f(canonical flat index, layout offset) for every element, in canonical order.
template <typename F>
void for_each_offset(const Layout& layout, const std::vector<int64_t>& canonical_shape, F f) {
  std::vector<std::vector<int64_t>> tables = layout.offset_tables(canonical_shape);
  size_t rank = canonical_shape.size();
  int64_t total = 1;
  for (int64_t d : canonical_shape) total *= d;
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t offset = 0;
    for (size_t a = 0; a < rank; ++a) offset += tables[a][index[a]];
    f(flat, offset);
    for (size_t a = rank; a-- > 0;) {
      if (++index[a] < canonical_shape[a]) break;
      index[a] = 0;
    }
  }
}
}  // namespace detail

template <typename T>
std::vector<T> to_canonical(const TensorView& t, const Layout& layout, const std::vector<int64_t>& canonical_shape) {
  std::vector<T> raw = read_as<T>(t);
  std::vector<T> out(raw.size());
  detail::for_each_offset(layout, canonical_shape, [&](int64_t flat, int64_t offset) { out[flat] = raw[offset]; });
  return out;
}

template <typename T>
void from_canonical(const std::vector<T>& values, const Layout& layout, const std::vector<int64_t>& canonical_shape,
                    const TensorView& out) {
  T* dst = out.data<T>();
  detail::for_each_offset(layout, canonical_shape, [&](int64_t flat, int64_t offset) { dst[offset] = values[flat]; });
}

}  // namespace weft_nn::conv
