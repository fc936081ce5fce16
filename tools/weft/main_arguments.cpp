// Binding named tensors and random data to main's parameters (see main_arguments.h).
#include "main_arguments.h"

#include <weft/sdk/float_convert.hpp>
#include <weft/sdk/numpy_random.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "weft/error.h"
#include "weft/names.h"
#include "weft/type.h"

namespace weft::cli {

namespace {

// Parameters filled at random are named one line each up to this many.
constexpr size_t kDrawnOneByOne = 8;

Type param_type(const Var& p) { return p->type_annotation.defined() ? p->type_annotation : p->checked_type(); }

const TensorTypeNode* as_tensor_type(const Type& t) {
  return t.defined() && t->kind == TypeKind::kTensor ? static_cast<const TensorTypeNode*>(t.get()) : nullptr;
}

bool matches(const TensorTypeNode& type, const std::vector<int64_t>& shape, DataType dtype) {
  if (type.dtype != dtype || type.ndim() != static_cast<int>(shape.size())) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (type.shape[i] != kAnyDim && type.shape[i] != shape[i]) return false;
  return true;
}

std::string parameter_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// One draw per element, as the NumPy expressions in main_arguments.h.
Tensor draw(const TensorTypeNode& type, sdk::NumpyRandomState& state) {
  Tensor t = Tensor::empty(type.shape, type.dtype);
  DLDataType dl{type.dtype.code, type.dtype.bits, type.dtype.lanes};
  auto* out = static_cast<std::byte*>(t.data());
  size_t itemsize = type.dtype.bytes();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (sdk::is_storable_float(dl)) {
      sdk::store_float(t.data(), dl, i, state.uniform(0.0, 1.0));
      continue;
    }
    double v = type.dtype.is_bool() ? (state.uniform(0.0, 1.0) < 0.5 ? 1.0 : 0.0) : std::floor(state.uniform(0.0, 10.0));
    Tensor element = Tensor::scalar(v, type.dtype);
    std::memcpy(out + static_cast<size_t>(i) * itemsize, element.data(), itemsize);
  }
  return t;
}

}  // namespace

TensorHeaderCheck parameter_header_check(const Function& main, const std::string& label) {
  std::map<std::string, Type> types;
  const std::vector<std::string> names = param_names(main);
  for (size_t i = 0; i < names.size(); ++i) types.emplace(names[i], param_type(main->params[i]));
  return [types = std::move(types), label](const std::string& name, const std::vector<int64_t>& shape, DataType dtype) {
    // Names and non-tensor parameters are reported by bind_main_arguments;
    // a tensor whose header already shows a wrong type is refused here.
    auto it = types.find(name);
    const TensorTypeNode* type = it == types.end() ? nullptr : as_tensor_type(it->second);
    if (!type || matches(*type, shape, dtype)) return;
    throw Error("'" + name + "' in " + label + " is " + type_to_text(tensor_type(shape, dtype)) +
                ", not main's parameter type")
        .expected(type_to_text(it->second));
  };
}

std::vector<Value> bind_main_arguments(const Function& main, const std::vector<NamedSource>& sources, uint32_t seed,
                                       std::ostream& notes) {
  // Parameters bind by their user-facing names, which are unique (lstm's
  // per-step inputs, all named `data`, are data, data1, data2, ...).
  const std::vector<std::string> names = param_names(main);
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < names.size(); ++i) index_of.emplace(names[i], i);
  std::vector<std::optional<Tensor>> given(main->params.size());
  std::vector<std::string> given_by(main->params.size());
  for (const NamedSource& source : sources) {
    for (const auto& [name, tensor] : source.tensors) {
      auto it = index_of.find(name);
      if (it == index_of.end())
        throw Error("'" + name + "' in " + source.label + " is not a parameter of main")
            .expected("one of: " + parameter_list(names));
      size_t i = it->second;
      if (given[i] && given_by[i] != source.label)
        throw Error("'" + name + "' is given twice, in " + given_by[i] + " and in " + source.label);
      Type type = param_type(main->params[i]);
      const TensorTypeNode* tensor_type = as_tensor_type(type);
      if (!tensor_type)
        throw Error("parameter '" + name + "' has type " + type_to_text(type) + ", which a tensor file cannot give");
      if (!matches(*tensor_type, tensor.shape(), tensor.dtype()))
        throw Error("'" + name + "' in " + source.label + " is " + describe(tensor) + ", not main's parameter type")
            .expected(type_to_text(type));
      given[i] = tensor;
      given_by[i] = source.label;
    }
  }

  sdk::NumpyRandomState state(seed);
  std::vector<Value> args;
  std::vector<std::pair<std::string, std::string>> drawn;  // name and type of each parameter filled at random
  for (size_t i = 0; i < main->params.size(); ++i) {
    if (given[i]) {
      args.emplace_back(*given[i]);
      continue;
    }
    const Var& p = main->params[i];
    Type type = param_type(p);
    const TensorTypeNode* tensor_type = as_tensor_type(type);
    if (!tensor_type || !tensor_type->is_static())
      throw Error("parameter '" + names[i] + "' of type " + type_to_text(type) +
                  " is not given and cannot be drawn at random")
          .expected("it in --inputs or --params (random data needs a tensor type with a static shape)");
    drawn.emplace_back(names[i], type_to_text(type));
    args.emplace_back(draw(*tensor_type, state));
  }
  // A line each, but one line for many (the lstm's per-step inputs).
  if (drawn.size() <= kDrawnOneByOne) {
    for (const auto& [name, type] : drawn)
      notes << "weft: '" << name << "' not given: filled with random " << type << " (seed " << seed << ")\n";
  } else {
    notes << "weft: " << drawn.size() << " parameters not given: filled with random data (seed " << seed << "):";
    for (size_t i = 0; i < kDrawnOneByOne; ++i) notes << " '" << drawn[i].first << "' " << drawn[i].second << ",";
    notes << " and " << drawn.size() - kDrawnOneByOne << " more\n";
  }
  return args;
}

}  // namespace weft::cli
