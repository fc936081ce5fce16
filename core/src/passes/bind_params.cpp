// BindParams: named parameters of main become constants, as relay.build(params=...)
// does through bind_params_by_name, with every mismatch an error up front.
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/names.h"
#include "weft/passes.h"

namespace weft {

namespace {

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// The tensor must fit the parameter's type: annotated, else inferred, else anything.
void check_fits(const Var& param, const std::string& name, const Tensor& value) {
  Type type = param->type_annotation.defined() ? param->type_annotation : param->checked_type();
  if (!type.defined()) return;
  const auto* tensor = type->kind == TypeKind::kTensor ? static_cast<const TensorTypeNode*>(type.get()) : nullptr;
  if (!tensor) throw Error("BindParams: parameter '" + name + "' of main has type " + type_to_text(type) + ", not a tensor type");
  bool fits = tensor->dtype == value.dtype() && tensor->ndim() == static_cast<int>(value.shape().size());
  for (size_t i = 0; fits && i < value.shape().size(); ++i)
    fits = tensor->shape[i] == kAnyDim || tensor->shape[i] == value.shape()[i];
  if (!fits)
    throw Error("BindParams: the value for parameter '" + name + "' of main is " + describe(value))
        .expected(type_to_text(type));
}

}  // namespace

Function bind_params(const Function& fn, const std::map<std::string, Tensor>& params) {
  if (params.empty()) return fn;
  const std::vector<std::string> names = param_names(fn);
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < names.size(); ++i) index_of.emplace(names[i], i);
  std::unordered_map<const VarNode*, Expr> values;
  std::vector<bool> bound(names.size(), false);
  for (const auto& [name, tensor] : params) {
    auto it = index_of.find(name);
    if (it == index_of.end())
      throw Error("BindParams: '" + name + "' is not a parameter of main").expected("one of: " + name_list(names));
    check_fits(fn->params[it->second], name, tensor);
    values.emplace(fn->params[it->second].get(), constant(tensor));
    bound[it->second] = true;
  }
  std::vector<Var> kept;
  for (size_t i = 0; i < fn->params.size(); ++i)
    if (!bound[i]) kept.push_back(fn->params[i]);
  return function(std::move(kept), substitute_vars(fn->body, std::move(values)), fn->ret_type, fn->attrs);
}

IRModule bind_params(const IRModule& mod, const std::map<std::string, Tensor>& params) {
  if (!mod.contains("main")) throw Error("BindParams: the module has no @main");
  IRModule out = mod;
  out.add(mod.global_var("main"), bind_params(mod.main(), params));
  return out;
}

Pass BindParams(std::map<std::string, Tensor> params) {
  return create_module_pass({"BindParams", 0, {}}, [params = std::move(params)](IRModule mod, const PassContext&) {
    return bind_params(mod, params);
  });
}

}  // namespace weft
