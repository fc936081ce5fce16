// A plugin's C descriptors turned into the core's definitions (see definitions.h).
#include "definitions.h"
#include "plugin_requirements.h"

#include <optional>

namespace weft::plugin_host {

namespace {

std::string str(const char* s) { return s ? s : ""; }

std::vector<DLTensor> dlpack_views(std::span<const Tensor> tensors) {
  std::vector<DLTensor> out;
  for (const Tensor& t : tensors) out.push_back(t.dlpack_view());
  return out;
}

/// The plugin's user data, destroyed with the last definition that uses it.
std::shared_ptr<void> own_user_data(void* user_data, weft_destroy_fn destroy) {
  return std::shared_ptr<void>(user_data, [destroy](void* p) {
    if (destroy && p) destroy(p);
  });
}

}  // namespace

weft_attrs_t* borrow_attrs(const Attrs& a) { return borrow_handle<weft_attrs_t>(a ? a : empty_attrs()); }

AttrSchema schema_of(const weft_attr_field_t* fields, size_t n, const std::string& owner) {
  AttrSchema schema;
  for (size_t i = 0; i < n; ++i) {
    weft_attr_field_t f = read_element(fields, i, "weft_attr_field_t");
    if (!f.name) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, owner + ": attribute field " + std::to_string(i) + " has no name"};
    AttrField field;
    field.name = f.name;
    field.type = static_cast<AttrType>(f.type);
    if (f.default_value) field.default_value = value_of(f.default_value);
    if (f.text_default) field.text_default = value_of(f.text_default);
    field.doc = str(f.doc);
    field.expected = str(f.expected);
    if (f.normalize) {
      auto fn = f.normalize;
      void* ud = f.normalize_user_data;
      field.normalize = [fn, ud](const AttrValue& v) -> std::optional<AttrValue> {
        Ref<const AttrValueBox> in = make_ref<AttrValueBox>(v);
        weft_attr_value_t* out = nullptr;
        // The plugin's reason reaches the user (AttrSchema::normalize adds the attr and the value).
        if (auto err = take_error(fn(ud, borrow_handle<weft_attr_value_t>(in), &out))) throw *err;
        if (!out) return std::nullopt;
        return adopt<AttrValueBox>(out, "an attribute value")->value;
      };
    }
    schema.add(std::move(field));
  }
  return schema;
}

