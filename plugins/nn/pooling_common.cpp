// The pooling family's shared helpers (see pooling.h).
#include <optional>

#include "pooling.h"

namespace weft_nn::pooling {

namespace {

/// The ints of an int or a list of ints; nullopt for anything else.
std::optional<std::vector<int64_t>> ints_of(const Value& v) {
  switch (v.type()) {
    case WEFT_ATTR_INT:
      return std::vector<int64_t>{v.as_int()};
    case WEFT_ATTR_INT_LIST:
      return v.as_ints();
    case WEFT_ATTR_LIST: {
      std::vector<int64_t> out;
      for (const Value& item : v.as_list()) {
        if (item.type() != WEFT_ATTR_INT) return std::nullopt;
        out.push_back(item.as_int());
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

bool all_at_least(const std::vector<int64_t>& values, int64_t min) {
  for (int64_t v : values)
    if (v < min) return false;
  return true;
}

}  // namespace

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += i ? ", " : "";
    out += shape[i] == WEFT_DIM_ANY ? "?" : std::to_string(shape[i]);
  }
  return out + ")";
}

std::vector<size_t> pooled_axes(const std::string& layout, const std::string& spatial, const Type& data) {
  std::vector<char> axes;  // one letter per axis
  for (size_t i = 0; i < layout.size(); ++i) {
    char c = layout[i];
    if (c >= '0' && c <= '9') continue;  // a block factor: "16c"
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    if (!upper && !lower) throw Error("invalid layout '" + layout + "': unexpected character '" + c + "'");
    for (char seen : axes)
      if (seen == c) throw Error("invalid layout '" + layout + "': axis " + c + " appears twice");
    axes.push_back(c);
  }
  std::vector<size_t> out;
  for (char s : spatial) {
    size_t found = axes.size();
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] == s) found = i;
      if (axes[i] == s - 'A' + 'a') {
        throw Error("invalid layout '" + layout + "': the pooled axis " + s + " cannot be split");
      }
    }
    if (found == axes.size()) {
      throw Error("invalid layout '" + layout + "': it must have the pooled axes " + spatial);
    }
    out.push_back(found);
  }
  if (axes.size() != data.ndim()) {
    throw Error("layout '" + layout + "' has " + std::to_string(axes.size()) + " axes but the data " + data.str() +
                " has " + std::to_string(data.ndim()));
  }
  return out;
}

void check_out_layout(const Attrs& attrs) {
  std::string layout = attrs.get_string("layout"), out_layout = attrs.get_string("out_layout");
  if (!out_layout.empty() && out_layout != layout) {
    throw Error("out_layout '" + out_layout + "' differs from layout '" + layout +
                "': pooling keeps its input's layout (out_layout must be empty or equal to layout)");
  }
}

Type data_arg(const std::vector<Type>& args, size_t count) {
  if (args.size() != count) {
    throw Error("expected " + std::to_string(count) + " argument(s), got " + std::to_string(args.size()));
  }
  for (const Type& t : args)
    if (!t.is_tensor()) throw Error("expected a tensor argument, got " + t.str());
  return args.back();
}

void int_tuple_attr(OpBuilder& op, const std::string& name, size_t n, int64_t default_value, int64_t min,
                    const std::string& doc) {
  std::string expected = "an int or " + std::to_string(n) + " ints, each at least " + std::to_string(min);
  op.attr(name, WEFT_ATTR_ANY, Value(std::vector<int64_t>(n, default_value)), doc, expected)
      .normalize([n, min](const Value& v) -> Value {
        std::optional<std::vector<int64_t>> ints = ints_of(v);
        if (!ints || !(ints->size() == 1 || ints->size() == n) || !all_at_least(*ints, min)) {
          throw Error("expected an int or " + std::to_string(n) + " ints");
        }
        if (ints->size() == 1) return Value(std::vector<int64_t>(n, ints->front()));
        return Value(*ints);
      });
}

void padding_attr(OpBuilder& op, size_t n, const std::string& doc) {
  std::string expected = "an int, or 1, " + std::to_string(n) + " or " + std::to_string(2 * n) +
                         " non-negative ints (all heads, then all tails)";
  op.attr("padding", WEFT_ATTR_ANY, Value(std::vector<int64_t>(2 * n, 0)), doc, expected)
      .normalize([n](const Value& v) -> Value {
        std::optional<std::vector<int64_t>> p = ints_of(v);
        if (!p || !all_at_least(*p, 0)) throw Error("expected non-negative padding");
        if (p->size() == 1) return Value(std::vector<int64_t>(2 * n, p->front()));
        if (p->size() == n) {
          // One value per axis pads both its sides (get_pad_tuple's 2-tuple form).
          std::vector<int64_t> out(*p);
          out.insert(out.end(), p->begin(), p->end());
          return Value(out);
        }
        if (p->size() == 2 * n) return Value(*p);
        throw Error("expected 1, n or 2n padding values");
      });
}

