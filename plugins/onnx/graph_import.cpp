#include "graph_import.h"

#include "model_file.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

namespace onnx_frontend {

DLDataType dtype_of(int32_t element, const std::string& where) {
  switch (element) {
    case onnx::TensorProto::FLOAT: return {kDLFloat, 32, 1};
    case onnx::TensorProto::DOUBLE: return {kDLFloat, 64, 1};
    case onnx::TensorProto::FLOAT16: return {kDLFloat, 16, 1};
    case onnx::TensorProto::BFLOAT16: return {kDLBfloat, 16, 1};
    case onnx::TensorProto::INT8: return {kDLInt, 8, 1};
    case onnx::TensorProto::INT16: return {kDLInt, 16, 1};
    case onnx::TensorProto::INT32: return {kDLInt, 32, 1};
    case onnx::TensorProto::INT64: return {kDLInt, 64, 1};
    case onnx::TensorProto::UINT8: return {kDLUInt, 8, 1};
    case onnx::TensorProto::UINT16: return {kDLUInt, 16, 1};
    case onnx::TensorProto::UINT32: return {kDLUInt, 32, 1};
    case onnx::TensorProto::UINT64: return {kDLUInt, 64, 1};
    case onnx::TensorProto::BOOL: return {kDLUInt, 1, 1};
    default:
      throw sdk::Error(where + ": elements of type " + onnx::TensorProto_DataType_Name(element) +
                       " are not read by weft");
  }
}

namespace {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

}  // namespace

int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = find_attr(node, name);
  return a ? a->i() : fallback;
}

float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const onnx::AttributeProto* a = find_attr(node, name);
  return a ? a->f() : fallback;
}

std::string attr_string(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) {
  const onnx::AttributeProto* a = find_attr(node, name);
  return a ? a->s() : fallback;
}

std::vector<int64_t> attr_ints(const onnx::NodeProto& node, const std::string& name,
                               const std::vector<int64_t>& fallback) {
  const onnx::AttributeProto* a = find_attr(node, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

int64_t element_count(const std::vector<int64_t>& shape, const std::string& what) {
  constexpr int64_t kLimit = int64_t{1} << 40;  // far past any model's tensor, far below overflow
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) throw sdk::Error(what + " has a negative dimension");
    if (d > 0 && numel > kLimit / d)
      throw sdk::Error(what + " has the shape " + dims_text(shape) + ", of more than 2^40 elements");
    numel *= d;
  }
  return numel;
}

sdk::Expr tensor_constant(const onnx::TensorProto& t, const std::string& where) {
  const std::string what = where + ": tensor " + t.name();
  const DLDataType dtype = dtype_of(t.data_type(), what);
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  const int64_t numel = element_count(shape, what);
  const size_t element = dtype.bits == 1 ? 1 : dtype.bits / 8;
  // The values the tensor holds, checked before anything is allocated: its shape may claim anything.
  const int64_t count =
      t.has_raw_data() ? static_cast<int64_t>(t.raw_data().size() / element)
      : t.data_type() == onnx::TensorProto::FLOAT  ? t.float_data_size()
      : t.data_type() == onnx::TensorProto::DOUBLE ? t.double_data_size()
      : t.data_type() == onnx::TensorProto::INT64  ? t.int64_data_size()
      : t.data_type() == onnx::TensorProto::UINT64 || t.data_type() == onnx::TensorProto::UINT32
          ? t.uint64_data_size()
          : t.int32_data_size();
  if (count != numel)
    throw sdk::Error(what + " holds " + std::to_string(count) + " values, but its shape " + dims_text(shape) +
                     " holds " + std::to_string(numel));
  DLTensor view{};
  view.device = {kDLCPU, 0};
  view.ndim = static_cast<int32_t>(shape.size());
  view.dtype = dtype;
  view.shape = shape.data();
  if (t.has_raw_data()) {  // the common case, weights: the constant copies the bytes as they are
    if (t.raw_data().size() % element) throw sdk::Error(what + "'s raw data is not a whole number of elements");
    view.data = const_cast<char*>(t.raw_data().data());
    return sdk::constant(view);
  }
  std::vector<char> bytes(static_cast<size_t>(numel) * element);  // numel checked against the data first
  auto copy = [&](const void* from) {
    if (!bytes.empty()) std::memcpy(bytes.data(), from, bytes.size());
  };
  if (t.data_type() == onnx::TensorProto::FLOAT) {
    copy(t.float_data().data());
  } else if (t.data_type() == onnx::TensorProto::DOUBLE) {
    copy(t.double_data().data());
  } else if (t.data_type() == onnx::TensorProto::INT64) {
    copy(t.int64_data().data());
  } else if (t.data_type() == onnx::TensorProto::UINT64 || t.data_type() == onnx::TensorProto::UINT32) {
    for (int64_t i = 0; i < numel; ++i) {
      const uint64_t v = t.uint64_data(static_cast<int>(i));
      std::memcpy(bytes.data() + i * element, &v, element);  // the low bytes (little-endian)
    }
  } else {  // int32_data holds one element each: the narrow integers, bool, and the 16-bit floats' bits
    for (int64_t i = 0; i < numel; ++i) {
      const int32_t v = t.int32_data(static_cast<int>(i));
      std::memcpy(bytes.data() + i * element, &v, element);
    }
  }
  view.data = bytes.data();
  return sdk::constant(view);  // copies
}

