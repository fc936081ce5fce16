#include "weft/testing/random_data.h"

#include <weft/sdk/float_convert.hpp>

#include "weft/error.h"
#include "weft/names.h"
#include "weft/testing/passes.h"
#include "weft/type.h"

namespace weft::testing {

namespace {
DLDataType to_dl(DataType t) { return DLDataType{t.code, t.bits, t.lanes}; }
}  // namespace

Tensor rand(DataType dtype, const std::vector<int64_t>& shape, sdk::NumpyRandomState& state, double low,
            double high) {
  if (!sdk::is_storable_float(to_dl(dtype))) {
    throw Error("rand draws floating-point tensors, not " + dtype.str())
        .expected("float16, float32, float64 or bfloat16");
  }
  for (int64_t d : shape) {
    if (d < 0) throw Error("rand: negative dimension in the shape").expected("non-negative extents");
  }
  Tensor t = Tensor::empty(shape, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) sdk::store_float(t.data(), to_dl(dtype), i, state.uniform(low, high));
  return t;
}

Tensor rand(DataType dtype, const std::vector<int64_t>& shape, uint32_t seed) {
  sdk::NumpyRandomState state(seed);
  return rand(dtype, shape, state);
}

std::vector<std::pair<std::string, Tensor>> random_inputs(const Function& fn, uint32_t seed, double low, double high) {
  bool annotated = true;
  for (const Var& p : fn->params) annotated = annotated && p->type_annotation.defined();
  const Function typed = annotated ? fn : downcast<FunctionNode>(run_infer_type(fn));
  sdk::NumpyRandomState state(seed);
  std::vector<std::pair<std::string, Tensor>> inputs;
  const std::vector<std::string> names = param_names(typed);
  for (size_t i = 0; i < names.size(); ++i) {
    const Var& p = typed->params[i];
    const Type& type = p->type_annotation.defined() ? p->type_annotation : p->checked_type();
    const auto* tensor = type.defined() && type->kind == TypeKind::kTensor
                             ? static_cast<const TensorTypeNode*>(type.get())
                             : nullptr;
    if (tensor == nullptr || !tensor->is_static() || !tensor->dtype.is_float()) {
      throw Error("cannot draw an input for parameter '" + names[i] + "' of type " +
                  (type.defined() ? type_to_text(type) : std::string("unknown")))
          .expected("a tensor type with static shape and a float dtype");
    }
    inputs.emplace_back(names[i], rand(tensor->dtype, tensor->shape, state, low, high));
  }
  return inputs;
}

}  // namespace weft::testing