Window read_window(const Attrs& attrs, size_t n, bool has_dilation) {
  Window w;
  w.size = attrs.get_ints("pool_size");
  w.strides = attrs.get_ints("strides");
  w.dilation = has_dilation ? attrs.get_ints("dilation") : std::vector<int64_t>(n, 1);
  std::vector<int64_t> padding = attrs.get_ints("padding");
  if (w.size.size() != n || w.strides.size() != n || w.dilation.size() != n || padding.size() != 2 * n) {
    throw Error("pool_size, strides, dilation and padding do not match the " + std::to_string(n) + " pooled axes");
  }
  w.pad_head.assign(padding.begin(), padding.begin() + static_cast<std::ptrdiff_t>(n));
  w.pad_tail.assign(padding.begin() + static_cast<std::ptrdiff_t>(n), padding.end());
  w.ceil_mode = attrs.get_bool("ceil_mode");
  return w;
}

int64_t pooled_extent(int64_t extent, const Window& w, size_t i, const std::string& axis_name, const Type& data) {
  if (extent == WEFT_DIM_ANY) return WEFT_DIM_ANY;
  // ceil_mode pads the tail by strides - 1 more, so a window may reach into that too.
  const int64_t ceil_extension = w.ceil_mode ? w.strides[i] - 1 : 0;
  const int64_t padded = weft::sdk::checked_field("padding", [&] {
    return (weft::sdk::CheckedInt(extent) + w.pad_head[i] + w.pad_tail[i] + ceil_extension).value();
  });
  const int64_t window = weft::sdk::checked_field(
      "dilation", [&] { return ((weft::sdk::CheckedInt(w.size[i]) - 1) * w.dilation[i] + 1).value(); });
  if (window > padded) {
    throw Error("the pooling window along " + axis_name + " spans " + std::to_string(window) + " elements (pool_size " +
                std::to_string(w.size[i]) + ", dilation " + std::to_string(w.dilation[i]) +
                ") but the padded input has " + std::to_string(padded) + " (" + std::to_string(extent) + " + padding " +
                std::to_string(w.pad_head[i]) + " + " + std::to_string(w.pad_tail[i]) +
                (w.ceil_mode ? " + " + std::to_string(ceil_extension) + " for ceil_mode" : std::string()) +
                ") in data " + data.str());
  }
  return (padded - window) / w.strides[i] + 1;
}

PoolAttrs PoolAttrs::read(const Attrs& attrs, const std::string& spatial, bool is_max, const Type& data) {
  check_out_layout(attrs);
  PoolAttrs p;
  p.spatial = spatial;
  p.axes = pooled_axes(attrs.get_string("layout"), spatial, data);
  p.window = read_window(attrs, p.axes.size());
  p.count_include_pad = !is_max && attrs.get_bool("count_include_pad");
  return p;
}

std::vector<int64_t> PoolAttrs::pooled_shape(const Type& data) const {
  std::vector<int64_t> shape = data.shape();
  for (size_t i = 0; i < axes.size(); ++i) {
    shape[axes[i]] = pooled_extent(shape[axes[i]], window, i, std::string(1, spatial[i]), data);
  }
  return shape;
}

weft::sdk::InferredLayouts pool_layouts(const std::string& spatial, const weft::sdk::Attrs& attrs,
                                        const std::vector<weft::sdk::Layout>& new_in) {
  using weft::sdk::Layout;
  bool chosen = !attrs.get_string("out_layout").empty();
  Layout layout = chosen || new_in.empty() || !new_in[0].defined() ? Layout(attrs.get_string("layout")) : new_in[0];
  for (char axis : spatial) {
    if (!layout.contains(axis) || layout.factor_of(axis) > 0) return weft::sdk::layouts::cannot_follow(1);
  }
  if (chosen) return {{layout}, {layout}, weft::sdk::Attrs()};
  return {{layout}, {layout}, weft::sdk::layouts::with(attrs, {{"layout", layout.name()}, {"out_layout", ""}})};
}

weft::sdk::Expr convert_pool(const weft::sdk::Expr& c, const std::vector<std::string>& desired) {
  if (desired.size() != 1) {
    throw Error(c.callee().name() + ": ConvertLayout takes one layout, for data and result, not " +
                std::to_string(desired.size()));
  }
  weft::sdk::AttrList changes = {{"layout", desired[0]}, {"out_layout", desired[0]}};
  return weft::sdk::call(c.callee().name(), c.args(), weft::sdk::layouts::entries_with(c.attrs(), changes));
}

}  // namespace weft_nn::pooling
