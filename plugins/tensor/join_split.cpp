// Joining tensors along an axis (concatenate, stack; a Tuple input, whose
// fields the interpreter passes as separate kernel inputs) and splitting one
// into a Tuple (split).
#include <weft/sdk/gradient.hpp>

#include <algorithm>

#include "kernel_util.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// The tensor fields of the single Tuple argument `data`.
std::vector<Type> tuple_fields(const std::vector<Type>& args) {
  if (args.size() != 1 || !args[0].is_tuple()) {
    throw Error("expected a tuple of tensors as data, got " + (args.empty() ? std::string("nothing") : args[0].str()));
  }
  std::vector<Type> fields = args[0].fields();
  if (fields.empty()) throw Error("expected at least one tensor in data, got an empty tuple");
  for (const Type& f : fields) {
    if (!f.is_tensor()) throw Error("expected a tuple of tensors as data, got " + args[0].str());
  }
  return fields;
}

/// Fields must agree in rank and dtype; dims other than `skip` (or all when
/// skip < 0) must be equal where known.
Shape common_shape(const std::vector<Type>& fields, int64_t skip) {
  Shape first = fields[0].shape();
  for (const Type& f : fields) {
    Shape s = f.shape();
    bool same = s.size() == first.size() && f.dtype() == fields[0].dtype();
    for (size_t d = 0; same && d < s.size(); ++d) {
      if (static_cast<int64_t>(d) == skip || s[d] == WEFT_DIM_ANY) continue;
      if (first[d] == WEFT_DIM_ANY) first[d] = s[d];
      same = first[d] == s[d];
    }
    if (!same) {
      throw Error("the tensors must share rank, dtype and shape" +
                  (skip >= 0 ? " outside axis " + std::to_string(skip) : std::string()) + ", got " +
                  fields[0].str() + " and " + f.str());
    }
  }
  return first;
}

Type concatenate_relation(const std::vector<Type>& args, const Attrs& attrs) {
  std::vector<Type> fields = tuple_fields(args);
  int64_t axis = normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(fields[0].ndim()));
  Shape out = common_shape(fields, axis);
  out[axis] = 0;
  for (const Type& f : fields) {
    int64_t d = f.shape()[axis];
    if (d == WEFT_DIM_ANY || out[axis] == WEFT_DIM_ANY) {
      out[axis] = WEFT_DIM_ANY;
    } else {
      out[axis] = checked_field("the concatenated axis", [&] { return (CheckedInt(out[axis]) + d).value(); });
    }
  }
  return Type::tensor(out, fields[0].dtype());
}

/// Elements before and after `axis` in row-major order.
std::pair<int64_t, int64_t> outer_inner(const Shape& shape, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  return {outer, inner};
}

void concatenate_kernel(const KernelArgs& k) {
  const TensorView& out = k.outputs.at(0);
  int64_t axis = k.attrs.get_int("axis");
  if (axis < 0) axis += out.ndim();
  auto [outer, inner] = outer_inner(out.shape(), axis);
  size_t bytes = out.element_bytes();
  char* dst = mutable_bytes_of(out);
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorView& in : k.inputs) {
      size_t block = static_cast<size_t>(in.shape()[axis] * inner) * bytes;
      std::memcpy(dst, bytes_of(in) + o * block, block);
      dst += block;
    }
  }
}

int64_t stack_axis(const Attrs& attrs, int64_t ndim) {
  int64_t axis = attrs.get_int("axis");
  return normalize_axis(axis, ndim + 1);
}

Type stack_relation(const std::vector<Type>& args, const Attrs& attrs) {
  std::vector<Type> fields = tuple_fields(args);
  Shape out = common_shape(fields, -1);
  int64_t axis = stack_axis(attrs, static_cast<int64_t>(out.size()));
  out.insert(out.begin() + axis, static_cast<int64_t>(fields.size()));
  return Type::tensor(out, fields[0].dtype());
}

void stack_kernel(const KernelArgs& k) {
  const TensorView& out = k.outputs.at(0);
  int64_t axis = stack_axis(k.attrs, out.ndim() - 1);
  auto [outer, inner] = outer_inner(out.shape(), axis);
  size_t block = static_cast<size_t>(inner) * out.element_bytes();
  char* dst = mutable_bytes_of(out);
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorView& in : k.inputs) {
      std::memcpy(dst, bytes_of(in) + o * block, block);
      dst += block;
    }
  }
}

/// split's normal form of indices_or_sections: an int, or a list of ints.
Value sections_normal(const Value& v) {
  if (v.type() == WEFT_ATTR_INT) return v;
  return int_list_normal(v);
}

