// ONNX's tensor operators (elementwise, reductions, shapes and indexing, as
// the specification defines them at opsets 13 to 17) mapped to weft's ops,
// one converter each; the table joins nn_converters.cpp's to them.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "graph_import.h"

namespace onnx_frontend {
namespace {

using Exprs = std::vector<sdk::Expr>;
using Ints = std::vector<int64_t>;

/// An op of one input, the same for every opset.
template <const char* Op>
Exprs unary(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call(Op, {g.input(n, 0)})};
}

/// An op of two inputs broadcast as NumPy does (ONNX's multidirectional broadcasting).
template <const char* Op>
Exprs binary(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call(Op, {g.input(n, 0), g.input(n, 1)})};
}

constexpr char kRelu[] = "nn.relu", kSigmoid[] = "sigmoid", kTanh[] = "tanh", kErf[] = "erf", kExp[] = "exp",
               kLog[] = "log", kSqrt[] = "sqrt", kNeg[] = "negative", kAbs[] = "abs", kFloor[] = "floor",
               kCeil[] = "ceil", kAdd[] = "add", kSub[] = "subtract", kMul[] = "multiply", kDiv[] = "divide",
               kPow[] = "power", kNot[] = "logical_not", kAnd[] = "logical_and", kOr[] = "logical_or",
               kEqual[] = "equal", kLess[] = "less", kLessEqual[] = "less_equal", kGreater[] = "greater",
               kGreaterEqual[] = "greater_equal", kMaximum[] = "maximum", kMinimum[] = "minimum", kSign[] = "sign", kRound[] = "round",
               kXor[] = "logical_xor";

/// Min, Max, Sum: the inputs folded pairwise (NumPy broadcasting).
template <const char* Op>
Exprs variadic(GraphImport& g, const onnx::NodeProto& n) {
  sdk::Expr out = g.input(n, 0);
  for (int i = 1; i < n.input_size(); ++i) out = sdk::call(Op, {out, g.input(n, i)});
  return {out};
}

Exprs mean_of(GraphImport& g, const onnx::NodeProto& n) {
  sdk::Expr sum = variadic<kAdd>(g, n)[0];
  return {sdk::call("divide", {sum, g.scalar_like(n.input_size(), n.input(0))})};
}

/// ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd: axes an attribute
/// (ReduceSum's an input at 13), keepdims, and noop_with_empty_axes.
Exprs reduce(GraphImport& g, const onnx::NodeProto& n) {
  static const std::map<std::string, std::string> ops = {{"ReduceMean", "mean"}, {"ReduceSum", "sum"},
                                                         {"ReduceMax", "max"},   {"ReduceMin", "min"},
                                                         {"ReduceProd", "prod"}};
  Ints axes = n.op_type() == "ReduceSum" ? (g.has_input(n, 1) ? g.ints(g.input(n, 1), n, "axes") : Ints{})
                                         : attr_ints(n, "axes");
  if (axes.empty() && attr_int(n, "noop_with_empty_axes", 0)) return {g.input(n, 0)};
  sdk::AttrList attrs = {{"keepdims", attr_int(n, "keepdims", 1) != 0}};
  if (!axes.empty()) attrs.push_back({"axis", axes});
  return {sdk::call(ops.at(n.op_type()), {g.input(n, 0)}, attrs)};
}

Exprs where(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("where", {g.input(n, 0), g.input(n, 1), g.input(n, 2)})};
}

/// Expand: the input broadcast to the shape shape inference gave its output
/// (the broadcast of its shape and the one asked for).
Exprs expand(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("broadcast_to", {g.input(n, 0)}, {{"shape", g.shape(n.output(0))}})};
}

Exprs constant_of_shape(GraphImport& g, const onnx::NodeProto& n) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_float_data(0.0f);  // the default value: a float32 0
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.name() == "value") t = a.t();
  onnx::TensorProto filled;
  filled.set_data_type(t.data_type());
  const std::vector<int64_t> shape = g.ints(g.input(n, 0), n, "shape");
  const int64_t count = element_count(shape, "node '" + n.name() + "' (ConstantOfShape): its shape");
  for (int64_t d : shape) filled.add_dims(d);
  // The one value, repeated: its bytes as a tensor of one element holds them.
  const sdk::Expr one = tensor_constant(t, "node '" + n.name() + "'");
  const DLTensor& v = one.data();
  const size_t element = v.dtype.bits == 1 ? 1 : v.dtype.bits / 8;
  std::string raw;
  for (int64_t i = 0; i < count; ++i) raw.append(static_cast<const char*>(v.data) + v.byte_offset, element);
  filled.set_raw_data(raw);
  return {tensor_constant(filled, "node '" + n.name() + "'")};
}