OpDef op_definition(const weft_op_desc_t& d, const std::string& plugin) {
  auto ud = own_user_data(d.user_data, d.destroy_user_data);
  std::string name = str(d.name);
  require(d.type_relation, "op '" + name + "': type_relation");

  OpDef def;
  def.name = name;
  def.description = str(d.description);
  for (size_t i = 0; i < d.num_inputs; ++i) {
    weft_op_input_t in = read_element(d.inputs, i, "weft_op_input_t");
    def.inputs.push_back(OpInput{str(in.name), str(in.type_desc), str(in.doc)});
  }
  def.variadic = d.variadic != 0;
  def.attrs = schema_of(d.attrs, d.num_attrs, "op '" + name + "'");
  def.pattern = static_cast<OpPattern>(d.pattern);
  def.is_reshape = d.is_reshape != 0;
  def.is_layout_layer = d.is_layout_layer != 0;
  def.support_level = d.support_level > 0 ? d.support_level : 10;
  def.plugin = plugin;

  auto relation = d.type_relation;
  def.relation = [relation, ud, name](std::span<const Type> args, const Attrs& attrs) -> Type {
    std::vector<weft_type_t*> handles;
    for (const Type& t : args) handles.push_back(borrow_handle<weft_type_t>(t));
    weft_type_t* out = nullptr;
    if (auto err = take_error(relation(ud.get(), handles.data(), handles.size(), borrow_attrs(attrs), &out))) {
      throw Error(*err).op(name);
    }
    if (!out) throw Error("the type relation returned no type").op(name);
    return adopt<TypeNode>(out, "a type");
  };
  if (auto kernel = d.kernel) {
    def.kernel = [kernel, ud, name](std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                                    const Attrs& attrs) {
      std::vector<DLTensor> in = dlpack_views(inputs), out = dlpack_views(outputs);
      if (auto err = take_error(kernel(ud.get(), in.data(), in.size(), out.data(), out.size(), borrow_attrs(attrs)))) {
        throw Error(*err).op(name);
      }
    };
  }
  if (d.prepare_kernel || d.run_prepared_kernel || d.release_kernel_plan) {
    if (!d.prepare_kernel || !d.run_prepared_kernel || !d.release_kernel_plan)
      throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                        "op '" + name + "': prepare_kernel, run_prepared_kernel and release_kernel_plan are set "
                        "together or not at all"};
    require(d.kernel, "op '" + name + "': kernel (the unprepared runs of an op with a prepared kernel)");
    def.prepare_kernel = [prepare = d.prepare_kernel, run = d.run_prepared_kernel, release = d.release_kernel_plan,
                          ud, name](std::span<const Type> arg_types, const Attrs& call_attrs) -> ReferenceKernel {
      std::vector<weft_type_t*> handles;
      for (const Type& t : arg_types) handles.push_back(borrow_handle<weft_type_t>(t));
      void* plan = nullptr;
      if (auto err = take_error(prepare(ud.get(), handles.data(), handles.size(), borrow_attrs(call_attrs), &plan)))
        throw Error(*err).op(name).note("in preparing its kernel");
      std::shared_ptr<void> owned(plan, [release, ud](void* p) {
        if (p) release(ud.get(), p);
      });
      return [run, ud, name, owned](std::span<const Tensor> inputs, std::span<const Tensor> outputs,
                                    const Attrs& attrs) {
        std::vector<DLTensor> in = dlpack_views(inputs), out = dlpack_views(outputs);
        if (auto err = take_error(
                run(ud.get(), owned.get(), in.data(), in.size(), out.data(), out.size(), borrow_attrs(attrs))))
          throw Error(*err).op(name);
      };
    };
  }
  if (auto gradient = d.gradient) {
    def.gradient = [gradient, ud, name, plugin](const Call& call, const Expr& output_grad) {
      PluginCallScope scope(plugin, "the gradient of op " + name);
      size_t n = call->args.size();
      std::vector<weft_expr_t*> outs(n, nullptr);
      auto err = take_error(gradient(ud.get(), borrow_handle<weft_expr_t>(call),
                                     borrow_handle<weft_expr_t>(output_grad), outs.data(), n));
      std::vector<Expr> grads;
      for (weft_expr_t* h : outs) grads.push_back(h ? adopt<ExprNode>(h, "an expression") : Expr());
      if (err) throw Error(*err).op(name).note("in its gradient");
      for (size_t i = 0; i < n; ++i) {
        if (!grads[i]) throw Error("the gradient left input " + std::to_string(i) + " unset").op(name);
      }
      return grads;
    };
  }
  if (auto compute = d.te_compute) {
    def.te_compute = [compute, ud, name, plugin](std::span<const te::Tensor> inputs, const Attrs& attrs,
                                                 const Type& out_type) {
      PluginCallScope scope(plugin, "the TE compute of op " + name);
      std::vector<weft_te_tensor_t*> in;
      for (const te::Tensor& t : inputs) in.push_back(borrow_handle<weft_te_tensor_t>(t));
      std::vector<weft_te_tensor_t*> out(flat_tensor_count(out_type), nullptr);
      auto err = take_error(compute(ud.get(), in.data(), in.size(), borrow_attrs(attrs),
                                    borrow_handle<weft_type_t>(out_type), out.data(), out.size()));
      std::vector<te::Tensor> outputs;
      for (weft_te_tensor_t* h : out) outputs.push_back(h ? te::Tensor(adopt<te::TensorNode>(h, "a TE tensor").get()) : te::Tensor());
      if (err) throw Error(*err).op(name).note("in its te_compute");
      return outputs;
    };
  }
  if (auto infer = d.infer_inputs) {
    def.infer_inputs = [infer, ud, name](std::span<const Type> args, const Attrs& attrs) {
      std::vector<weft_type_t*> handles;
      for (const Type& t : args) handles.push_back(borrow_handle<weft_type_t>(t));
      std::vector<weft_type_t*> outs(args.size(), nullptr);
      auto err = take_error(infer(ud.get(), handles.data(), handles.size(), borrow_attrs(attrs), outs.data()));
      std::vector<Type> given;
      for (weft_type_t* h : outs) given.push_back(h ? adopt<TypeNode>(h, "a type") : Type());
      if (err) throw Error(*err).op(name);
      return given;
    };
  }
  if (auto infer = d.infer_layout) {
    def.infer_layout = [infer, ud, name](const Attrs& attrs, std::span<const Layout> new_in,
                                         std::span<const Layout> old_in, std::span<const Type> types) {
      auto names_of = [](std::span<const Layout> layouts) {
        std::vector<std::string> out;
        for (const Layout& l : layouts) out.push_back(l.name());
        return out;
      };
      std::vector<std::string> new_names = names_of(new_in), old_names = names_of(old_in);
      auto c_strs = [](const std::vector<std::string>& v) {
        std::vector<const char*> out;
        for (const std::string& x : v) out.push_back(x.c_str());
        return out;
      };
      std::vector<const char*> new_c = c_strs(new_names), old_c = c_strs(old_names);
      std::vector<weft_type_t*> handles;
      for (const Type& t : types) handles.push_back(borrow_handle<weft_type_t>(t));
      const char* const* ins = nullptr;
      const char* const* outs = nullptr;
      size_t num_ins = 0, num_outs = 0;
      weft_attrs_t* new_attrs = nullptr;
      auto err = take_error(infer(ud.get(), borrow_attrs(attrs), new_in.empty() ? nullptr : new_c.data(),
                                  old_c.data(), old_in.size(), handles.data(), handles.size(), &ins, &num_ins,
                                  &outs, &num_outs, &new_attrs));
      Attrs given = new_attrs ? adopt<AttrsNode>(new_attrs, "an attribute dictionary") : Attrs();
      if (err) throw in_context("its layout inference", *err).op(name);
      InferredLayouts out{{}, {}, given};
      auto read = [&](const char* l) {
        if (!l) throw Error("the layout inference left a layout unset").op(name);
        try {
          return Layout(l);
        } catch (const LayoutError& e) {
          throw Error(std::string("the layout inference returned a bad layout: ") + e.what()).op(name);
        }
      };
      for (size_t i = 0; i < num_ins; ++i) out.inputs.push_back(read(ins[i]));
      for (size_t i = 0; i < num_outs; ++i) out.outputs.push_back(read(outs[i]));
      return out;
    };
  }
  if (auto convert = d.convert_layout) {
    def.convert_layout = [convert, ud, name](const Call& call, std::span<const std::string> desired) -> Expr {
      std::vector<const char*> c;
      for (const std::string& x : desired) c.push_back(x.c_str());
      weft_expr_t* out = nullptr;
      auto err = take_error(convert(ud.get(), borrow_handle<weft_expr_t>(call), c.data(), c.size(), &out));
      Expr converted = out ? adopt<ExprNode>(out, "an expression") : Expr();
      if (err) throw in_context("its convert_layout", *err).op(name);
      return converted;
    };
  }
  for (size_t i = 0; i < d.num_rewrites; ++i) {
    weft_op_rewrite_t r = read_element(d.rewrites, i, "weft_op_rewrite_t");
    std::string what = "op '" + name + "': rewrite " + std::to_string(i);
    if (!r.name || !*r.name) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, what + " has no name"};
    require(r.fn, what + " ('" + r.name + "')'s fn");
    std::string rewrite = r.name;
    auto fn = r.fn;
    void* rewrite_ud = r.user_data;
    // Holding ud keeps the plugin's data, where rewrite_ud lives, as long as the rewrite.
    bool fresh = def.rewrites
                     .emplace(rewrite,
                              [fn, rewrite_ud, ud, name, rewrite, plugin](const Call& call) -> Expr {
                                PluginCallScope scope(plugin, "rewrite '" + rewrite + "' of op " + name);
                                weft_expr_t* out = nullptr;
                                auto err = take_error(fn(rewrite_ud, borrow_handle<weft_expr_t>(call), &out));
                                Expr replacement = out ? adopt<ExprNode>(out, "an expression") : Expr();
                                if (err) throw in_context("rewrite '" + rewrite + "'", *err).op(name);
                                return replacement;
                              })
                     .second;
    if (!fresh) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "op '" + name + "' has two rewrites named '" + rewrite + "'"};
  }
  return def;
}

