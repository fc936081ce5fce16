// weft plugin SDK: fluent registration of ops, models, initializers, passes,
// targets and frontends, with C trampolines that turn exceptions into
// statuses. Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/attr_schema.hpp>
#include <weft/sdk/ir.hpp>
#include <weft/sdk/layout_inference.hpp>
#include <weft/sdk/pass_context.hpp>
#include <weft/sdk/target.hpp>
#include <weft/sdk/te.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::sdk {

// ---- Registration ----------------------------------------------------------------------------

using TypeRelation = std::function<Type(const std::vector<Type>& args, const Attrs& attrs)>;
using Kernel = std::function<void(const KernelArgs& args)>;
using Gradient = std::function<std::vector<Expr>(const Expr& call, const Expr& output_grad)>;
/// Argument types in (unknown parts are incomplete types); out: for each
/// argument the type it must have, or an empty Type where it cannot tell.
using InputInference = std::function<std::vector<Type>(const std::vector<Type>& args, const Attrs& attrs)>;
/// A typed call of the op in; out: its replacement (of the call's type), or
/// an empty Expr where the rewrite does not apply.
using CallRewrite = std::function<Expr(const Expr& call)>;

/// The op's outputs as tensor expressions over its inputs (placeholders of
/// the call's input tensors, a tuple argument's fields one by one), given
/// the call's attrs and type: one tensor per output tensor, of its shape and
/// dtype. Throw Unsupported where the op has no TE for a call.
using TeCompute = std::function<std::vector<te::Tensor>(const std::vector<te::Tensor>& inputs, const Attrs& attrs,
                                                        const Type& out_type)>;

