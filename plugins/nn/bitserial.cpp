// nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d: low-bit quantized
// arithmetic on bit planes, as Relay's bitserial.cc types them and TOPI
// computes them (topi/nn/bitserial_util.py, bitserial_dense.py,
// bitserial_conv2d.py).
//
// TOPI packs the low `bits` bits of each integer into bit planes of
// pack_dtype words and sums popcount(x & w) << (b1 + b2) over planes; for
// unipolar it counts a weight 0 bit as -1: popcount(x & w) - popcount(x & ~w).
// Word packing only regroups the bits, so the sum equals the product of the
// quantized values: x_q = the low activation_bits bits of x (unsigned), and
// w_q = the low weight_bits bits of w, or for unipolar
// sum_b 2^b (2 w_b - 1). The kernels compute that product.
#include "conv_common.h"
#include "kernel_loops.h"
#include "nn_ops.h"
#include "tensor_access.h"

namespace weft_nn::bitserial {

namespace {

using namespace weft::sdk;
using conv::shape_str;

/// The reference's default word type.
constexpr DLDataType kUInt32{kDLUInt, 32, 1};

bool is_int(DLDataType t) { return (t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1; }

/// The width of a pack dtype: uint8, uint16, uint32 or uint64.
int64_t pack_bits(DLDataType t, const std::string& attr) {
  if (t.code != kDLUInt || t.lanes != 1 || (t.bits != 8 && t.bits != 16 && t.bits != 32 && t.bits != 64)) {
    throw Error(attr + " must be uint8, uint16, uint32 or uint64, got " + dtype_name(t));
  }
  return t.bits;
}

/// Bit b of an integer as TOPI reads it: (x & (1 << b)) >> b on its two's complement.
inline uint64_t bit_of(int64_t v, int64_t b) { return (static_cast<uint64_t>(v) >> b) & 1u; }

/// A bit count attr: TOPI's bitpack has masks for bits 0..7 only.
Value bit_count(const Value& v) {
  if (v.as_int() < 1 || v.as_int() > 8) throw Error("expected a number of bits in [1, 8]");
  return v;
}

void expect_int_input(const Type& t, const std::string& role) {
  if (!is_int(t.dtype())) throw Error(role + " must have an integer dtype (its low bits are packed), got " + t.str());
}

/// The quantized value of x: its low `bits` bits as an unsigned number.
int64_t activation_value(int64_t x, int64_t bits) {
  int64_t q = 0;
  for (int64_t b = 0; b < bits; ++b) q += static_cast<int64_t>(bit_of(x, b)) << b;
  return q;
}

/// The quantized value of a weight: its low bits, each 0 bit counting -1 when unipolar.
int64_t weight_value(int64_t w, int64_t bits, bool unipolar) {
  int64_t q = 0;
  for (int64_t b = 0; b < bits; ++b) q += (unipolar ? 2 * static_cast<int64_t>(bit_of(w, b)) - 1 : bit_of(w, b)) << b;
  return q;
}

/// Where nn.bitpack put a pre-packed weight's words and planes: the unpacked
/// axis it packed, and the packed tensor's bit-plane axis.
struct PackedAxes {
  size_t pack_axis, bit_axis;
};

/// The unpacked shape of a pre-packed weight (its bit axis dropped, its pack
/// axis widened back).
std::vector<int64_t> unpacked_shape(std::vector<int64_t> packed, const PackedAxes& a, int64_t width) {
  packed.erase(packed.begin() + static_cast<int64_t>(a.bit_axis));
  if (packed[a.pack_axis] != WEFT_DIM_ANY) {
    const int64_t extent = packed[a.pack_axis];
    packed[a.pack_axis] =
        checked_field("the weight's unpacked extent", [&] { return (CheckedInt(extent) * width).value(); });
  }
  return packed;
}

/// w_q for each element of the unpacked weight, from an unpacked integer
/// weight (its low `bits` bits) or, when `packed` is set, from the bit planes
/// of a weight nn.bitpack packed into `width`-bit words: as many planes as the
/// packed tensor holds, as TOPI reads them.
std::vector<int64_t> weight_values(const TensorView& w, int64_t bits, bool unipolar, const PackedAxes* packed,
                                   int64_t width) {
  std::vector<int64_t> raw = load_as<int64_t>(w);
  if (!packed) {
    for (int64_t& v : raw) v = weight_value(v, bits, unipolar);
    return raw;
  }
  std::vector<int64_t> pshape = w.shape(), ushape = unpacked_shape(pshape, *packed, width);
  std::vector<int64_t> pstrides = strides_of(pshape);
  const int64_t planes = pshape[packed->bit_axis];
  std::vector<int64_t> out;
  for_each_index(ushape, [&](const std::vector<int64_t>& u) {
    int64_t base = 0;
    for (size_t a = 0, o = 0; a < u.size(); ++a, ++o) {
      if (o == packed->bit_axis) ++o;
      base += (a == packed->pack_axis ? u[a] / width : u[a]) * pstrides[o];
    }
    const int64_t shift = width - 1 - u[packed->pack_axis] % width;  // the first element is the top bit
    int64_t q = 0;
    for (int64_t b = 0; b < planes; ++b) {
      int64_t bit = static_cast<int64_t>(bit_of(raw[base + b * pstrides[packed->bit_axis]], shift));
      q += (unipolar ? 2 * bit - 1 : bit) << b;
    }
    out.push_back(q);
  });
  return out;
}

/// Checks a pre-packed weight's dtype (pack_dtype) and shape against the
/// unpacked shape it stands for.
void check_packed_weight(const Type& w, const PackedAxes& a, int64_t width, DLDataType pack_dtype,
                         const std::vector<int64_t>& expected_unpacked, const std::string& layout) {
  if (w.dtype() != pack_dtype) {
    throw Error("a pre-packed weight must have pack_dtype " + dtype_name(pack_dtype) + ", got " + w.str());
  }
  int64_t planes = w.shape()[a.bit_axis];
  if (planes != WEFT_DIM_ANY && (planes < 1 || planes > 8)) {
    throw Error("the pre-packed weight of shape " + shape_str(w.shape()) + " holds " + std::to_string(planes) +
                " bit planes on axis " + std::to_string(a.bit_axis) + ", expected 1 to 8");
  }
  std::vector<int64_t> u = unpacked_shape(w.shape(), a, width);
  for (size_t i = 0; i < u.size(); ++i) {
    if (!dims_agree(u[i], expected_unpacked[i])) {
      throw Error("the pre-packed weight of shape " + shape_str(w.shape()) + " unpacks to " + shape_str(u) +
                  ", expected " + shape_str(expected_unpacked) + " (" + layout + ")");
    }
  }
}

// ---- bitpack ----------------------------------------------------------------------------

struct PackPlan {
  std::vector<int64_t> in, out;
  int64_t bits = 1, pack_axis = 1, bit_axis = 2, width = 32;
};

PackPlan plan_pack(const std::vector<int64_t>& shape, const Attrs& attrs, DLDataType pack_type) {
  PackPlan p;
  p.in = shape;
  p.bits = attrs.get_int("bits");
  p.pack_axis = attrs.get_int("pack_axis");
  p.bit_axis = attrs.get_int("bit_axis");
  p.width = pack_bits(pack_type, "pack_type");
  const int64_t ndim = static_cast<int64_t>(shape.size());
  if (p.pack_axis < 0 || p.pack_axis >= ndim) {
    throw Error("pack_axis " + std::to_string(p.pack_axis) + " is not an axis of data " + shape_str(shape));
  }
  if (p.bit_axis < 0 || p.bit_axis > ndim) {
    throw Error("bit_axis " + std::to_string(p.bit_axis) + " must be in [0, " + std::to_string(ndim) +
                "] for data " + shape_str(shape));
  }
  int64_t packed = shape[p.pack_axis];
  if (packed != WEFT_DIM_ANY && packed % p.width != 0) {
    throw Error("axis " + std::to_string(p.pack_axis) + " of data " + shape_str(shape) + " has extent " +
                std::to_string(packed) + ", not a multiple of the " + std::to_string(p.width) + " bits of " +
                dtype_name(pack_type));
  }
  p.out = shape;
  p.out[p.pack_axis] = packed == WEFT_DIM_ANY ? WEFT_DIM_ANY : packed / p.width;
  p.out.insert(p.out.begin() + p.bit_axis, p.bits);
  return p;
}

Type bitpack_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  expect_int_input(data, "data");
  DLDataType pack_type = attrs.get_dtype("pack_type");
  return Type::tensor(plan_pack(data.shape(), attrs, pack_type).out, pack_type);
}

/// Word (index, bit plane b) holds bit b of the `width` consecutive elements
/// along pack_axis, the first in the word's most significant bit.
void bitpack_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &out = k.outputs.at(0);
  PackPlan p = plan_pack(data.shape(), k.attrs, out.dtype());
  std::vector<int64_t> x = load_as<int64_t>(data);
  std::vector<int64_t> words_shape = p.in;  // the output without its bit axis
  words_shape[p.pack_axis] /= p.width;
  std::vector<int64_t> in_strides = strides_of(p.in), out_strides = strides_of(p.out);
  std::vector<uint64_t> packed(static_cast<size_t>(out.numel()), 0);
  for_each_index(words_shape, [&](const std::vector<int64_t>& idx) {
    int64_t in_base = 0, out_base = 0;
    for (size_t a = 0, o = 0; a < idx.size(); ++a, ++o) {
      if (static_cast<int64_t>(o) == p.bit_axis) ++o;  // skip the bit axis
      in_base += (static_cast<int64_t>(a) == p.pack_axis ? idx[a] * p.width : idx[a]) * in_strides[a];
      out_base += idx[a] * out_strides[o];
    }
    for (int64_t b = 0; b < p.bits; ++b) {
      uint64_t word = 0;
      for (int64_t e = 0; e < p.width; ++e) word = (word << 1) | bit_of(x[in_base + e * in_strides[p.pack_axis]], b);
      packed[out_base + b * out_strides[p.bit_axis]] = word;
    }
  });
  store_from(packed, out);
}

// ---- bitserial_dense --------------------------------------------------------------------

/// bitpack(weight, weight_bits, pack_axis=1, bit_axis=1): (units, planes, in_dim / width).
constexpr PackedAxes kDensePacked{1, 1};

Type bitserial_dense_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data"), weight = tensor_arg(args, 1, "weight");
  expect_int_input(data, "data");
  expect_int_input(weight, "weight");
  std::vector<int64_t> ds = data.shape(), ws = weight.shape();
  Value units = attrs.get_value("units");
  if (units.is_none()) throw Error("units must be set");
  if (ds.size() != 2) throw Error("data of shape " + shape_str(ds) + " must be a matrix (batch, in_dim)");
  int64_t width = pack_bits(attrs.get_dtype("pack_dtype"), "pack_dtype");
  if (ws.size() == 3) {
    check_packed_weight(weight, kDensePacked, width, attrs.get_dtype("pack_dtype"), {units.as_int(), ds[1]},
                        "(units, weight_bits, in_dim / width) packed from (units, in_dim)");
  } else if (ws.size() != 2 || !dims_agree(ws[0], units.as_int()) || !dims_agree(ws[1], ds[1])) {
    throw Error("weight of shape " + shape_str(ws) + " must be (units, in_dim) = (" + std::to_string(units.as_int()) +
                ", " + (ds[1] == WEFT_DIM_ANY ? std::string("?") : std::to_string(ds[1])) + ") for data " +
                shape_str(ds) + ", or pre-packed (units, weight_bits, in_dim / width)");
  }
  if (ds[1] != WEFT_DIM_ANY && ds[1] % width != 0) {
    throw Error("in_dim " + std::to_string(ds[1]) + " of data " + shape_str(ds) + " is not a multiple of the " +
                std::to_string(width) + " bits of pack_dtype");
  }
  return Type::tensor({ds[0], units.as_int()}, attrs.get_dtype("out_dtype"));
}