/// The most pieces split makes of an empty axis.
constexpr int64_t kMaxEmptySections = int64_t{1} << 16;

/// Start of each piece along the axis, and the axis extent as the end.
Shape split_bounds(const Type& data, const Attrs& attrs, int64_t axis) {
  int64_t dim = data.shape()[axis];
  Value ios = attrs.get_value("indices_or_sections");
  Shape bounds{0};
  if (ios.type() == WEFT_ATTR_INT) {
    int64_t sections = ios.as_int();
    if (sections <= 0) throw Error("indices_or_sections must be a positive number of sections, got " +
                                   std::to_string(sections));
    if (dim == WEFT_DIM_ANY) throw Error("cannot split the dynamic axis " + std::to_string(axis) + " of " + data.str());
    if (dim % sections != 0) {
      throw Error("cannot split " + data.str() + " into " + std::to_string(sections) + " equal sections along axis " +
                  std::to_string(axis) + ": " + std::to_string(dim) + " is not divisible by " +
                  std::to_string(sections));
    }
    // Only an empty axis splits into more sections than its extent: so many
    // identical empty pieces are a hostile attr, refused before the tuple is built.
    if (sections > std::max(dim, kMaxEmptySections)) {
      throw Error("cannot split the empty axis " + std::to_string(axis) + " of " + data.str() + " into " +
                  std::to_string(sections) + " sections (expected at most " + std::to_string(kMaxEmptySections) +
                  ")");
    }
    for (int64_t i = 1; i < sections; ++i) bounds.push_back(i * (dim / sections));
  } else {
    for (int64_t index : ios.as_ints()) {
      if (index <= bounds.back()) {
        throw Error("indices_or_sections " + shape_str(ios.as_ints()) + " must be a sorted ascending list of " +
                    "positive indices");
      }
      bounds.push_back(index);
    }
    if (dim != WEFT_DIM_ANY && bounds.back() >= dim && bounds.size() > 1) {
      throw Error("indices_or_sections " + shape_str(ios.as_ints()) + " must lie inside axis " +
                  std::to_string(axis) + " of " + data.str() + " (extent " + std::to_string(dim) + ")");
    }
  }
  bounds.push_back(dim);
  return bounds;
}

int64_t split_axis(const Type& data, const Attrs& attrs) {
  if (data.ndim() == 0) throw Error("cannot split a scalar " + data.str());
  return normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(data.ndim()));
}

Type split_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type data = tensor_arg(args, 0, "data");
  int64_t axis = split_axis(data, attrs);
  Shape bounds = split_bounds(data, attrs, axis);
  std::vector<Type> pieces;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    Shape s = data.shape();
    s[axis] = s[axis] == WEFT_DIM_ANY ? WEFT_DIM_ANY : bounds[i + 1] - bounds[i];
    pieces.push_back(Type::tensor(s, data.dtype()));
  }
  return Type::tuple(pieces);
}

void split_kernel(const KernelArgs& k) {
  const TensorView& in = k.inputs.at(0);
  int64_t axis = k.attrs.get_int("axis");
  if (axis < 0) axis += in.ndim();
  auto [outer, inner] = outer_inner(in.shape(), axis);
  size_t bytes = in.element_bytes();
  size_t row = static_cast<size_t>(in.shape()[axis] * inner) * bytes;
  size_t start = 0;
  for (const TensorView& out : k.outputs) {
    size_t block = static_cast<size_t>(out.shape()[axis] * inner) * bytes;
    for (int64_t o = 0; o < outer; ++o) std::memcpy(mutable_bytes_of(out) + o * block, bytes_of(in) + o * row + start, block);
    start += block;
  }
}

/// concatenate: out[.., i, ..] is field k's element at i - offset_k where
/// offset_k <= i < offset_k + extent_k, chosen by a chain of selects.
std::vector<te::Tensor> concatenate_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  Shape oshape = out.shape();
  if (te_is_empty(oshape)) return te_one(te_empty(oshape, out.dtype(), "concatenate"));
  const size_t axis = static_cast<size_t>(normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(oshape.size())));
  struct Piece {
    const te::Tensor* t;
    int64_t offset, extent;
  };
  std::vector<Piece> pieces;
  int64_t offset = 0;
  for (const te::Tensor& t : in) {
    int64_t extent = t.shape()[axis];
    if (extent > 0) pieces.push_back({&t, offset, extent});
    offset += extent;
  }
  return te_one(te::compute(
      oshape,
      [&](const te::Idx& i) {
        auto read = [&](const Piece& p) {
          te::Idx j = i;
          // The index clamped to the field: a no-op in the select branch that reads it.
          te::Expr local = p.offset == 0 ? i[axis] : i[axis] - te::Expr(p.offset);
          j[axis] = te::min(te::max(local, te::Expr(0)), te::Expr(p.extent - 1));
          return (*p.t)(j);
        };
        te::Expr value = read(pieces.back());
        for (size_t k = pieces.size() - 1; k-- > 0;) {
          value = te::select(i[axis] < te::Expr(pieces[k].offset + pieces[k].extent), read(pieces[k]), value);
        }
        return value;
      },
      "concatenate"));
}