/// Fluent description of one op; registered when the plugin's init returns.
class OpBuilder {
 public:
  explicit OpBuilder(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  OpBuilder& describe(std::string text) { description_ = std::move(text); return *this; }
  OpBuilder& input(std::string name, std::string type_desc = "Tensor", std::string doc = "") {
    inputs_.push_back({std::move(name), std::move(type_desc), std::move(doc)});
    return *this;
  }
  /// Accepts any number of inputs.
  OpBuilder& variadic() { variadic_ = true; return *this; }
  /// An attribute with a default (its type follows the default's C++ type).
  template <typename T>
  OpBuilder& attr(std::string name, T default_value, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), detail::attr_type_of<T>(), Value(default_value), std::move(doc), std::move(expected));
    return *this;
  }
  /// An attribute of an explicit type, e.g. WEFT_ATTR_ANY for one a normalizer
  /// turns into a single form (padding: an int or a list).
  OpBuilder& attr(std::string name, weft_attr_type_t type, Value default_value, std::string doc,
                  std::string expected = "") {
    schema_.add(std::move(name), type, std::move(default_value), std::move(doc), std::move(expected));
    return *this;
  }
  /// An attribute of `type` that must be given.
  OpBuilder& attr_required(std::string name, weft_attr_type_t type, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), type, std::nullopt, std::move(doc), std::move(expected));
    return *this;
  }
  /// An attribute of `type` that defaults to None.
  OpBuilder& attr_optional(std::string name, weft_attr_type_t type, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), type, Value::none(), std::move(doc), std::move(expected));
    return *this;
  }
  /// Normal form of the attribute declared last (throw to reject a value).
  OpBuilder& normalize(Normalizer fn) { schema_.normalize_last(std::move(fn)); return *this; }
  /// The default of the attribute declared last for calls read from Relay
  /// text, where the reference's C++ attrs struct differs from its Python
  /// wrapper (whose default attr() takes): TVM prints only attrs that differ
  /// from the struct's. In normal form.
  OpBuilder& text_default(Value value) { schema_.text_default_last(std::move(value)); return *this; }
  /// The same for the attribute `attr` (one a shared helper declared).
  OpBuilder& text_default(const std::string& attr, Value value) {
    schema_.text_default_of(attr, std::move(value));
    return *this;
  }
  OpBuilder& support_level(int level) { support_level_ = level; return *this; }
  OpBuilder& pattern(weft_op_pattern_t p) { pattern_ = p; return *this; }
  /// The output is the first input's bytes under another shape (Relay's
  /// TReshapeOp); the graph executor then runs it as a view, with no kernel.
  OpBuilder& is_reshape() { is_reshape_ = true; return *this; }
  /// A layer ConvertLayout's skip_layers counts (ABI 1.6; Relay's LayoutConfig).
  OpBuilder& is_layout_layer() { is_layout_layer_ = true; return *this; }
  OpBuilder& type_relation(TypeRelation fn) { callbacks_->relation = std::move(fn); return *this; }
  OpBuilder& kernel(Kernel fn) { callbacks_->kernel = std::move(fn); return *this; }
  /// A kernel prepared per call site (ABI 1.8): `prepare(arg_types, attrs)`
  /// works out a plan from what every run of a call shares (a convolution's
  /// canonical shapes and windows), once where the host compiles the call;
  /// `run(plan, args)` runs it with each run's tensors, on any thread, so it
  /// only reads the plan. Runs without a call site (constant folding, hosts
  /// of 1.7) prepare from their tensors' types and run in one go, so the
  /// op's arguments must be tensors (not tuples). Replaces kernel().
  template <typename Prepare, typename Run>
  OpBuilder& prepared_kernel(Prepare prepare, Run run) {
    using Plan = std::decay_t<std::invoke_result_t<Prepare&, const std::vector<Type>&, const Attrs&>>;
    callbacks_->prepare = [prepare](const std::vector<Type>& args, const Attrs& attrs) -> std::shared_ptr<const void> {
      return std::make_shared<const Plan>(prepare(args, attrs));
    };
    callbacks_->run_prepared = [run](const void* plan, const KernelArgs& k) { run(*static_cast<const Plan*>(plan), k); };
    callbacks_->kernel = [prepare, run](const KernelArgs& k) {
      std::vector<Type> types;
      for (const TensorView& t : k.inputs) types.push_back(Type::tensor(t.shape(), t.dtype()));
      run(prepare(types, k.attrs), k);
    };
    return *this;
  }
  /// The op's TE compute (ABI 1.9; docs/te.md), which targets that generate
  /// code lower, fused with its neighbours. `fn` returns a te::Tensor, or a
  /// std::vector of them for an op of several outputs.
  template <typename F>
  OpBuilder& te_compute(F fn) {
    using Result = std::decay_t<std::invoke_result_t<F&, const std::vector<te::Tensor>&, const Attrs&, const Type&>>;
    if constexpr (std::is_same_v<Result, te::Tensor>) {
      callbacks_->te_compute = [fn](const std::vector<te::Tensor>& in, const Attrs& a, const Type& t) {
        return std::vector<te::Tensor>{fn(in, a, t)};
      };
    } else {
      callbacks_->te_compute = std::move(fn);
    }
    return *this;
  }
  OpBuilder& gradient(Gradient fn) { callbacks_->gradient = std::move(fn); return *this; }
  /// Types of arguments the others determine (an untyped weight from the
  /// data and attrs), as Relay's relations assign them.
  OpBuilder& infer_inputs(InputInference fn) { callbacks_->infer_inputs = std::move(fn); return *this; }
  /// The layouts the op needs and gives (ConvertLayout, AlterOpLayout follow
  /// it through the op); layouts::elementwise and layouts::broadcast serve
  /// many ops.
  OpBuilder& infer_layout(LayoutInference fn) { callbacks_->infer_layout = std::move(fn); return *this; }
  /// The op's calls rebuilt in the user's desired layouts (ConvertLayout).
  OpBuilder& convert_layout(LayoutConversion fn) { callbacks_->convert_layout = std::move(fn); return *this; }
  /// A named rewrite of the op's calls, applied by the passes that ask for
  /// it by name: "simplify_inference", "canonicalize", "simplify_expr".
  OpBuilder& rewrite(std::string name, CallRewrite fn) {
    for (const auto& r : callbacks_->rewrites) {
      if (r.first == name) throw Error("op '" + name_ + "' declares rewrite '" + name + "' twice");
    }
    callbacks_->rewrites.emplace_back(std::move(name), std::move(fn));
    return *this;
  }

  /// Called by the Registrar after the plugin's registration function.
  void register_with(weft_registrar_t* registrar) {
    if (!callbacks_->relation) throw Error("op '" + name_ + "' has no type_relation");
    std::vector<weft_op_input_t> inputs;
    for (const Input& in : inputs_) {
      inputs.push_back(weft_op_input_t{sizeof(weft_op_input_t), in.name.c_str(), in.type_desc.c_str(), in.doc.c_str()});
    }
    const auto& fields = schema_.descriptors();
    callbacks_->normalizers = schema_.normalizers();
    weft_op_desc_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.description = description_.c_str();
    d.inputs = inputs.data();
    d.num_inputs = inputs.size();
    d.variadic = variadic_ ? 1 : 0;
    d.attrs = fields.data();
    d.num_attrs = fields.size();
    d.pattern = pattern_;
    d.is_reshape = is_reshape_ ? 1 : 0;
    d.is_layout_layer = is_layout_layer_ ? 1 : 0;
    d.support_level = support_level_;
    d.type_relation = &relation_trampoline;
    d.kernel = callbacks_->kernel ? &kernel_trampoline : nullptr;
    if (callbacks_->prepare) {
      d.prepare_kernel = &prepare_kernel_trampoline;
      d.run_prepared_kernel = &run_prepared_kernel_trampoline;
      d.release_kernel_plan = &release_kernel_plan_trampoline;
    }
    d.gradient = callbacks_->gradient ? &gradient_trampoline : nullptr;
    d.te_compute = callbacks_->te_compute ? &te_compute_trampoline : nullptr;
    d.infer_inputs = callbacks_->infer_inputs ? &infer_inputs_trampoline : nullptr;
    d.infer_layout = callbacks_->infer_layout ? &infer_layout_trampoline : nullptr;
    d.convert_layout = callbacks_->convert_layout ? &convert_layout_trampoline : nullptr;
    std::vector<weft_op_rewrite_t> rewrites;
    for (auto& r : callbacks_->rewrites) {
      rewrites.push_back(weft_op_rewrite_t{sizeof(weft_op_rewrite_t), r.first.c_str(), &rewrite_trampoline, &r.second});
    }
    d.rewrites = rewrites.data();
    d.num_rewrites = rewrites.size();
    d.destroy_user_data = &detail::destroy<Callbacks>;
    d.user_data = callbacks_.release();  // the host owns it from here, even on failure
    check(host().register_op(registrar, &d));
  }

 private:
  struct Input {
    std::string name, type_desc, doc;
  };
  struct Callbacks {
    TypeRelation relation;
    Kernel kernel;
    std::function<std::shared_ptr<const void>(const std::vector<Type>&, const Attrs&)> prepare;
    std::function<void(const void* plan, const KernelArgs&)> run_prepared;
    Gradient gradient;
    TeCompute te_compute;
    InputInference infer_inputs;
    LayoutInference infer_layout;
    LayoutConversion convert_layout;
    std::vector<std::pair<std::string, CallRewrite>> rewrites;  // each one's address is its user_data
    std::vector<std::shared_ptr<Normalizer>> normalizers;
  };
  static weft_status_t rewrite_trampoline(void* ud, weft_expr_t* call, weft_expr_t** out) {
    return guarded([&] { *out = (*static_cast<CallRewrite*>(ud))(Handle<weft_expr_t>::borrow(call)).release(); });
  }
  static weft_status_t infer_layout_trampoline(void* ud, weft_attrs_t* attrs, const char* const* new_in,
                                               const char* const* old_in, size_t num_in, weft_type_t* const* types,
                                               size_t num_args, const char* const** out_inputs,
                                               size_t* out_num_inputs, const char* const** out_outputs,
                                               size_t* out_num_outputs, weft_attrs_t** out_attrs) {
    return guarded([&] {
      auto layouts_of = [](const char* const* names, size_t n) {
        std::vector<Layout> out;
        for (size_t i = 0; names && i < n; ++i) out.emplace_back(names[i]);
        return out;
      };
      InferredLayouts r = static_cast<Callbacks*>(ud)->infer_layout(
          Attrs(Handle<weft_attrs_t>::borrow(attrs)), layouts_of(new_in, num_in), layouts_of(old_in, num_in),
          detail::borrow_types(types, num_args));
      // The host copies the names before this thread calls again.
      thread_local std::vector<std::string> names;
      thread_local std::vector<const char*> pointers;
      names.clear();
      for (const auto* side : {&r.inputs, &r.outputs}) {
        for (const Layout& l : *side) names.push_back(l.name());
      }
      pointers.clear();
      for (const std::string& n : names) pointers.push_back(n.c_str());
      *out_inputs = pointers.data();
      *out_num_inputs = r.inputs.size();
      *out_outputs = pointers.data() + r.inputs.size();
      *out_num_outputs = r.outputs.size();
      if (r.attrs) *out_attrs = r.attrs.release();
    });
  }
  static weft_status_t convert_layout_trampoline(void* ud, weft_expr_t* call, const char* const* desired, size_t n,
                                                 weft_expr_t** out) {
    return guarded([&] {
      std::vector<std::string> layouts(desired, desired + n);
      *out = static_cast<Callbacks*>(ud)->convert_layout(Handle<weft_expr_t>::borrow(call), layouts).release();
    });
  }
  static weft_status_t infer_inputs_trampoline(void* ud, weft_type_t* const* args, size_t n, weft_attrs_t* attrs,
                                               weft_type_t** out) {
    return guarded([&] {
      std::vector<Type> given = static_cast<Callbacks*>(ud)->infer_inputs(detail::borrow_types(args, n),
                                                                          Attrs(Handle<weft_attrs_t>::borrow(attrs)));
      if (given.size() > n) throw Error("infer_inputs returned more types than the call has arguments");
      for (size_t i = 0; i < given.size(); ++i) out[i] = given[i].release();
    });
  }
  static weft_status_t relation_trampoline(void* ud, weft_type_t* const* args, size_t n, weft_attrs_t* attrs,
                                           weft_type_t** out) {
    return guarded([&] {
      Type t = static_cast<Callbacks*>(ud)->relation(detail::borrow_types(args, n),
                                                     Attrs(Handle<weft_attrs_t>::borrow(attrs)));
      if (!t) throw Error("type relation returned no type");
      *out = t.release();
    });
  }
  static KernelArgs kernel_args(const DLTensor* in, size_t n_in, DLTensor* out, size_t n_out, weft_attrs_t* attrs) {
    KernelArgs k;
    for (size_t i = 0; i < n_in; ++i) k.inputs.emplace_back(in[i]);
    for (size_t i = 0; i < n_out; ++i) k.outputs.emplace_back(out[i]);
    k.attrs = Handle<weft_attrs_t>::borrow(attrs);
    return k;
  }
  static weft_status_t kernel_trampoline(void* ud, const DLTensor* in, size_t n_in, DLTensor* out, size_t n_out,
                                         weft_attrs_t* attrs) {
    return guarded([&] { static_cast<Callbacks*>(ud)->kernel(kernel_args(in, n_in, out, n_out, attrs)); });
  }
  // A plan crosses the boundary as a heap-held shared_ptr, which erases its type.
  using PlanBox = std::shared_ptr<const void>;
  static weft_status_t prepare_kernel_trampoline(void* ud, weft_type_t* const* args, size_t n, weft_attrs_t* attrs,
                                                 void** out_plan) {
    return guarded([&] {
      PlanBox plan = static_cast<Callbacks*>(ud)->prepare(detail::borrow_types(args, n),
                                                          Attrs(Handle<weft_attrs_t>::borrow(attrs)));
      *out_plan = new PlanBox(std::move(plan));
    });
  }
  static weft_status_t run_prepared_kernel_trampoline(void* ud, const void* plan, const DLTensor* in, size_t n_in,
                                                      DLTensor* out, size_t n_out, weft_attrs_t* attrs) {
    return guarded([&] {
      static_cast<Callbacks*>(ud)->run_prepared(static_cast<const PlanBox*>(plan)->get(),
                                                kernel_args(in, n_in, out, n_out, attrs));
    });
  }
  static void release_kernel_plan_trampoline(void* /*ud*/, void* plan) { delete static_cast<PlanBox*>(plan); }
  static weft_status_t te_compute_trampoline(void* ud, weft_te_tensor_t* const* in, size_t n_in, weft_attrs_t* attrs,
                                             weft_type_t* out_type, weft_te_tensor_t** out, size_t n_out) {
    return guarded([&] {
      std::vector<te::Tensor> inputs;
      for (size_t i = 0; i < n_in; ++i) inputs.push_back(Handle<weft_te_tensor_t>::borrow(in[i]));
      std::vector<te::Tensor> outputs = static_cast<Callbacks*>(ud)->te_compute(
          inputs, Attrs(Handle<weft_attrs_t>::borrow(attrs)), Type(Handle<weft_type_t>::borrow(out_type)));
      if (outputs.size() != n_out) {
        throw Error("te_compute returned " + std::to_string(outputs.size()) + " tensors for " + std::to_string(n_out) +
                    " outputs");
      }
      for (size_t i = 0; i < n_out; ++i) out[i] = outputs[i].release();
    });
  }
  static weft_status_t gradient_trampoline(void* ud, weft_expr_t* call, weft_expr_t* grad, weft_expr_t** out,
                                           size_t n) {
    return guarded([&] {
      std::vector<Expr> grads = static_cast<Callbacks*>(ud)->gradient(Handle<weft_expr_t>::borrow(call),
                                                                      Handle<weft_expr_t>::borrow(grad));
      if (grads.size() != n) {
        throw Error("gradient returned " + std::to_string(grads.size()) + " expressions for " + std::to_string(n) +
                    " inputs");
      }
      for (size_t i = 0; i < n; ++i) out[i] = grads[i].release();
    });
  }

  std::string name_, description_;
  std::vector<Input> inputs_;
  bool variadic_ = false;
  detail::Schema schema_;
  int support_level_ = 10;
  weft_op_pattern_t pattern_ = WEFT_PATTERN_OPAQUE;
  bool is_reshape_ = false;
  bool is_layout_layer_ = false;
  std::unique_ptr<Callbacks> callbacks_ = std::make_unique<Callbacks>();
};