void bitserial_dense_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
  const int64_t a_bits = k.attrs.get_int("data_bits"), w_bits = k.attrs.get_int("weight_bits");
  const bool unipolar = k.attrs.get_bool("unipolar");
  const int64_t m = data.shape()[0], depth = data.shape()[1], n = weight.shape()[0];
  const int64_t width = pack_bits(k.attrs.get_dtype("pack_dtype"), "pack_dtype");
  std::vector<int64_t> x = load_as<int64_t>(data);
  for (int64_t& v : x) v = activation_value(v, a_bits);
  std::vector<int64_t> w =
      weight_values(weight, w_bits, unipolar, weight.shape().size() == 3 ? &kDensePacked : nullptr, width);
  std::vector<int64_t> y(static_cast<size_t>(m * n), 0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t c = 0; c < depth; ++c) y[i * n + j] += x[i * depth + c] * w[j * depth + c];
    }
  }
  store_from(y, out);  // wraps into out_dtype as the reference's sums do
}

// ---- bitserial_conv2d -------------------------------------------------------------------

struct ConvPlan {
  bool nhwc = false, packed = false;
  int64_t width = 32;
  std::vector<int64_t> data, weight, out;  // canonical NCHW, OIHW (unpacked), NCHW
  std::vector<int64_t> strides, padding;
};

