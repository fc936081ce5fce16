// Layouts, attribute normalization and shape helpers shared by the conv ops.
#include "conv_common.h"

#include <algorithm>

#include <weft/sdk/layout.hpp>

namespace weft_nn::conv {

using namespace weft::sdk;

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i ? ", " : "") + (shape[i] == WEFT_DIM_ANY ? std::string("?") : std::to_string(shape[i]));
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

// ---- Layout ------------------------------------------------------------------------

Layout Layout::parse(const std::string& name, const std::string& canonical, const std::string& attr) {
  auto fail = [&](const std::string& why) -> Error {
    return Error(attr + " '" + name + "' is not convertible from " + canonical + ": " + why);
  };
  weft::sdk::Layout parsed;
  try {
    parsed = weft::sdk::Layout(name);
  } catch (const weft::sdk::LayoutError& e) {
    throw fail(e.what());
  }
  Layout out;
  out.name_ = name;
  for (const weft::sdk::LayoutAxis& a : parsed.axes()) {
    size_t axis = canonical.find(a.primal_name());
    if (axis == std::string::npos) throw fail(std::string("axis '") + a.name + "' is not one of " + canonical);
    out.axes_.push_back(Axis{axis, a.factor});
  }
  for (char c : canonical) {
    if (!parsed.contains(c)) throw fail(std::string("axis '") + c + "' is missing");
  }
  return out;
}

std::vector<int64_t> Layout::to_canonical(const std::vector<int64_t>& shape) const {
  size_t primal = std::count_if(axes_.begin(), axes_.end(), [](const Axis& a) { return a.factor == 0; });
  std::vector<int64_t> out(primal, 1);
  for (size_t i = 0; i < axes_.size(); ++i) {
    int64_t& d = out[axes_[i].canonical_axis];
    d = known(d, shape[i]) ? d * shape[i] : WEFT_DIM_ANY;
  }
  return out;
}

std::vector<int64_t> Layout::from_canonical(const std::vector<int64_t>& canonical_shape) const {
  std::vector<int64_t> out;
  for (const Axis& a : axes_) {
    int64_t d = canonical_shape[a.canonical_axis];
    if (a.factor) {
      out.push_back(a.factor);
      continue;
    }
    int64_t block = 1;
    for (const Axis& b : axes_) {
      if (b.canonical_axis == a.canonical_axis && b.factor) block = b.factor;
    }
    if (known(d) && d % block != 0) {
      throw Error("layout " + name_ + " splits an axis of extent " + std::to_string(d) + " into blocks of " +
                  std::to_string(block) + ", which do not divide it");
    }
    out.push_back(known(d) ? d / block : WEFT_DIM_ANY);
  }
  return out;
}