/// A model builder: parameters -> a Function expression.
class ModelBuilder {
 public:
  using Build = std::function<Expr(const Attrs& params)>;
  explicit ModelBuilder(std::string name) : name_(std::move(name)) {}
  ModelBuilder& describe(std::string text) { description_ = std::move(text); return *this; }
  template <typename T>
  ModelBuilder& param(std::string name, T default_value, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), detail::attr_type_of<T>(), Value(default_value), std::move(doc), std::move(expected));
    return *this;
  }
  ModelBuilder& param_required(std::string name, weft_attr_type_t type, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), type, std::nullopt, std::move(doc), std::move(expected));
    return *this;
  }
  /// A parameter of `type` whose default is None (e.g. a dtype that defaults to another parameter's).
  ModelBuilder& param_optional(std::string name, weft_attr_type_t type, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), type, Value::none(), std::move(doc), std::move(expected));
    return *this;
  }
  ModelBuilder& normalize(Normalizer fn) { schema_.normalize_last(std::move(fn)); return *this; }
  ModelBuilder& build(Build fn) { impl_->build = std::move(fn); return *this; }
  /// A named variant `<model>-<suffix>`: the suffix is literal text with at
  /// most one `{param}` placeholder taking that parameter's value from the
  /// name; `fixed` are parameters the variant also sets.
  ///   .variant("{num_layers}", {}, "num_layers: 11, 13, 16 or 19")
  ///   .variant("{num_layers}-bn", {{"batch_norm", true}}, "with batch normalization")
  /// The initializer its workload uses when the reference's get_workload
  /// names one (xavier otherwise).
  ModelBuilder& initializer(std::string name) {
    initializer_ = std::move(name);
    return *this;
  }
  ModelBuilder& variant(std::string suffix, const AttrList& fixed = {}, std::string doc = "") {
    variants_.push_back({std::move(suffix), fixed.empty() ? Attrs() : Attrs::make(fixed), std::move(doc)});
    return *this;
  }

  void register_with(weft_registrar_t* registrar) {
    if (!impl_->build) throw Error("model '" + name_ + "' has no build function");
    const auto& fields = schema_.descriptors();
    impl_->normalizers = schema_.normalizers();
    weft_model_desc_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.description = description_.c_str();
    d.params = fields.data();
    d.num_params = fields.size();
    std::vector<weft_model_variant_t> variants;
    for (const Variant& v : variants_) {
      weft_model_variant_t c{};
      c.struct_size = sizeof(c);
      c.suffix = v.suffix.c_str();
      c.fixed = v.fixed.get();
      c.doc = v.doc.c_str();
      variants.push_back(c);
    }
    d.variants = variants.data();
    d.num_variants = variants.size();
    d.initializer = initializer_.c_str();
    d.build = [](void* ud, weft_attrs_t* params, weft_expr_t** out) {
      return guarded([&] { *out = static_cast<Impl*>(ud)->build(Handle<weft_attrs_t>::borrow(params)).release(); });
    };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_model(registrar, &d));
  }

 private:
  struct Impl {
    Build build;
    std::vector<std::shared_ptr<Normalizer>> normalizers;
  };
  struct Variant {
    std::string suffix;
    Attrs fixed;
    std::string doc;
  };
  std::string name_, description_, initializer_ = "xavier";
  detail::Schema schema_;
  std::vector<Variant> variants_;
  std::unique_ptr<Impl> impl_ = std::make_unique<Impl>();
};