/// bitpack(kernel, weight_bits, pack_axis=1, bit_axis=4) of an OIHW weight:
/// (O, I / width, H, W, planes), as TOPI's bitserial_conv2d_nchw takes it.
constexpr PackedAxes kConvPacked{1, 4};

ConvPlan plan_conv(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& weight_shape,
                   const Attrs& attrs) {
  ConvPlan p;
  const std::string dl = attrs.get_string("data_layout"), kl = attrs.get_string("kernel_layout");
  if (!((dl == "NCHW" && kl == "OIHW") || (dl == "NHWC" && kl == "HWIO"))) {
    throw Error("computes data_layout NCHW with kernel_layout OIHW, or NHWC with HWIO; got " + dl + " and " + kl);
  }
  p.nhwc = dl == "NHWC";
  if (data_shape.size() != 4) throw Error("data of shape " + shape_str(data_shape) + " must have rank 4 (" + dl + ")");
  p.packed = weight_shape.size() == 5 && !p.nhwc;
  if (weight_shape.size() != 4 && !p.packed) {
    throw Error("weight of shape " + shape_str(weight_shape) + " must be an unpacked " + kl + " weight of rank 4" +
                (p.nhwc ? "" : ", or OIHW pre-packed by nn.bitpack to rank 5 (O, I / width, H, W, weight_bits)"));
  }
  conv::Layout data_layout = conv::Layout::parse(dl, "NCHW", "data_layout");
  conv::Layout kernel_layout = conv::Layout::parse(kl, "OIHW", "kernel_layout");
  p.width = pack_bits(attrs.get_dtype("pack_dtype"), "pack_dtype");
  p.data = data_layout.to_canonical(data_shape);
  p.weight = p.packed ? unpacked_shape(weight_shape, kConvPacked, p.width) : kernel_layout.to_canonical(weight_shape);
  std::optional<int64_t> channels = conv::optional_int(attrs, "channels");
  if (!channels) throw Error("channels must be set");
  std::vector<int64_t> ks = attrs.get_ints("kernel_size");
  p.strides = attrs.get_ints("strides");
  p.padding = attrs.get_ints("padding");
  std::vector<int64_t> expected = {*channels, p.data[1], ks[0], ks[1]};
  for (size_t i = 0; i < 4; ++i) {
    if (!dims_agree(p.weight[i], expected[i])) {
      throw Error("weight of shape " + shape_str(weight_shape) + " does not match channels " +
                  std::to_string(*channels) + ", kernel_size " + shape_str(ks) + " and data " +
                  shape_str(data_shape) + ": expected " + shape_str(kernel_layout.from_canonical(expected)) + " (" +
                  kl + ")");
    }
  }
  if (p.data[1] != WEFT_DIM_ANY && p.data[1] % p.width != 0) {
    throw Error("the " + std::to_string(p.data[1]) + " input channels of data " + shape_str(data_shape) +
                " are not a multiple of the " + std::to_string(p.width) + " bits of pack_dtype");
  }
  p.out = {p.data[0], *channels, 0, 0};
  for (size_t i = 0; i < 2; ++i) {
    int64_t in = p.data[2 + i];
    if (in == WEFT_DIM_ANY) {
      p.out[2 + i] = WEFT_DIM_ANY;
      continue;
    }
    int64_t padded = conv::padded_extent(conv::padded_extent(in, p.padding[i]), p.padding[2 + i]);
    if (padded < ks[i]) {
      throw Error("kernel_size " + shape_str(ks) + " is larger than the padded input (data " +
                  shape_str(data_shape) + ")");
    }
    p.out[2 + i] = (padded - ks[i]) / p.strides[i] + 1;
  }
  return p;
}

