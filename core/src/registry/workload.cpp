// create_workload: type inference, then every parameter of main but `data`
// filled in order by one initializer instance, as tvm.relay.testing does,
// each saved under its user-facing name (names.h).
#include "weft/workload.h"

#include "weft/error.h"
#include "weft/initializer.h"
#include "weft/names.h"
#include "weft/passes.h"
#include "weft/type.h"

namespace weft {

namespace {

/// The static tensor type of a typed parameter; weft::Error naming it otherwise.
const TensorTypeNode& fillable_type(const Var& param, const std::string& name) {
  const Type& type = param->has_type() ? param->checked_type() : param->type_annotation;
  const auto* tensor =
      type.defined() && type->kind == TypeKind::kTensor ? static_cast<const TensorTypeNode*>(type.get()) : nullptr;
  if (tensor == nullptr || !tensor->is_static()) {
    throw Error("create_workload cannot fill parameter '" + name + "' of type " +
                (type.defined() ? type_to_text(type) : std::string("unknown")))
        .expected("a tensor type with a static shape");
  }
  return *tensor;
}

}  // namespace

Workload create_workload(const IRModule& mod, std::string_view initializer, uint64_t seed,
                         const Attrs& initializer_params) {
  Workload workload{infer_type(mod), {}};
  const Function main = workload.mod.main();
  const std::vector<std::string> names = param_names(main);
  InitializerFill fill = make_initializer(initializer, seed, initializer_params);
  for (size_t i = 0; i < main->params.size(); ++i) {
    const Var& p = main->params[i];
    // As the reference, which skips every parameter whose name hint is
    // `data` (lstm's per-step inputs are all `data`) and hands the
    // initializer the hint, whose suffix (_weight, _bias, ...) it goes by.
    if (p->name_hint == "data") continue;
    const TensorTypeNode& type = fillable_type(p, names[i]);
    Tensor value = Tensor::zeros(type.shape, type.dtype);
    fill(p->name_hint, value);
    workload.params.emplace_back(names[i], std::move(value));
  }
  return workload;
}

Workload create_workload(const Function& fn, std::string_view initializer, uint64_t seed,
                         const Attrs& initializer_params) {
  return create_workload(IRModule::from_function(fn), initializer, seed, initializer_params);
}

}  // namespace weft