sdk::Expr scalar_of(double value, int32_t element, const std::string& where) {
  const DLDataType dtype = dtype_of(element, where);
  if (dtype.code == kDLFloat && dtype.bits >= 32) return sdk::scalar(value, dtype);
  onnx::TensorProto t;  // rank 0, one value in the field ONNX keeps the type in
  t.set_data_type(element);
  switch (element) {
    case onnx::TensorProto::INT64: t.add_int64_data(static_cast<int64_t>(value)); break;
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::UINT32: t.add_uint64_data(static_cast<uint64_t>(value)); break;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::BOOL: t.add_int32_data(static_cast<int32_t>(value)); break;
    default: throw sdk::Error(where + ": weft makes no scalar of " + onnx::TensorProto_DataType_Name(element));
  }
  return tensor_constant(t, where);
}

GraphImport::GraphImport(const onnx::ModelProto& model, std::map<std::string, std::vector<int64_t>> shapes,
                         std::set<std::string> optional, bool named_weights)
    : model_(model),
      opset_(default_opset(model)),
      named_weights_(named_weights),
      shapes_(std::move(shapes)),
      optional_shapes_(std::move(optional)) {}

sdk::Error GraphImport::error(const onnx::NodeProto& node, const std::string& message) const {
  return sdk::Error("node '" + node.name() + "' (" + node.op_type() + "): " + message);
}

sdk::Type GraphImport::type_of(const onnx::ValueInfoProto& info, bool bind) const {
  const std::string where = "value " + info.name();
  if (!info.type().has_tensor_type()) throw sdk::Error(where + " is not a tensor");
  const onnx::TypeProto::Tensor& t = info.type().tensor_type();
  const DLDataType dtype = dtype_of(t.elem_type(), where);
  std::vector<int64_t> shape;
  for (int d = 0; d < t.shape().dim_size(); ++d) {
    const auto& dim = t.shape().dim(d);
    shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  }
  auto bound = shapes_.find(info.name());
  if (bind && bound != shapes_.end()) {
    const std::string given = optional_shapes_.count(info.name()) ? "the tensor given for it has " : "--shape gave ";
    if (bound->second.size() != shape.size())
      throw sdk::Error(where + " has " + std::to_string(shape.size()) + " dimensions; " + given +
                       std::to_string(bound->second.size()));
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] >= 0 && shape[d] != bound->second[d])
        throw sdk::Error(where + " has dimension " + std::to_string(d) + " of " + std::to_string(shape[d]) + "; " +
                         given + std::to_string(bound->second[d]));
    shape = bound->second;
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0) {
      const auto& dim = t.shape().dim(static_cast<int>(d));
      std::string pattern;  // its shape with each symbolic dimension by name: Nx3
      for (int k = 0; k < t.shape().dim_size(); ++k) {
        const auto& each = t.shape().dim(k);
        pattern += (k ? "x" : "") + (each.has_dim_value() ? std::to_string(each.dim_value())
                                                           : each.has_dim_param() ? each.dim_param() : std::string("?"));
      }
      throw sdk::Error(where + " has a symbolic dimension " + std::to_string(d) +
                       (dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "") + "; give its shape with --shape " +
                       info.name() + "=" + pattern + ", each name a size");
    }
  return sdk::Type::tensor(shape, dtype);
}