Type bitserial_conv2d_relation(const std::vector<Type>& args, const Attrs& attrs) {
  conv::expect_tensors(args, 2, "data, weight");
  expect_int_input(args[0], "data");
  expect_int_input(args[1], "weight");
  ConvPlan p = plan_conv(args[0].shape(), args[1].shape(), attrs);
  if (p.packed) {
    check_packed_weight(args[1], kConvPacked, p.width, attrs.get_dtype("pack_dtype"), p.weight,
                        "OIHW packed by nn.bitpack");
  }
  std::vector<int64_t> o = p.out;
  return Type::tensor(p.nhwc ? std::vector<int64_t>{o[0], o[2], o[3], o[1]} : o, attrs.get_dtype("out_dtype"));
}

void bitserial_conv2d_kernel(const KernelArgs& k) {
  const TensorView &data = k.inputs.at(0), &weight = k.inputs.at(1), &out = k.outputs.at(0);
  ConvPlan p = plan_conv(data.shape(), weight.shape(), k.attrs);
  const int64_t a_bits = k.attrs.get_int("activation_bits"), w_bits = k.attrs.get_int("weight_bits");
  const bool unipolar = k.attrs.get_bool("unipolar");
  std::vector<int64_t> x = load_as<int64_t>(data);
  for (int64_t& v : x) v = activation_value(v, a_bits);
  std::vector<int64_t> w = weight_values(weight, w_bits, unipolar, p.packed ? &kConvPacked : nullptr, p.width);
  const int64_t batch = p.data[0], c_n = p.data[1], h = p.data[2], wd = p.data[3];
  const int64_t f_n = p.out[1], oh = p.out[2], ow = p.out[3], kh_n = p.weight[2], kw_n = p.weight[3];
  // Element offsets of (n, c, y, x) data and (f, c, ky, kx) weights in their layouts.
  auto x_at = [&](int64_t n, int64_t c, int64_t y, int64_t xx) {
    return p.nhwc ? ((n * h + y) * wd + xx) * c_n + c : ((n * c_n + c) * h + y) * wd + xx;
  };
  auto w_at = [&](int64_t f, int64_t c, int64_t ky, int64_t kx) {
    return p.nhwc ? ((ky * kw_n + kx) * c_n + c) * f_n + f : ((f * c_n + c) * kh_n + ky) * kw_n + kx;
  };
  std::vector<int64_t> y(static_cast<size_t>(out.numel()), 0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t f = 0; f < f_n; ++f) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          int64_t acc = 0;
          for (int64_t ky = 0; ky < kh_n; ++ky) {
            int64_t iy = oy * p.strides[0] + ky - p.padding[0];
            if (iy < 0 || iy >= h) continue;  // padding packs to zero bits
            for (int64_t kx = 0; kx < kw_n; ++kx) {
              int64_t ix = ox * p.strides[1] + kx - p.padding[1];
              if (ix < 0 || ix >= wd) continue;
              for (int64_t c = 0; c < c_n; ++c) acc += x[x_at(n, c, iy, ix)] * w[w_at(f, c, ky, kx)];
            }
          }
          y[p.nhwc ? ((n * oh + oy) * ow + ox) * f_n + f : ((n * f_n + f) * oh + oy) * ow + ox] = acc;
        }
      }
    }
  }
  store_from(y, out);
}