std::vector<std::vector<int64_t>> Layout::offset_tables(const std::vector<int64_t>& canonical_shape) const {
  std::vector<int64_t> shape = from_canonical(canonical_shape);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  std::vector<std::vector<int64_t>> tables;
  for (size_t a = 0; a < canonical_shape.size(); ++a) {
    int64_t outer_stride = 0, inner_stride = 0, block = 0;
    for (size_t i = 0; i < axes_.size(); ++i) {
      if (axes_[i].canonical_axis != a) continue;
      if (axes_[i].factor) {
        block = axes_[i].factor;
        inner_stride = strides[i];
      } else {
        outer_stride = strides[i];
      }
    }
    std::vector<int64_t> t(static_cast<size_t>(canonical_shape[a]));
    for (int64_t v = 0; v < canonical_shape[a]; ++v) {
      t[v] = block ? (v / block) * outer_stride + (v % block) * inner_stride : v * outer_stride;
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

// ---- Attributes --------------------------------------------------------------------

namespace {
std::optional<std::vector<int64_t>> ints_of(const Value& v) {
  switch (v.type()) {
    case WEFT_ATTR_INT: return std::vector<int64_t>{v.as_int()};
    case WEFT_ATTR_INT_LIST: return v.as_ints();
    case WEFT_ATTR_LIST: {
      std::vector<int64_t> out;
      for (const Value& e : v.as_list()) {
        if (e.type() != WEFT_ATTR_INT) return std::nullopt;
        out.push_back(e.as_int());
      }
      return out;
    }
    default: return std::nullopt;
  }
}
}  // namespace

Value int_tuple(const Value& v, size_t n, int64_t min) {
  std::optional<std::vector<int64_t>> ints = ints_of(v);
  if (!ints) throw Error("expected an int or a list of ints");
  if (v.type() == WEFT_ATTR_INT) ints->assign(n, ints->front());
  if (ints->size() != n) throw Error("expected " + std::to_string(n) + " values, got " + std::to_string(ints->size()));
  for (int64_t e : *ints) {
    if (e < min) throw Error("values must be at least " + std::to_string(min));
  }
  return Value(*ints);
}

Value pad_tuple(const Value& v, size_t n) {
  std::optional<std::vector<int64_t>> ints = ints_of(v);
  if (!ints) throw Error("expected an int or a list of ints");
  for (int64_t e : *ints) {
    if (e < 0) throw Error("padding must not be negative");
  }
  if (ints->size() == 2 * n) return Value(*ints);
  if (ints->size() == 1) ints->assign(n, ints->front());
  if (ints->size() != n) throw Error("expected 1, " + std::to_string(n) + " or " + std::to_string(2 * n) + " values");
  // Relay splits a total of 2p as ceil before, floor after: p each side.
  std::vector<int64_t> out(2 * n);
  for (size_t i = 0; i < n; ++i) {
    int64_t total = weft::sdk::checked_field("padding", [&] { return (CheckedInt(2) * (*ints)[i]).value(); });
    out[i] = total / 2 + total % 2;
    out[n + i] = total - out[i];
  }
  return Value(out);
}

std::vector<int64_t> pad_totals(const std::vector<int64_t>& padding) {
  size_t n = padding.size() / 2;
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = weft::sdk::checked_field("padding", [&] { return (CheckedInt(padding[i]) + padding[n + i]).value(); });
  return out;
}

std::optional<std::vector<int64_t>> optional_ints(const Attrs& attrs, const std::string& name) {
  Value v = attrs.get_value(name);
  if (v.is_none()) return std::nullopt;
  return v.as_ints();
}

std::optional<int64_t> optional_int(const Attrs& attrs, const std::string& name) {
  Value v = attrs.get_value(name);
  if (v.is_none()) return std::nullopt;
  return v.as_int();
}

OpBuilder& stride_pad_attrs(OpBuilder& op, size_t n) {
  return op
      .attr("strides", WEFT_ATTR_ANY, Value(std::vector<int64_t>(n, 1)), "The strides of the convolution.",
            "an int or a list of " + std::to_string(n) + " ints >= 1")
      .normalize([n](const Value& v) { return int_tuple(v, n, 1); })
      .attr("padding", WEFT_ATTR_ANY, Value(std::vector<int64_t>(2 * n, 0)),
            "Zero padding on both sides of each spatial axis: an int, one per axis (both sides), or all befores "
            "then all afters.",
            "an int or a list of 1, " + std::to_string(n) + " or " + std::to_string(2 * n) + " ints >= 0")
      .normalize([n](const Value& v) { return pad_tuple(v, n); });
}

OpBuilder& dilation_attr(OpBuilder& op, size_t n) {
  return op
      .attr("dilation", WEFT_ATTR_ANY, Value(std::vector<int64_t>(n, 1)),
            "The dilation of the kernel (spacing between its taps).",
            "an int or a list of " + std::to_string(n) + " ints >= 1")
      .normalize([n](const Value& v) { return int_tuple(v, n, 1); });
}

OpBuilder& channel_attrs(OpBuilder& op, size_t n) {
  return op
      .attr_optional("channels", WEFT_ATTR_INT, "The number of output channels; inferred from the weight when None.",
                     "None or an int >= 1")
      .normalize([](const Value& v) {
        if (v.as_int() < 1) throw Error("channels must be positive");
        return v;
      })
      .attr_optional("kernel_size", WEFT_ATTR_ANY, "The spatial size of the kernel; inferred from the weight when None.",
                     "None, an int or a list of " + std::to_string(n) + " ints >= 1")
      .normalize([n](const Value& v) { return int_tuple(v, n, 1); });
}

OpBuilder& layout_attrs(OpBuilder& op, const std::string& data_layout, const std::string& kernel_layout) {
  return op
      .attr("data_layout", data_layout, "The layout of the input data.", "a layout such as " + data_layout)
      .attr("kernel_layout", kernel_layout, "The layout of the weight.", "a layout such as " + kernel_layout)
      .attr("out_layout", std::string(), "The layout of the output; empty means data_layout.",
            "empty or a layout such as " + data_layout);
}

OpBuilder& out_dtype_attr(OpBuilder& op) {
  return op.attr_optional("out_dtype", WEFT_ATTR_DTYPE,
                          "The output dtype (for mixed precision, e.g. int8 inputs with int32 out_dtype); None means "
                          "the data's dtype.",
                          "None or a dtype");
}

// ---- One conv op's attributes ----------------------------------------------------

ConvAttrs ConvAttrs::read(const ConvKind& kind, const Attrs& attrs) {
  ConvAttrs a;
  a.kind = kind;
  a.data_layout = Layout::parse(attrs.get_string("data_layout"), kind.data_canon, "data_layout");
  a.kernel_layout = Layout::parse(attrs.get_string("kernel_layout"), kind.kernel_canon, "kernel_layout");
  std::string out_layout = attrs.get_string("out_layout");
  a.out_layout = Layout::parse(out_layout.empty() ? a.data_layout.name() : out_layout, kind.data_canon, "out_layout");
  a.strides = attrs.get_ints("strides");
  a.padding = attrs.get_ints("padding");
  a.dilation = attrs.get_ints("dilation");
  if (kind.transposed) a.output_padding = attrs.get_ints("output_padding");
  a.groups = attrs.get_int("groups");
  if (a.groups < 1) throw Error("groups must be positive, got " + std::to_string(a.groups));
  a.channels = optional_int(attrs, "channels");
  a.kernel_size = optional_ints(attrs, "kernel_size");
  if (Value v = attrs.get_value("out_dtype"); !v.is_none()) a.out_dtype = v.as_dtype();
  return a;
}

Type ConvAttrs::output_type(const std::vector<int64_t>& canonical_out, const Type& data) const {
  return Type::tensor(out_layout.from_canonical(canonical_out), out_dtype.value_or(data.dtype()));
}

std::vector<int64_t> ConvAttrs::implied_weight(int64_t in_channels, bool depthwise) const {
  const int64_t per_group = known(in_channels) ? in_channels / groups : WEFT_DIM_ANY;
  std::vector<int64_t> w;
  if (kind.transposed) w = {in_channels, *channels / groups};
  else if (depthwise) w = {in_channels, *channels / in_channels};
  else w = {*channels, per_group};
  w.insert(w.end(), kernel_size->begin(), kernel_size->end());
  return w;
}

ConvAttrs::Operands ConvAttrs::check_operands(const std::vector<int64_t>& data_shape,
                                              const std::vector<int64_t>& weight_shape, bool depthwise_rule) const {
  expect_rank(data_shape, data_layout, "data");
  expect_rank(weight_shape, kernel_layout, "weight");
  Operands p;
  p.data = data_layout.to_canonical(data_shape);
  std::vector<int64_t> w = kernel_layout.to_canonical(weight_shape);
  const int64_t in_channels = p.data[1];
  p.shapes = " (data shape " + shape_str(data_shape) + " in " + data_layout.name() + ", weight shape " +
             shape_str(weight_shape) + " in " + kernel_layout.name() + ")";
  const std::string& shapes = p.shapes;
  const std::string groups_text = "groups=" + std::to_string(groups);
  if (known(in_channels) && in_channels % groups != 0)
    throw Error(groups_text + " does not divide the " + std::to_string(in_channels) + " input channels" + shapes);
  if (kind.transposed && channels && *channels % groups != 0)
    throw Error(groups_text + " does not divide channels=" + std::to_string(*channels) + shapes);
  if (channels && kernel_size) {
    // Relay assigns the weight this type; weft checks the given one against it.
    bool depthwise = depthwise_rule && kind.dims > 1 && groups > 1 && groups == in_channels && groups == w[0];
    std::vector<int64_t> expected = implied_weight(in_channels, depthwise);
    std::vector<int64_t> expected_shape = kernel_layout.from_canonical(expected);
    for (size_t i = 0; i < expected_shape.size(); ++i) {
      if (known(expected_shape[i], weight_shape[i]) && expected_shape[i] != weight_shape[i]) {
        throw Error("the weight shape " + shape_str(weight_shape) + " does not match the shape " +
                    shape_str(expected_shape) + " implied by channels=" + std::to_string(*channels) +
                    ", kernel_size=" + shape_str(*kernel_size) + " and " + groups_text + shapes);
      }
    }
    p.out_channels = *channels;
    if (depthwise) expected[0] = *channels, expected[1] = 1;  // the same elements, read as (channels, 1, ...)
    w = expected;
  } else {
    if (kernel_size) {
      for (size_t i = 0; i < kind.dims; ++i) {
        if (known(w[2 + i]) && w[2 + i] != (*kernel_size)[i]) {
          throw Error("the weight's kernel " + shape_str(spatial(w)) + " does not match kernel_size=" +
                      shape_str(*kernel_size) + shapes);
        }
      }
    }
    if (kind.transposed) {  // IO... weights
      if (channels && known(w[1]) && *channels / groups != w[1]) {
        throw Error("channels=" + std::to_string(*channels) + " divided by " + groups_text +
                    " does not match the weight's output channels per group (" + std::to_string(w[1]) + ")" + shapes);
      }
      if (known(in_channels, w[0]) && in_channels != w[0]) {
        throw Error("the input channels (" + std::to_string(in_channels) +
                    ") do not match the weight's input channels (" + std::to_string(w[0]) + ")" + shapes);
      }
      // Relay reads wshape[1] alone here; TOPI's grouped compute makes groups times as many.
      p.out_channels = known(w[1]) ? w[1] * groups : WEFT_DIM_ANY;
    } else {
      if (channels && known(w[0]) && w[0] != *channels) {
        throw Error("the weight's output channels (" + std::to_string(w[0]) + ") do not match channels=" +
                    std::to_string(*channels) + shapes);
      }
      if (known(in_channels, w[1]) && in_channels / groups != w[1]) {
        throw Error("the input channels (" + std::to_string(in_channels) + ") divided by groups (" +
                    std::to_string(groups) + ") must equal the weight's input channels (" + std::to_string(w[1]) +
                    ")" + shapes);
      }
      p.out_channels = w[0];
    }
  }
  if (!kind.transposed && known(p.out_channels) && p.out_channels % groups != 0) {
    throw Error(groups_text + " does not divide the " + std::to_string(p.out_channels) + " output channels" + shapes);
  }
  p.weight = std::move(w);
  return p;
}

void ConvAttrs::require_channels_and_kernel_size(const std::string& why) const {
  if (!channels || !kernel_size) throw Error("channels and kernel_size must be set (" + why + ")");
}

std::vector<int64_t> ConvAttrs::out_extents(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                                            const std::string& shapes) const {
  std::vector<int64_t> pads = pad_totals(padding), out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!known(in[i], kernel[i])) {
      out.push_back(WEFT_DIM_ANY);
      continue;
    }
    int64_t dilated = dilated_extent(kernel[i], dilation[i]), padded = padded_extent(in[i], pads[i]);
    if (padded < dilated) {
      throw Error("spatial axis " + std::to_string(i) + ": the dilated kernel (" + std::to_string(dilated) +
                  ") is larger than the padded input (" + std::to_string(padded) + ")" + shapes);
    }
    out.push_back((padded - dilated) / strides[i] + 1);
  }
  return out;
}

// ---- Shapes ------------------------------------------------------------------------

void expect_tensors(const std::vector<Type>& args, size_t n, const char* names) {
  if (args.size() != n) {
    throw Error("expected " + std::to_string(n) + " arguments (" + names + "), got " + std::to_string(args.size()));
  }
  for (const Type& t : args) {
    if (!t.is_tensor()) throw Error(std::string("expected tensors (") + names + "), got " + t.str());
  }
}

void expect_rank(const std::vector<int64_t>& shape, const Layout& layout, const char* what) {
  if (shape.size() != layout.rank()) {
    throw Error(std::string(what) + " of shape " + shape_str(shape) + " has rank " + std::to_string(shape.size()) +
                ", but its layout " + layout.name() + " has rank " + std::to_string(layout.rank()));
  }
}

std::array<Window, 3> windows(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                              const std::vector<int64_t>& out, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
  std::array<Window, 3> w{};
  size_t n = in.size(), skip = 3 - n;
  for (size_t i = 0; i < n; ++i) {
    w[skip + i] = Window{in[i], kernel[i], out[i], strides[i], padding[i], dilation[i]};
  }
  return w;
}

}  // namespace weft_nn::conv