/// stack: out[.., k, ..] is field k at the index without the new axis.
std::vector<te::Tensor> stack_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  Shape oshape = out.shape();
  if (te_is_empty(oshape)) return te_one(te_empty(oshape, out.dtype(), "stack"));
  const size_t axis = static_cast<size_t>(stack_axis(attrs, static_cast<int64_t>(oshape.size()) - 1));
  return te_one(te::compute(
      oshape,
      [&](const te::Idx& i) {
        te::Idx j = i;
        j.erase(j.begin() + static_cast<std::ptrdiff_t>(axis));
        te::Expr value = in.back()(j);
        for (size_t k = in.size() - 1; k-- > 0;) {
          value = te::select(te::equal(i[axis], te::Expr(static_cast<int64_t>(k))), in[k](j), value);
        }
        return value;
      },
      "stack"));
}

/// split: piece k reads data at its index moved by the piece's start along axis.
std::vector<te::Tensor> split_te(const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
  const te::Tensor& x = in.at(0);
  std::vector<Type> fields = out.fields();
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(x.ndim());
  const size_t a = static_cast<size_t>(axis);
  std::vector<te::Tensor> pieces;
  int64_t start = 0;
  for (size_t k = 0; k < fields.size(); ++k) {
    Shape shape = fields[k].shape();
    std::string name = "split" + std::to_string(k);
    if (te_is_empty(shape)) {
      pieces.push_back(te_empty(shape, fields[k].dtype(), name));
    } else {
      pieces.push_back(te::compute(
          shape,
          [&](const te::Idx& i) {
            te::Idx j = i;
            if (start != 0) j[a] = i[a] + te::Expr(start);
            return x(j);
          },
          name));
    }
    start += shape[a];
  }
  return pieces;
}

}  // namespace

namespace {

/// The gradient split back into the pieces' extents along axis.
std::vector<Expr> concatenate_gradient(const Expr& c, const Expr& g) {
  std::vector<Type> fields = c.arg(0).type().fields();
  int64_t axis = c.attrs().get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(fields.at(0).ndim());
  std::vector<int64_t> cuts;
  int64_t offset = 0;
  for (size_t i = 0; i + 1 < fields.size(); ++i) {
    int64_t extent = fields[i].shape().at(static_cast<size_t>(axis));
    if (extent == WEFT_DIM_ANY) throw Error("the gradient of concatenate needs static extents along axis");
    cuts.push_back(offset += extent);
  }
  if (fields.size() == 1) return {tuple({g})};
  return {call("split", {g}, {{"indices_or_sections", cuts}, {"axis", axis}})};
}

/// The gradient cut into one slice per stacked tensor, without the new axis.
std::vector<Expr> stack_gradient(const Expr& c, const Expr& g) {
  size_t n = c.arg(0).type().fields().size();
  int64_t axis = c.attrs().get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(c.type().ndim());
  Expr pieces = call("split", {g}, {{"indices_or_sections", static_cast<int64_t>(n)}, {"axis", axis}});
  std::vector<Expr> grads;
  for (size_t i = 0; i < n; ++i) {
    grads.push_back(call("squeeze", {get_item(pieces, static_cast<int>(i))}, {{"axis", std::vector<int64_t>{axis}}}));
  }
  return {tuple(grads)};
}
}  // namespace