const sdk::Expr& GraphImport::input(const onnx::NodeProto& node, int i) const {
  if (!has_input(node, i)) throw error(node, "input " + std::to_string(i) + " is required");
  auto it = values_.find(node.input(i));
  if (it == values_.end()) throw error(node, "input '" + node.input(i) + "' is not computed before it");
  return it->second;
}

bool GraphImport::has_input(const onnx::NodeProto& node, int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

std::vector<int64_t> GraphImport::shape(const std::string& name) const {
  if (auto init = initializer_shapes_.find(name); init != initializer_shapes_.end()) return init->second;
  auto it = inferred_.find(name);
  if (it != inferred_.end() && it->second->has_tensor_type() && it->second->tensor_type().has_shape()) {
    std::vector<int64_t> out;
    for (const auto& dim : it->second->tensor_type().shape().dim())
      if (dim.has_dim_value()) out.push_back(dim.dim_value());
    if (out.size() == static_cast<size_t>(it->second->tensor_type().shape().dim_size())) return out;
  }
  // ONNX's shape inference left it open (sizes computed where it cannot
  // follow): weft's own type inference of the value as mapped so far.
  if (auto value = values_.find(name); value != values_.end()) {
    std::vector<int64_t> out;
    try {
      const sdk::Module typed = sdk::Module::make({{"main", sdk::function(params_, value->second)}}).run_pass("InferType");
      out = typed.functions().at(0).second.body().type().shape();
    } catch (const sdk::Error&) {
      out = {-1};
    }
    if (std::all_of(out.begin(), out.end(), [](int64_t d) { return d >= 0; })) return out;
  }
  throw sdk::Error("value '" + name + "' has no static shape; bind the inputs' symbolic dimensions with --shape");
}

int32_t GraphImport::element_type(const std::string& name) const {
  if (auto init = initializer_types_.find(name); init != initializer_types_.end()) return init->second;
  if (auto it = inferred_.find(name); it != inferred_.end() && it->second->has_tensor_type())
    return it->second->tensor_type().elem_type();
  throw sdk::Error("shape inference gave value '" + name + "' no element type");
}

sdk::Expr GraphImport::scalar_like(double value, const std::string& name) const {
  return scalar_of(value, element_type(name), "value " + name);
}

sdk::Expr GraphImport::known(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what) {
  sdk::Expr value = e;
  if (value.is(WEFT_EXPR_VAR))  // a named weight: its value
    if (auto w = weight_values_.find(value.name()); w != weight_values_.end()) value = w->second;
  if (!value.is(WEFT_EXPR_CONSTANT)) {
    // Shape arithmetic: weft's own FoldConstant computes it with the ops' kernels.
    sdk::Module folded = sdk::Module::make({{"main", sdk::function({}, e)}}).run_pass("FoldConstant");
    value = folded.functions().at(0).second.body();
    if (!value.is(WEFT_EXPR_CONSTANT))
      throw error(node, "its " + what + " depends on the graph's inputs; weft needs it known at import");
  }
  return value;
}

namespace {

/// Each element of a constant's tensor as T, read as `Element`.
template <typename T, typename Element>
std::vector<T> elements_as(const DLTensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  const auto* base = reinterpret_cast<const Element*>(static_cast<const char*>(t.data) + t.byte_offset);
  return std::vector<T>(base, base + n);
}

}  // namespace

std::vector<int64_t> GraphImport::ints(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what) {
  const sdk::Expr value = known(e, node, what);
  const DLTensor& t = value.data();
  if (t.dtype.code == kDLInt && t.dtype.bits == 64) return elements_as<int64_t, int64_t>(t);
  if (t.dtype.code == kDLInt && t.dtype.bits == 32) return elements_as<int64_t, int32_t>(t);
  throw error(node, "its " + what + " is not int32 or int64");
}

std::vector<double> GraphImport::floats_or_ints(const sdk::Expr& e, const onnx::NodeProto& node,
                                                const std::string& what) {
  const DLDataType dtype = known(e, node, what).data().dtype;
  if (dtype.code == kDLFloat) return floats(e, node, what);
  const std::vector<int64_t> values = ints(e, node, what);
  return std::vector<double>(values.begin(), values.end());
}

std::vector<double> GraphImport::floats(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what) {
  const sdk::Expr value = known(e, node, what);
  const DLTensor& t = value.data();
  if (t.dtype.code == kDLFloat && t.dtype.bits == 32) return elements_as<double, float>(t);
  if (t.dtype.code == kDLFloat && t.dtype.bits == 64) return elements_as<double, double>(t);
  throw error(node, "its " + what + " is not float32 or float64");
}

sdk::Module GraphImport::import() {
  const onnx::GraphProto& graph = model_.graph();
  for (const onnx::ValueInfoProto& v : graph.value_info()) inferred_[v.name()] = &v.type();
  for (const onnx::ValueInfoProto& v : graph.input()) inferred_[v.name()] = &v.type();
  for (const onnx::ValueInfoProto& v : graph.output()) inferred_[v.name()] = &v.type();
  std::vector<std::pair<sdk::Expr, sdk::Expr>> weights;  // named weights: variable, value
  for (const onnx::TensorProto& t : graph.initializer()) {
    values_[t.name()] = tensor_constant(t, "initializer");
    initializer_shapes_[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
    initializer_types_[t.name()] = t.data_type();
    if (named_weights_ && values_[t.name()].data().dtype.code == kDLFloat) {
      // Integer initializers (shapes, axes, indices) stay constants: converters read their values.
      const sdk::Type type = sdk::Type::tensor(initializer_shapes_.at(t.name()), values_[t.name()].data().dtype);
      weights.emplace_back(sdk::var(t.name(), type), values_[t.name()]);
      weight_values_[t.name()] = values_[t.name()];
      values_[t.name()] = weights.back().first;
    }
  }
  for (const onnx::ValueInfoProto& v : graph.input()) {
    if (values_.count(v.name())) continue;  // an initializer listed as an input (IR version < 4)
    params_.push_back(sdk::var(v.name(), type_of(v, true)));
    values_[v.name()] = params_.back();
  }
  for (const auto& [name, shape] : shapes_)
    if ((!values_.count(name) || !values_[name].is(WEFT_EXPR_VAR)) && !optional_shapes_.count(name))
      throw sdk::Error("--shape names '" + name + "', which is not an input of the graph");

  // Every node weft cannot map, listed once.
  std::map<std::string, std::vector<std::string>> unsupported;
  for (const onnx::NodeProto& node : graph.node()) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    if (!default_domain || !converters().count(node.op_type()))
      unsupported[(default_domain ? "" : node.domain() + ".") + node.op_type()].push_back(node.name());
  }
  if (!unsupported.empty()) {
    std::string list;
    for (const auto& [op, nodes] : unsupported) {
      list += "\n  " + op + " (node";
      for (const std::string& n : nodes) list += " '" + n + "'";
      list += ")";
    }
    throw sdk::Error("weft does not map these ONNX operators (at opset " + std::to_string(opset_) + "):" + list);
  }
  for (const onnx::NodeProto& node : graph.node()) {
    std::vector<sdk::Expr> outs = converters().at(node.op_type())(*this, node);
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty()) continue;
      if (static_cast<size_t>(i) >= outs.size() || !outs[static_cast<size_t>(i)].get())
        throw error(node, "weft maps its output " + std::to_string(i) + " ('" + node.output(i) + "') to nothing");
      values_[node.output(i)] = outs[static_cast<size_t>(i)];
    }
  }
  std::vector<sdk::Expr> outputs;
  for (const onnx::ValueInfoProto& v : graph.output()) {
    auto it = values_.find(v.name());
    if (it == values_.end()) throw sdk::Error("output '" + v.name() + "' is computed by no node");
    outputs.push_back(it->second);
  }
  if (outputs.empty()) throw sdk::Error("the graph has no outputs");
  sdk::Expr body = outputs.size() == 1 ? outputs[0] : sdk::tuple(outputs);
  for (auto w = weights.rbegin(); w != weights.rend(); ++w) body = sdk::let(w->first, w->second, body);
  return sdk::Module::make({{"main", sdk::function(params_, body)}});
}

}  // namespace onnx_frontend