ModelDef model_definition(const weft_model_desc_t& d, const std::string& plugin) {
  auto ud = own_user_data(d.user_data, d.destroy_user_data);
  std::string name = str(d.name);
  require(d.build, "model '" + name + "': build");
  ModelDef def;
  def.name = name;
  def.description = str(d.description);
  def.params = schema_of(d.params, d.num_params, "model '" + name + "'");
  def.plugin = plugin;
  for (size_t i = 0; i < d.num_variants; ++i) {
    weft_model_variant_t v = read_element(d.variants, i, "weft_model_variant_t");
    def.variants.push_back(ModelVariant{str(v.suffix), attrs_of(v.fixed), str(v.doc)});
  }
  if (d.initializer) def.initializer = d.initializer;
  auto build = d.build;
  def.build = [build, ud, name, plugin](const Attrs& params) -> Function {
    PluginCallScope scope(plugin, "the builder of model " + name);
    weft_expr_t* out = nullptr;
    if (auto err = take_error(build(ud.get(), borrow_attrs(params), &out))) throw in_context("model " + name, *err);
    if (!out) throw Error("model " + name + ": the builder returned no function");
    Expr e = adopt<ExprNode>(out, "an expression");
    Function fn = downcast<FunctionNode>(e);
    if (!fn) throw Error("model " + name + ": the builder returned a " + std::string(expr_kind_name(e->kind)) + ", not a function");
    return fn;
  };
  return def;
}