/// An initializer: create(params, seed) returns the function that fills each
/// parameter in turn (its captures are the per-workload state).
class InitializerBuilder {
 public:
  using Fill = std::function<void(const std::string& name, const TensorView& out)>;
  using Create = std::function<Fill(const Attrs& params, uint64_t seed)>;
  explicit InitializerBuilder(std::string name) : name_(std::move(name)) {}
  InitializerBuilder& describe(std::string text) { description_ = std::move(text); return *this; }
  template <typename T>
  InitializerBuilder& param(std::string name, T default_value, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), detail::attr_type_of<T>(), Value(default_value), std::move(doc), std::move(expected));
    return *this;
  }
  InitializerBuilder& create(Create fn) { impl_->create = std::move(fn); return *this; }

  void register_with(weft_registrar_t* registrar) {
    if (!impl_->create) throw Error("initializer '" + name_ + "' has no create function");
    const auto& fields = schema_.descriptors();
    weft_initializer_desc_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.description = description_.c_str();
    d.params = fields.data();
    d.num_params = fields.size();
    d.create_state = [](void* ud, weft_attrs_t* params, uint64_t seed, void** out) {
      return guarded([&] {
        *out = new Fill(static_cast<Impl*>(ud)->create(Handle<weft_attrs_t>::borrow(params), seed));
      });
    };
    d.fill = [](void*, void* state, const char* name, DLTensor* tensor) {
      return guarded([&] { (*static_cast<Fill*>(state))(name, TensorView(*tensor)); });
    };
    d.destroy_state = [](void*, void* state) { delete static_cast<Fill*>(state); };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_initializer(registrar, &d));
  }

 private:
  struct Impl {
    Create create;
  };
  std::string name_, description_;
  detail::Schema schema_;
  std::unique_ptr<Impl> impl_ = std::make_unique<Impl>();
};