/// HardSigmoid: max(0, min(1, alpha x + beta)).
Exprs hard_sigmoid(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  const sdk::Expr y = sdk::call("add", {sdk::call("multiply", {x, g.scalar_like(attr_float(n, "alpha", 0.2f), n.input(0))}),
                                        g.scalar_like(attr_float(n, "beta", 0.5f), n.input(0))});
  return {sdk::call("clip", {y}, {{"a_min", 0.0}, {"a_max", 1.0}})};
}

/// PRelu and Elu as where(x < 0, negative branch, x).
Exprs negative_slope(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  sdk::Expr below;
  if (n.op_type() == "PRelu") {
    below = sdk::call("multiply", {x, g.input(n, 1)});
  } else {  // Elu: alpha (e^x - 1)
    below = sdk::call("multiply", {sdk::call("subtract", {sdk::call("exp", {x}), g.scalar_like(1, n.input(0))}),
                                   g.scalar_like(attr_float(n, "alpha", 1.0f), n.input(0))});
  }
  return {sdk::call("where", {sdk::call("less", {x, g.scalar_like(0, n.input(0))}), below, x})};
}

/// Slice: starts and ends clamped into each axis as ONNX clamps them, for
/// either direction of step.
Exprs slice(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0));
  Ints starts = g.ints(g.input(n, 1), n, "starts"), ends = g.ints(g.input(n, 2), n, "ends");
  Ints axes = g.has_input(n, 3) ? g.ints(g.input(n, 3), n, "axes") : Ints();
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  const Ints steps = g.has_input(n, 4) ? g.ints(g.input(n, 4), n, "steps") : Ints(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    throw g.error(n, "starts, ends, axes and steps differ in length");
  const int64_t rank = static_cast<int64_t>(in.size());
  Ints begin(in.size(), 0), end = in, stride(in.size(), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank) throw g.error(n, "axis " + std::to_string(axes[i]) + " is out of range");
    if (steps[i] == 0) throw g.error(n, "a step is 0");
    const int64_t dim = in[static_cast<size_t>(axis)];
    // ONNX: negative counts from the end; then [0, dim] going forward, [-1, dim - 1] going back.
    const int64_t lo = steps[i] > 0 ? 0 : -1, hi = steps[i] > 0 ? dim : dim - 1;
    auto clamp = [&](int64_t v) {
      return std::clamp<int64_t>(v < 0 ? (v < -dim ? lo : v + dim) : v, lo, hi);
    };
    const int64_t b = clamp(starts[i]), e = clamp(ends[i]);
    begin[static_cast<size_t>(axis)] = b;
    // weft's strided_slice reads a negative end from the end too: "before the first" is -dim - 1.
    end[static_cast<size_t>(axis)] = e < 0 ? -dim - 1 : e;
    stride[static_cast<size_t>(axis)] = steps[i];
  }
  return {sdk::call("strided_slice", {g.input(n, 0)}, {{"begin", begin}, {"end", end}, {"strides", stride}})};
}

/// Split into the sizes given (an input at 13), or into equal parts.
Exprs split(GraphImport& g, const onnx::NodeProto& n) {
  const int64_t axis = attr_int(n, "axis", 0);
  const Ints in = g.shape(n.input(0));
  const size_t at = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(in.size()) : axis);
  Ints cuts;
  if (g.has_input(n, 1)) {
    int64_t offset = 0;
    const Ints sizes = g.ints(g.input(n, 1), n, "split");
    for (size_t i = 0; i + 1 < sizes.size(); ++i) cuts.push_back(offset += sizes[i]);
  } else {
    const int64_t parts = n.output_size(), size = in.at(at) / parts;
    for (int64_t i = 1; i < parts; ++i) cuts.push_back(i * size);
  }
  const sdk::Expr pieces = sdk::call("split", {g.input(n, 0)}, {{"indices_or_sections", cuts}, {"axis", axis}});
  Exprs out;
  for (int i = 0; i < n.output_size(); ++i) out.push_back(sdk::get_item(pieces, i));
  return out;
}