const char* const kUnipolarDoc =
    "Whether weight bits are unipolar: a 0 bit counts -1 (popcount(x & w) - popcount(x & ~w)); false counts "
    "popcount(x & w).";

}  // namespace
}  // namespace weft_nn::bitserial

namespace weft_nn {

void register_bitserial_ops(weft::sdk::Registrar& reg) {
  using namespace bitserial;
  reg.op("nn.bitpack")
      .describe("Packs the low `bits` bits of an integer tensor into bit planes of pack_type words: axis pack_axis "
                "shrinks by the word width (it must divide it), and a new axis of extent `bits` is inserted at "
                "bit_axis (of the output). Plane b's word holds bit b of `width` consecutive elements along "
                "pack_axis, the first in the most significant bit.")
      .input("data", "Tensor", "An integer tensor.")
      .attr("bits", int64_t{1}, "How many low bits of each element to pack.", "an int in [1, 8]")
      .normalize(bit_count)
      .attr("pack_axis", int64_t{1}, "The axis whose elements are packed into words.", "an axis of data")
      .attr("bit_axis", int64_t{2}, "Where the output's bit-plane axis goes.", "an int in [0, data rank]")
      .text_default(int64_t{-1})  // BitPackAttrs' default, which no relation accepts; the Python wrapper's is 2
      .attr("pack_type", kUInt32, "The word dtype.", "uint8, uint16, uint32 or uint64")
      .attr("name", std::string("BitPack"), "The name of the operation (kept for the reference's API).")
      .support_level(2)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(bitpack_relation)
      .kernel(bitpack_kernel);

  OpBuilder& conv = reg.op("nn.bitserial_conv2d")
                        .describe("2D convolution on bit-serial quantized values (TOPI bitserial_conv2d_nchw/nhwc): "
                                  "the sum over taps of x_q * w_q with x_q the low activation_bits bits of the "
                                  "input and w_q the low weight_bits bits of the weight (0 bits counting -1 when "
                                  "unipolar), bit plane by bit plane, in out_dtype. data NCHW with an OIHW weight "
                                  "or NHWC with HWIO; input channels must be a multiple of pack_dtype's width. A "
                                  "pre-packed weight's planes count as its weight bits, as TOPI reads them.")
                        .input("data", "Tensor", "The integer input, NCHW or NHWC.")
                        .input("weight", "Tensor",
                               "The integer weight, OIHW or HWIO; or, beside NCHW data, an OIHW weight pre-packed "
                               "by nn.bitpack (pack_axis 1, bit_axis 4) into pack_dtype words, (O, I / width, H, "
                               "W, planes).")
                        .support_level(2)
                        .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE);
  conv::stride_pad_attrs(conv, 2);
  conv.attr("kernel_size", WEFT_ATTR_ANY, Value(std::vector<int64_t>{3, 3}), "The spatial size of the kernel.",
            "an int or a list of 2 ints >= 1")
      .normalize([](const Value& v) { return conv::int_tuple(v, 2, 1); })
      .attr_optional("channels", WEFT_ATTR_INT, "The number of output channels (must be set).", "an int >= 1")
      .attr("activation_bits", int64_t{1}, "Bits of each input element used.", "an int in [1, 8]")
      .normalize(bit_count)
      .attr("weight_bits", int64_t{1}, "Bits of each weight element used.", "an int in [1, 8]")
      .normalize(bit_count)
      .attr("data_layout", std::string("NCHW"), "The layout of data and the output.", "NCHW or NHWC")
      .attr("kernel_layout", std::string("OIHW"), "The layout of the weight.", "OIHW (with NCHW) or HWIO (with NHWC)")
      .attr("pack_dtype", kUInt32, "The word dtype bits are packed into.", "uint8, uint16, uint32 or uint64")
      .attr("out_dtype", dtype::int16, "The output dtype; sums wrap into it.", "a dtype")
      .attr("unipolar", true, kUnipolarDoc)
      .type_relation(bitserial_conv2d_relation)
      .kernel(bitserial_conv2d_kernel);

