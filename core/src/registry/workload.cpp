// create_workload: type inference, then every parameter of main but `data`
// filled in order by one initializer instance, as tvm.relay.testing does.
#include "weft/workload.h"

#include <set>

#include "weft/error.h"
#include "weft/initializer.h"
#include "weft/passes.h"
#include "weft/type.h"

namespace weft {

namespace {

/// The static tensor type of a typed parameter; weft::Error naming it otherwise.
const TensorTypeNode& fillable_type(const Var& param) {
  const Type& type = param->has_type() ? param->checked_type() : param->type_annotation;
  const auto* tensor =
      type.defined() && type->kind == TypeKind::kTensor ? static_cast<const TensorTypeNode*>(type.get()) : nullptr;
  if (tensor == nullptr || !tensor->is_static()) {
    throw Error("create_workload cannot fill parameter '" + param->name_hint + "' of type " +
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
  // Parameters are filled (and saved) by name, so a name may not repeat; only
  // `data`, which is never filled, may (lstm has one `data` input per step).
  std::set<std::string> names;
  for (const Var& p : main->params) {
    if (p->name_hint != "data" && !names.insert(p->name_hint).second) {
      throw Error("create_workload: two parameters of main are named '" + p->name_hint + "'")
          .expected("distinct parameter names, under which the parameters are filled and saved");
    }
  }
  InitializerFill fill = make_initializer(initializer, seed, initializer_params);
  for (const Var& p : main->params) {
    if (p->name_hint == "data") continue;
    const TensorTypeNode& type = fillable_type(p);
    Tensor value = Tensor::zeros(type.shape, type.dtype);
    fill(p->name_hint, value);
    workload.params.emplace_back(p->name_hint, std::move(value));
  }
  return workload;
}

Workload create_workload(const Function& fn, std::string_view initializer, uint64_t seed,
                         const Attrs& initializer_params) {
  return create_workload(IRModule::from_function(fn), initializer, seed, initializer_params);
}

}  // namespace weft