Exprs leaky_relu(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("nn.leaky_relu", {g.input(n, 0)}, {{"alpha", static_cast<double>(attr_float(n, "alpha", 0.01f))}})};
}

Exprs clip(GraphImport& g, const onnx::NodeProto& n) {
  sdk::Expr x = g.input(n, 0);
  // Opset 13: min and max are optional inputs; absent, nothing bounds that side.
  if (g.has_input(n, 1)) x = sdk::call("maximum", {x, g.input(n, 1)});
  if (g.has_input(n, 2)) x = sdk::call("minimum", {x, g.input(n, 2)});
  return {x};
}

Exprs softmax(GraphImport& g, const onnx::NodeProto& n) {
  const std::string op = n.op_type() == "Softmax" ? "nn.softmax" : "nn.log_softmax";
  return {sdk::call(op, {g.input(n, 0)}, {{"axis", attr_int(n, "axis", -1)}})};
}

Exprs flatten(GraphImport& g, const onnx::NodeProto& n) {
  const Ints in = g.shape(n.input(0));
  int64_t axis = attr_int(n, "axis", 1);
  if (axis < 0) axis += static_cast<int64_t>(in.size());
  if (axis < 0 || axis > static_cast<int64_t>(in.size())) throw g.error(n, "axis is out of range");
  const int64_t outer = std::accumulate(in.begin(), in.begin() + axis, int64_t{1}, std::multiplies<>());
  const int64_t inner = std::accumulate(in.begin() + axis, in.end(), int64_t{1}, std::multiplies<>());
  return {sdk::call("reshape", {g.input(n, 0)}, {{"newshape", Ints{outer, inner}}})};
}

Exprs reshape(GraphImport& g, const onnx::NodeProto& n) {
  Ints shape = g.ints(g.input(n, 1), n, "shape");
  if (attr_int(n, "allowzero", 0) != 0)
    for (int64_t d : shape)
      if (d == 0) throw g.error(n, "allowzero with a 0 in the shape (an empty tensor) is not mapped");
  // ONNX's 0 copies the input's dimension and -1 infers one, as weft's reshape reads them.
  return {sdk::call("reshape", {g.input(n, 0)}, {{"newshape", shape}})};
}

Exprs gemm(GraphImport& g, const onnx::NodeProto& n) {
  sdk::Expr a = g.input(n, 0), b = g.input(n, 1);
  if (attr_int(n, "transA", 0)) a = sdk::call("transpose", {a}, {{"axes", Ints{1, 0}}});
  // nn.dense computes a b^T: a B given transposed is taken as it is.
  if (!attr_int(n, "transB", 0)) b = sdk::call("transpose", {b}, {{"axes", Ints{1, 0}}});
  sdk::Expr y = sdk::call("nn.dense", {a, b});
  const float alpha = attr_float(n, "alpha", 1.0f), beta = attr_float(n, "beta", 1.0f);
  if (alpha != 1.0f) y = sdk::call("multiply", {y, g.scalar_like(alpha, n.input(0))});
  if (g.has_input(n, 2)) {
    sdk::Expr c = g.input(n, 2);
    if (beta != 1.0f) c = sdk::call("multiply", {c, g.scalar_like(beta, n.input(2))});
    y = sdk::call("add", {y, c});
  }
  return {y};
}