  reg.op("nn.bitserial_dense")
      .describe("Dense layer on bit-serial quantized values (TOPI bitserial_dense): out[i, j] = sum over k of "
                "x_q[i, k] * w_q[j, k] with x_q the low data_bits bits of data (batch, in_dim) and w_q the low "
                "weight_bits bits of weight (units, in_dim) (0 bits counting -1 when unipolar), in out_dtype. "
                "in_dim must be a multiple of pack_dtype's width. A pre-packed weight's planes count as its weight "
                "bits, as TOPI reads them.")
      .input("data", "Tensor", "The integer input (batch, in_dim).")
      .input("weight", "Tensor",
             "The integer weight (units, in_dim), or pre-packed by nn.bitpack (pack_axis 1, bit_axis 1) into "
             "pack_dtype words, (units, planes, in_dim / width).")
      .attr_optional("units", WEFT_ATTR_INT, "The number of output units (must be set).", "an int >= 1")
      .attr("data_bits", int64_t{1}, "Bits of each input element used.", "an int in [1, 8]")
      .normalize(bit_count)
      .attr("weight_bits", int64_t{1}, "Bits of each weight element used.", "an int in [1, 8]")
      .normalize(bit_count)
      .attr("pack_dtype", kUInt32, "The word dtype bits are packed into.", "uint8, uint16, uint32 or uint64")
      .attr("out_dtype", dtype::int16, "The output dtype; sums wrap into it.", "a dtype")
      .attr("unipolar", true, kUnipolarDoc)
      .support_level(1)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(bitserial_dense_relation)
      .kernel(bitserial_dense_kernel);
}

}  // namespace weft_nn