InitializerDef initializer_definition(const weft_initializer_desc_t& d, const std::string& plugin) {
  auto ud = own_user_data(d.user_data, d.destroy_user_data);
  std::string name = str(d.name);
  require(d.create_state, "initializer '" + name + "': create_state");
  require(d.fill, "initializer '" + name + "': fill");
  require(d.destroy_state, "initializer '" + name + "': destroy_state");
  InitializerDef def;
  def.name = name;
  def.description = str(d.description);
  def.params = schema_of(d.params, d.num_params, "initializer '" + name + "'");
  def.plugin = plugin;
  auto create = d.create_state;
  auto fill = d.fill;
  auto destroy = d.destroy_state;
  def.create = [=](const Attrs& params, uint64_t seed) -> InitializerFill {
    void* raw = nullptr;
    if (auto err = take_error(create(ud.get(), borrow_attrs(params), seed, &raw))) {
      throw in_context("initializer " + name, *err);
    }
    std::shared_ptr<void> state(raw, [ud, destroy](void* s) { destroy(ud.get(), s); });
    return [state, ud, fill, name](std::string_view param, const Tensor& out) {
      DLTensor view = out.dlpack_view();
      std::string param_name(param);
      if (auto err = take_error(fill(ud.get(), state.get(), param_name.c_str(), &view))) {
        throw in_context("initializer " + name + ", parameter " + param_name, *err);
      }
    };
  };
  return def;
}

PassDef pass_definition(const weft_pass_desc_t& d, const std::string& plugin) {
  auto ud = own_user_data(d.user_data, d.destroy_user_data);
  std::string name = str(d.name);
  if (!d.run_in_context) require(d.run, "pass '" + name + "': run (or run_in_context)");
  PassInfo info{name, d.opt_level, {}};
  for (size_t i = 0; i < d.num_required; ++i) info.required.push_back(str(d.required[i]));
  auto run = d.run;
  auto run_in_context = d.run_in_context;
  Pass::ModuleFn fn = [run, run_in_context, ud, name, plugin](IRModule mod, const PassContext& ctx) -> IRModule {
    PluginCallScope scope(plugin, "pass " + name);
    Ref<const ModuleBox> in = make_ref<ModuleBox>(std::move(mod));
    weft_module_t* out = nullptr;
    weft_module_t* module = borrow_handle<weft_module_t>(in);
    weft_status_t status = run_in_context ? run_in_context(ud.get(), module, borrow_pass_context(ctx), &out)
                                          : run(ud.get(), module, &out);
    if (auto err = take_error(status)) throw in_context("pass " + name, *err);
    if (!out) throw Error("pass " + name + ": returned no module");
    return adopt<ModuleBox>(out, "a module")->module;
  };
  return PassDef{name, [info, fn] { return create_module_pass(info, fn); }, plugin};
}

FrontendDef frontend_definition(const weft_frontend_desc_t& d, const std::string& plugin) {
  auto ud = own_user_data(d.user_data, d.destroy_user_data);
  std::string name = str(d.name);
  require(d.import_file, "frontend '" + name + "': import_file");
  FrontendDef def;
  def.name = name;
  def.description = str(d.description);
  for (size_t i = 0; i < d.num_extensions; ++i) def.extensions.push_back(str(d.extensions[i]));
  def.options = schema_of(d.options, d.num_options, "frontend '" + name + "'");
  def.plugin = plugin;
  auto import_file = d.import_file;
  def.import_file = [import_file, ud, name](const std::string& path, const Attrs& options) -> IRModule {
    weft_module_t* out = nullptr;
    if (auto err = take_error(import_file(ud.get(), path.c_str(), borrow_attrs(options), &out))) {
      throw in_context("frontend " + name, *err).at(SourceLoc{path, 0, 0});
    }
    if (!out) throw Error("frontend " + name + ": returned no module").at(SourceLoc{path, 0, 0});
    return adopt<ModuleBox>(out, "a module")->module;
  };
  return def;
}

}  // namespace weft::plugin_host