/// MatMul as NumPy's matmul: a 1-D operand gains the axis it lacks (and
/// loses it after), N-D by 2-D is one matrix product of the rows, and
/// otherwise the batch axes broadcast and become one for nn.batch_matmul.
Exprs matmul(GraphImport& g, const onnx::NodeProto& n) {
  Ints a = g.shape(n.input(0)), b = g.shape(n.input(1));
  sdk::Expr x = g.input(n, 0), y = g.input(n, 1);
  if (a.empty() || b.empty()) throw g.error(n, "an operand is a scalar");
  const bool row = a.size() == 1, column = b.size() == 1;
  if (row) {
    x = sdk::call("expand_dims", {x}, {{"axis", int64_t{0}}});
    a.insert(a.begin(), 1);
  }
  if (column) {
    y = sdk::call("expand_dims", {y}, {{"axis", int64_t{1}}});
    b.push_back(1);
  }
  const int64_t m = a[a.size() - 2], k = a.back(), nn = b.back();
  if (b[b.size() - 2] != k) throw g.error(n, "the operands' inner dimensions differ");
  Ints batch;  // the broadcast of both batch shapes
  for (size_t i = 0, ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb); i < r; ++i) {
    const int64_t da = i + ra >= r ? a[i + ra - r] : 1, db = i + rb >= r ? b[i + rb - r] : 1;
    if (da != db && da != 1 && db != 1) throw g.error(n, "the operands' batch dimensions do not broadcast");
    batch.push_back(std::max(da, db));
  }
  const int64_t count = std::accumulate(batch.begin(), batch.end(), int64_t{1}, std::multiplies<>());
  auto with_batch = [&](Ints tail) {
    Ints shape = batch;
    shape.insert(shape.end(), tail.begin(), tail.end());
    return shape;
  };
  sdk::Expr out;
  if (b.size() == 2) {  // every batch of a by one matrix: a's rows all at once
    out = sdk::call("nn.matmul", {a.size() == 2 ? x : sdk::call("reshape", {x}, {{"newshape", Ints{-1, k}}}), y});
  } else {
    auto batched = [&](const sdk::Expr& e, const Ints& shape, Ints tail) {
      const sdk::Expr full = shape == with_batch(tail) ? e : sdk::call("broadcast_to", {e}, {{"shape", with_batch(tail)}});
      tail.insert(tail.begin(), count);
      return sdk::call("reshape", {full}, {{"newshape", tail}});
    };
    out = sdk::call("nn.batch_matmul", {batched(x, a, {m, k}), batched(y, b, {k, nn})}, {{"transpose_b", false}});
  }
  Ints shape = with_batch({m, nn});
  if (column) shape.pop_back();
  if (row) shape.erase(shape.end() - (column ? 1 : 2));
  return {sdk::call("reshape", {out}, {{"newshape", shape}})};
}

Exprs concat(GraphImport& g, const onnx::NodeProto& n) {
  Exprs fields;
  for (int i = 0; i < n.input_size(); ++i) fields.push_back(g.input(n, i));
  return {sdk::call("concatenate", {sdk::tuple(fields)}, {{"axis", attr_int(n, "axis", 0)}})};
}

Exprs transpose(GraphImport& g, const onnx::NodeProto& n) {
  const size_t rank = g.shape(n.input(0)).size();
  Ints reversed(rank);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return {sdk::call("transpose", {g.input(n, 0)}, {{"axes", attr_ints(n, "perm", reversed)}})};
}

Exprs squeeze(GraphImport& g, const onnx::NodeProto& n) {
  if (!g.has_input(n, 1)) return {sdk::call("squeeze", {g.input(n, 0)})};
  return {sdk::call("squeeze", {g.input(n, 0)}, {{"axis", g.ints(g.input(n, 1), n, "axes")}})};
}

Exprs unsqueeze(GraphImport& g, const onnx::NodeProto& n) {
  Ints axes = g.ints(g.input(n, 1), n, "axes");
  const int64_t rank = static_cast<int64_t>(g.shape(n.input(0)).size() + axes.size());
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  sdk::Expr x = g.input(n, 0);
  for (int64_t a : axes) x = sdk::call("expand_dims", {x}, {{"axis", a}});  // ascending: each lands where asked
  return {x};
}

Exprs pass_through(GraphImport& g, const onnx::NodeProto& n) {
  if (n.op_type() == "Dropout" && n.output_size() > 1 && !n.output(1).empty())
    throw g.error(n, "weft does not compute Dropout's mask");
  return {g.input(n, 0)};
}