/// A module-to-module pass: run(fn) with fn(module), or fn(module, context)
/// to read the caller's PassContext (ABI 1.6's run_in_context).
class PassBuilder {
 public:
  using Run = std::function<Module(const Module& module)>;
  using RunInContext = std::function<Module(const Module& module, const PassContext& context)>;
  explicit PassBuilder(std::string name) : name_(std::move(name)) {}
  PassBuilder& opt_level(int level) { opt_level_ = level; return *this; }
  PassBuilder& requires_pass(std::string name) { required_.push_back(std::move(name)); return *this; }
  PassBuilder& run(RunInContext fn) { impl_->run = std::move(fn); return *this; }
  PassBuilder& run(Run fn) {
    if (!fn) return run(RunInContext());
    return run([fn = std::move(fn)](const Module& module, const PassContext&) { return fn(module); });
  }

  void register_with(weft_registrar_t* registrar) {
    if (!impl_->run) throw Error("pass '" + name_ + "' has no run function");
    std::vector<const char*> required;
    for (const std::string& r : required_) required.push_back(r.c_str());
    weft_pass_desc_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.opt_level = opt_level_;
    d.required = required.data();
    d.num_required = required.size();
    d.run_in_context = [](void* ud, weft_module_t* in, const weft_pass_context_t* context, weft_module_t** out) {
      return guarded([&] {
        *out = static_cast<Impl*>(ud)->run(Handle<weft_module_t>::borrow(in), PassContext(context)).release();
      });
    };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_pass(registrar, &d));
  }

 private:
  struct Impl {
    RunInContext run;
  };
  std::string name_;
  int opt_level_ = 0;
  std::vector<std::string> required_;
  std::unique_ptr<Impl> impl_ = std::make_unique<Impl>();
};