/// Relay's ConcatenateLayout: when every piece arrives in one layout, the
/// join runs there along the same axis letter; otherwise the pieces go back
/// to the first layout known, which must have the axis unsplit.
InferredLayouts concatenate_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                                    const std::vector<Layout>& old_in, const std::vector<Type>& types) {
  size_t n = old_in.size();
  std::vector<Type> fields = types.at(0).fields();
  if (fields.empty()) return layouts::cannot_follow(n);
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(fields[0].ndim());
  if (!new_in.empty()) {
    bool same = true;
    for (const Layout& l : new_in) same = same && l == new_in[0];
    int64_t moved = same && old_in[0].defined() ? layouts::renumbered_axis(old_in[0], new_in[0], axis) : -1;
    if (moved >= 0) return {new_in, {new_in[0]}, layouts::with(attrs, {{"axis", Value(moved)}})};
  }
  Layout known;
  for (const Layout& l : old_in) {
    if (!known.defined() && l.defined()) known = l;
  }
  if (axis < 0 || static_cast<size_t>(axis) >= known.ndim() || !known[static_cast<size_t>(axis)].primal()) {
    return layouts::cannot_follow(n);
  }
  return {std::vector<Layout>(n, known), {known}, Attrs()};
}

/// Relay's SplitInferCorrectLayout: the split runs in the layout its data
/// arrives in, along the same axis letter; indices along an axis the layout
/// splits into blocks count blocks, so they must fall on block boundaries
/// (and equal sections must hold whole blocks), else the data goes back to
/// its old layout.
InferredLayouts split_layouts(const Attrs& attrs, const std::vector<Layout>& new_in,
                              const std::vector<Layout>& old_in, const std::vector<Type>& types) {
  const Layout& old_layout = old_in[0];
  Value sections = attrs.get_value("indices_or_sections");
  bool equal = sections.type() == WEFT_ATTR_INT;
  size_t pieces = equal ? static_cast<size_t>(sections.as_int()) : sections.as_ints().size() + 1;
  if (!old_layout.defined() || !types[0].is_tensor()) return layouts::cannot_follow(1, pieces);
  std::vector<int64_t> shape = types[0].shape();
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += static_cast<int64_t>(shape.size());
  auto in_old = [&] {
    return InferredLayouts{{old_layout}, std::vector<Layout>(pieces, old_layout), Attrs()};
  };
  if (new_in.empty()) return in_old();
  const Layout& layout = new_in[0];
  int64_t moved = layouts::renumbered_axis(old_layout, layout, axis);
  if (moved < 0) return in_old();
  int64_t factor = layout.factor_of(old_layout[static_cast<size_t>(axis)].name);
  Value split_at = sections;
  if (factor > 1) {
    if (equal) {
      int64_t extent = shape[static_cast<size_t>(axis)];
      if (extent % (factor * sections.as_int()) != 0) return in_old();
    } else {
      std::vector<int64_t> blocks;
      for (int64_t at : sections.as_ints()) {
        if (at % factor != 0) return in_old();
        blocks.push_back(at / factor);
      }
      split_at = Value(blocks);
    }
  }
  return {{layout},
          std::vector<Layout>(pieces, layout),
          layouts::with(attrs, {{"axis", Value(moved)}, {"indices_or_sections", split_at}})};
}

void register_join_split_ops(Registrar& reg) {
  reg.op("concatenate")
      .describe("The tensors of data joined along axis; other dims must match.")
      .input("data", "Tuple of Tensors", "The tensors to join.")
      .attr("axis", int64_t{0}, "The axis to join along, in [-ndim, ndim).")
      .support_level(1)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(concatenate_relation)
      .infer_layout(concatenate_layouts)
      .kernel(concatenate_kernel)
      .te_compute(concatenate_te)
      .gradient(concatenate_gradient);
  reg.op("stack")
      .describe("The tensors of data, all of one shape, joined along a new axis.")
      .input("data", "Tuple of Tensors", "The tensors to stack.")
      .attr("axis", int64_t{0}, "Where the new axis goes, in [-(ndim + 1), ndim + 1).")
      .support_level(3)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(stack_relation)
      .kernel(stack_kernel)
      .te_compute(stack_te)
      .gradient(stack_gradient);
  reg.op("split")
      .describe(
          "data cut along axis into a Tuple: into indices_or_sections equal pieces when it is an int, or at the "
          "sorted indices it lists.")
      .input("data", "Tensor", "The tensor to split.")
      .attr_required("indices_or_sections", WEFT_ATTR_ANY, "A number of equal sections, or the indices to cut at.",
                     "an int or a sorted list of ints")
      .normalize(sections_normal)
      .attr("axis", int64_t{0}, "The axis to split along.")
      .support_level(3)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation(split_relation)
      .infer_layout(split_layouts)
      .kernel(split_kernel)
      .te_compute(split_te)
      .gradient([](const Expr& c, const Expr& g) {
        // g is the tuple of the pieces' gradients: join them back.
        return std::vector<Expr>{call("concatenate", {g}, {{"axis", c.attrs().get_int("axis")}})};
      });
}

}  // namespace weft_tensor