Exprs constant(GraphImport& g, const onnx::NodeProto& n) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == "value") return {tensor_constant(a.t(), "node '" + n.name() + "'")};
    if (a.name() == "value_float") return {sdk::scalar(a.f(), sdk::dtype::float32)};
    if (a.name() == "value_int") {  // exact: exporters write INT64_MAX for "to the end"
      onnx::TensorProto t;
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_int64_data(a.i());
      return {tensor_constant(t, "node '" + n.name() + "'")};
    }
  }
  throw g.error(n, "weft maps Constant's value, value_float and value_int");
}

/// Shape, from opset 15 the dimensions start to end (clamped as Slice clamps).
Exprs shape(GraphImport& g, const onnx::NodeProto& n) {
  const Ints dims = g.shape(n.input(0));
  const int64_t rank = static_cast<int64_t>(dims.size());
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(attr_int(n, "start", 0)), end = clamp(attr_int(n, "end", rank));
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(std::max<int64_t>(end - start, 0));
  for (int64_t d = start; d < end; ++d) t.add_int64_data(dims[static_cast<size_t>(d)]);
  return {tensor_constant(t, "node '" + n.name() + "'")};
}

Exprs gather(GraphImport& g, const onnx::NodeProto& n) {
  // Negative indices count from the end, as wrapping takes them.
  return {sdk::call("take", {g.input(n, 0), g.input(n, 1)}, {{"axis", attr_int(n, "axis", 0)}, {"mode", "wrap"}})};
}

Exprs cast(GraphImport& g, const onnx::NodeProto& n) {
  const DLDataType to = dtype_of(static_cast<int32_t>(attr_int(n, "to", onnx::TensorProto::FLOAT)), "node '" + n.name() + "'");
  return {sdk::call("cast", {g.input(n, 0)}, {{"dtype", to}})};
}

/// HardSwish: x * HardSigmoid(x) with alpha 1/6 and beta 1/2.
Exprs hard_swish(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  const sdk::Expr gate = sdk::call("add", {sdk::call("divide", {x, g.scalar_like(6, n.input(0))}),
                                           g.scalar_like(0.5, n.input(0))});
  return {sdk::call("multiply", {x, sdk::call("clip", {gate}, {{"a_min", 0.0}, {"a_max", 1.0}})})};
}

Exprs reciprocal(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("divide", {g.scalar_like(1, n.input(0)), g.input(n, 0)})};
}

/// Softplus: log(e^x + 1).
Exprs softplus(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  return {sdk::call("log", {sdk::call("add", {sdk::call("exp", {x}), g.scalar_like(1, n.input(0))})})};
}

/// ArgMax and ArgMin: int64 indices, keepdims, select_last_index.
Exprs arg_reduce(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr index =
      sdk::call(n.op_type() == "ArgMax" ? "argmax" : "argmin", {g.input(n, 0)},
                {{"axis", Ints{attr_int(n, "axis", 0)}},
                 {"keepdims", attr_int(n, "keepdims", 1) != 0},
                 {"select_last_index", attr_int(n, "select_last_index", 0) != 0}});
  return {sdk::call("cast", {index}, {{"dtype", sdk::dtype::int64}})};
}

Exprs tile(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call("tile", {g.input(n, 0)}, {{"reps", g.ints(g.input(n, 1), n, "repeats")}})};
}

/// Selu: gamma (x if x > 0, alpha (e^x - 1) otherwise); Celu: max(0, x) +
/// min(0, alpha (e^(x / alpha) - 1)); ThresholdedRelu: x where x > alpha, 0
/// elsewhere; Softsign: x / (1 + |x|). Each by its definition.
Exprs selu(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  const std::string& in = n.input(0);
  const sdk::Expr below = sdk::call(
      "multiply", {sdk::call("subtract", {sdk::call("exp", {x}), g.scalar_like(1, in)}),
                   g.scalar_like(attr_float(n, "alpha", 1.67326319217681884765625f), in)});
  const sdk::Expr y = sdk::call("where", {sdk::call("greater", {x, g.scalar_like(0, in)}), x, below});
  return {sdk::call("multiply", {y, g.scalar_like(attr_float(n, "gamma", 1.05070102214813232421875f), in)})};
}