/// A reader of another model format.
class FrontendBuilder {
 public:
  using Import = std::function<Module(const std::string& path, const Attrs& options)>;
  explicit FrontendBuilder(std::string name) : name_(std::move(name)) {}
  FrontendBuilder& describe(std::string text) { description_ = std::move(text); return *this; }
  FrontendBuilder& extension(std::string suffix) { extensions_.push_back(std::move(suffix)); return *this; }
  template <typename T>
  FrontendBuilder& option(std::string name, T default_value, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), detail::attr_type_of<T>(), Value(default_value), std::move(doc), std::move(expected));
    return *this;
  }
  FrontendBuilder& import_file(Import fn) { impl_->import_file = std::move(fn); return *this; }

  void register_with(weft_registrar_t* registrar) {
    if (!impl_->import_file) throw Error("frontend '" + name_ + "' has no import_file function");
    std::vector<const char*> exts;
    for (const std::string& e : extensions_) exts.push_back(e.c_str());
    const auto& fields = schema_.descriptors();
    weft_frontend_desc_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.description = description_.c_str();
    d.extensions = exts.data();
    d.num_extensions = exts.size();
    d.options = fields.data();
    d.num_options = fields.size();
    d.import_file = [](void* ud, const char* path, weft_attrs_t* options, weft_module_t** out) {
      return guarded([&] {
        *out = static_cast<Impl*>(ud)->import_file(path, Handle<weft_attrs_t>::borrow(options)).release();
      });
    };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_frontend(registrar, &d));
  }

 private:
  struct Impl {
    Import import_file;
  };
  std::string name_, description_;
  std::vector<std::string> extensions_;
  detail::Schema schema_;
  std::unique_ptr<Impl> impl_ = std::make_unique<Impl>();
};

/// What WEFT_PLUGIN's body receives. Builders are registered, in order, after
/// the body returns; the first failure fails the plugin's load.
class Registrar {
 public:
  explicit Registrar(weft_registrar_t* r) : r_(r) {}
  OpBuilder& op(std::string name) { return add(ops_, std::move(name)); }
  /// The builder of an op declared earlier in this registration, to add to it
  /// from another file (e.g. one concept such as weight-type inference kept
  /// for several ops in one place); Error when there is none.
  OpBuilder& declared_op(const std::string& name) {
    for (auto& b : ops_) {
      if (b->name() == name) return *b;
    }
    throw Error("op '" + name + "' is not declared before declared_op() asks for it");
  }
  ModelBuilder& model(std::string name) { return add(models_, std::move(name)); }
  InitializerBuilder& initializer(std::string name) { return add(initializers_, std::move(name)); }
  PassBuilder& pass(std::string name) { return add(passes_, std::move(name)); }
  FrontendBuilder& frontend(std::string name) { return add(frontends_, std::move(name)); }
  TargetBuilder& target(std::string name) { return add(targets_, std::move(name)); }

  void commit() {
    for (auto& b : ops_) b->register_with(r_);
    for (auto& b : models_) b->register_with(r_);
    for (auto& b : initializers_) b->register_with(r_);
    for (auto& b : passes_) b->register_with(r_);
    for (auto& b : frontends_) b->register_with(r_);
    for (auto& b : targets_) b->register_with(r_);
  }

 private:
  template <typename B>
  B& add(std::vector<std::unique_ptr<B>>& list, std::string name) {
    list.push_back(std::make_unique<B>(std::move(name)));
    return *list.back();
  }
  weft_registrar_t* r_;
  std::vector<std::unique_ptr<OpBuilder>> ops_;
  std::vector<std::unique_ptr<ModelBuilder>> models_;
  std::vector<std::unique_ptr<InitializerBuilder>> initializers_;
  std::vector<std::unique_ptr<PassBuilder>> passes_;
  std::vector<std::unique_ptr<FrontendBuilder>> frontends_;
  std::vector<std::unique_ptr<TargetBuilder>> targets_;
};

}  // namespace weft::sdk