Exprs celu(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  const std::string& in = n.input(0);
  const sdk::Expr alpha = g.scalar_like(attr_float(n, "alpha", 1.0f), in), zero = g.scalar_like(0, in);
  const sdk::Expr curve = sdk::call(
      "multiply", {sdk::call("subtract", {sdk::call("exp", {sdk::call("divide", {x, alpha})}), g.scalar_like(1, in)}), alpha});
  return {sdk::call("add", {sdk::call("maximum", {x, zero}), sdk::call("minimum", {curve, zero})})};
}

Exprs thresholded_relu(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  const std::string& in = n.input(0);
  const sdk::Expr above = sdk::call("greater", {x, g.scalar_like(attr_float(n, "alpha", 1.0f), in)});
  return {sdk::call("where", {above, x, g.scalar_like(0, in)})};
}

Exprs softsign(GraphImport& g, const onnx::NodeProto& n) {
  const sdk::Expr x = g.input(n, 0);
  return {sdk::call("divide", {x, sdk::call("add", {g.scalar_like(1, n.input(0)), sdk::call("abs", {x})})})};
}

/// Mod: fmod 1 is C's fmod (the dividend's sign, weft's mod); fmod 0, for
/// integers, Python's % (the divisor's sign, weft's floor_mod).
Exprs mod(GraphImport& g, const onnx::NodeProto& n) {
  return {sdk::call(attr_int(n, "fmod", 0) ? "mod" : "floor_mod", {g.input(n, 0), g.input(n, 1)})};
}

/// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp: a
/// sum of the definition's terms, then its outer function.
Exprs reduce_composite(GraphImport& g, const onnx::NodeProto& n) {
  const Ints axes = attr_ints(n, "axes");
  const sdk::Expr x = g.input(n, 0);
  if (axes.empty() && attr_int(n, "noop_with_empty_axes", 0)) return {x};
  const std::string& op = n.op_type();
  sdk::AttrList attrs = {{"keepdims", attr_int(n, "keepdims", 1) != 0}};
  if (!axes.empty()) attrs.push_back({"axis", axes});
  if (op == "ReduceLogSumExp") {  // max + log(sum(e^(x - max))): no overflow for large x
    sdk::AttrList kept = {{"keepdims", true}};
    if (!axes.empty()) kept.push_back({"axis", axes});
    const sdk::Expr peak = sdk::call("max", {x}, kept);
    const sdk::Expr sum = sdk::call("sum", {sdk::call("exp", {sdk::call("subtract", {x, peak})})}, attrs);
    const sdk::Expr shift = attr_int(n, "keepdims", 1) ? peak : sdk::call("max", {x}, attrs);
    return {sdk::call("add", {sdk::call("log", {sum}), shift})};
  }
  const sdk::Expr terms = op == "ReduceL1"       ? sdk::call("abs", {x})
                          : op == "ReduceLogSum" ? x
                                                 : sdk::call("multiply", {x, x});  // L2, SumSquare
  const sdk::Expr sum = sdk::call("sum", {terms}, attrs);
  if (op == "ReduceL2") return {sdk::call("sqrt", {sum})};
  if (op == "ReduceLogSum") return {sdk::call("log", {sum})};
  return {sum};
}

/// Size: the element count, an int64 scalar.
Exprs size(GraphImport& g, const onnx::NodeProto& n) {
  const Ints dims = g.shape(n.input(0));
  return {scalar_of(static_cast<double>(std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>())),
                    onnx::TensorProto::INT64, "node '" + n.name() + "'")};
}

/// Range of constant start, limit and delta (what exporters write for
/// static positions): computed at import, in their element type.
Exprs range(GraphImport& g, const onnx::NodeProto& n) {
  const std::vector<double> start = g.floats_or_ints(g.input(n, 0), n, "start"),
                            limit = g.floats_or_ints(g.input(n, 1), n, "limit"),
                            delta = g.floats_or_ints(g.input(n, 2), n, "delta");
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1) throw g.error(n, "start, limit and delta must be scalars");
  if (delta[0] == 0) throw g.error(n, "delta is 0");
  const double count = std::max(std::ceil((limit[0] - start[0]) / delta[0]), 0.0);
  if (!(count < 0x1p31)) throw g.error(n, "the range holds more than 2^31 elements");
  onnx::TensorProto t;
  t.set_data_type(g.element_type(n.input(0)));
  t.add_dims(static_cast<int64_t>(count));
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
    const double v = start[0] + static_cast<double>(i) * delta[0];
    switch (t.data_type()) {
      case onnx::TensorProto::FLOAT: t.add_float_data(static_cast<float>(v)); break;
      case onnx::TensorProto::DOUBLE: t.add_double_data(v); break;
      case onnx::TensorProto::INT64: t.add_int64_data(static_cast<int64_t>(v)); break;
      case onnx::TensorProto::INT32:
      case onnx::TensorProto::INT16: t.add_int32_data(static_cast<int32_t>(v)); break;
      default: throw g.error(n, "weft maps Range of float, double and int16/32/64 values");
    }
  }
  return {tensor_constant(t, "node '" + n.name() + "'")};
}

}  // namespace

const std::map<std::string, Converter>& converters() {
  static const std::map<std::string, Converter> table = {
      {"Abs", unary<kAbs>},
      {"Celu", celu},
      {"Mod", mod},
      {"Range", range},
      {"ReduceL1", reduce_composite},
      {"ReduceL2", reduce_composite},
      {"ReduceLogSum", reduce_composite},
      {"ReduceLogSumExp", reduce_composite},
      {"ReduceSumSquare", reduce_composite},
      {"Round", unary<kRound>},
      {"Selu", selu},
      {"Size", size},
      {"Softsign", softsign},
      {"ThresholdedRelu", thresholded_relu},
      {"Xor", binary<kXor>},
      {"ArgMax", arg_reduce},
      {"ArgMin", arg_reduce},
      {"HardSwish", hard_swish},
      {"Reciprocal", reciprocal},
      {"Sign", unary<kSign>},
      {"Softplus", softplus},
      {"Tile", tile},
      {"Add", binary<kAdd>},
      {"And", binary<kAnd>},
      {"Cast", cast},
      {"Ceil", unary<kCeil>},
      {"Clip", clip},
      {"Concat", concat},
      {"Constant", constant},
      {"Div", binary<kDiv>},
      {"Dropout", pass_through},
      {"Elu", negative_slope},
      {"Equal", binary<kEqual>},
      {"Expand", expand},
      {"ConstantOfShape", constant_of_shape},
      {"Greater", binary<kGreater>},
      {"GreaterOrEqual", binary<kGreaterEqual>},
      {"HardSigmoid", hard_sigmoid},
      {"Less", binary<kLess>},
      {"LessOrEqual", binary<kLessEqual>},
      {"Max", variadic<kMaximum>},
      {"Mean", mean_of},
      {"Min", variadic<kMinimum>},
      {"Not", unary<kNot>},
      {"Or", binary<kOr>},
      {"PRelu", negative_slope},
      {"ReduceMax", reduce},
      {"ReduceMean", reduce},
      {"ReduceMin", reduce},
      {"ReduceProd", reduce},
      {"ReduceSum", reduce},
      {"Slice", slice},
      {"Split", split},
      {"Sum", variadic<kAdd>},
      {"Where", where},
      {"Erf", unary<kErf>},
      {"Exp", unary<kExp>},
      {"Flatten", flatten},
      {"Floor", unary<kFloor>},
      {"Gather", gather},
      {"Gemm", gemm},
      {"Identity", pass_through},
      {"LeakyRelu", leaky_relu},
      {"Log", unary<kLog>},
      {"LogSoftmax", softmax},
      {"MatMul", matmul},
      {"Mul", binary<kMul>},
      {"Neg", unary<kNeg>},
      {"Pow", binary<kPow>},
      {"Relu", unary<kRelu>},
      {"Reshape", reshape},
      {"Shape", shape},
      {"Sigmoid", unary<kSigmoid>},
      {"Softmax", softmax},
      {"Sqrt", unary<kSqrt>},
      {"Squeeze", squeeze},
      {"Sub", binary<kSub>},
      {"Tanh", unary<kTanh>},
      {"Transpose", transpose},
      {"Unsqueeze", unsqueeze},
  };
  static const std::map<std::string, Converter> all = [] {
    std::map<std::string, Converter> joined = table;
    joined.insert(nn_converters().begin(), nn_converters().end());
    return joined;
  }();
  return all;
}

}  // namespace onnx_frontend
