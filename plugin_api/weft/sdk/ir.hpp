// weft plugin SDK: RAII handles for host objects (types, attribute values and
// dictionaries, expressions, modules), expression builders, and tensor views
// for kernels. Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/host.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::sdk {

// ---- Handles --------------------------------------------------------------------

namespace detail {
template <typename H>
struct RefOps;
template <>
struct RefOps<weft_type_t> {
  static void retain(weft_type_t* h) { host().type_retain(h); }
  static void release(weft_type_t* h) { host().type_release(h); }
};
template <>
struct RefOps<weft_expr_t> {
  static void retain(weft_expr_t* h) { host().expr_retain(h); }
  static void release(weft_expr_t* h) { host().expr_release(h); }
};
template <>
struct RefOps<weft_attr_value_t> {
  static void retain(weft_attr_value_t* h) { host().attr_value_retain(h); }
  static void release(weft_attr_value_t* h) { host().attr_value_release(h); }
};
template <>
struct RefOps<weft_attrs_t> {
  static void retain(weft_attrs_t* h) { host().attrs_retain(h); }
  static void release(weft_attrs_t* h) { host().attrs_release(h); }
};
template <>
struct RefOps<weft_module_t> {
  static void retain(weft_module_t* h) { host().module_retain(h); }
  static void release(weft_module_t* h) { host().module_release(h); }
};
}  // namespace detail

/// Owns one reference to a host object.
template <typename H>
class Handle {
 public:
  Handle() = default;
  /// Takes over a new reference (what the host returns through out_ parameters).
  static Handle adopt(H* h) {
    Handle out;
    out.h_ = h;
    return out;
  }
  /// Adds a reference to a borrowed handle (what callbacks receive).
  static Handle borrow(H* h) {
    if (h) detail::RefOps<H>::retain(h);
    return adopt(h);
  }
  Handle(const Handle& o) : h_(o.h_) {
    if (h_) detail::RefOps<H>::retain(h_);
  }
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Handle() {
    if (h_) detail::RefOps<H>::release(h_);
  }

  H* get() const { return h_; }
  /// Gives the reference away (to return it to the host).
  H* release() { return std::exchange(h_, nullptr); }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  H* h_ = nullptr;
};

// ---- Types ----------------------------------------------------------------------

class Type : public Handle<weft_type_t> {
 public:
  Type() = default;
  Type(Handle<weft_type_t> h) : Handle(std::move(h)) {}  // NOLINT: handles convert

  static Type tensor(const std::vector<int64_t>& shape, DLDataType dt = dtype::float32) {
    weft_type_t* out = nullptr;
    check(host().type_tensor(shape.data(), shape.size(), dt, &out));
    return Handle::adopt(out);
  }
  static Type tuple(const std::vector<Type>& fields) {
    std::vector<weft_type_t*> hs;
    for (const Type& f : fields) hs.push_back(f.get());
    weft_type_t* out = nullptr;
    check(host().type_tuple(hs.data(), hs.size(), &out));
    return Handle::adopt(out);
  }

  weft_type_kind_t kind() const { return host().type_kind(get()); }
  bool is_tensor() const { return kind() == WEFT_TYPE_TENSOR; }
  bool is_tuple() const { return kind() == WEFT_TYPE_TUPLE; }

  /// Tensor dims (WEFT_DIM_ANY for `?`); Error if not a tensor type.
  std::vector<int64_t> shape() const {
    const int64_t* dims = nullptr;
    size_t n = 0;
    check(host().type_tensor_info(get(), &dims, &n, nullptr));
    return std::vector<int64_t>(dims, dims + n);
  }
  size_t ndim() const { return shape().size(); }
  DLDataType dtype() const {
    DLDataType dt{};
    check(host().type_tensor_info(get(), nullptr, nullptr, &dt));
    return dt;
  }
  std::vector<Type> fields() const {
    size_t n = 0;
    check(host().type_tuple_size(get(), &n));
    std::vector<Type> out;
    for (size_t i = 0; i < n; ++i) {
      weft_type_t* f = nullptr;
      check(host().type_tuple_field(get(), i, &f));
      out.push_back(Handle::adopt(f));
    }
    return out;
  }
  /// Relay text, for messages: "Tensor[(1, 3), float32]".
  std::string str() const {
    char* text = nullptr;
    check(host().type_to_text(get(), &text));
    std::string out = text;
    host().string_free(text);
    return out;
  }
};

// ---- Attribute values and dictionaries ---------------------------------------------

class Value : public Handle<weft_attr_value_t> {
 public:
  Value() : Value(none()) {}
  Value(Handle<weft_attr_value_t> h) : Handle(std::move(h)) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  Value(T v) : Value(make(host().attr_value_int, static_cast<int64_t>(v))) {}  // NOLINT: values read naturally
  Value(double v) : Value(make(host().attr_value_float, v)) {}                 // NOLINT
  Value(bool v) : Value(make(host().attr_value_bool, v ? 1 : 0)) {}            // NOLINT
  Value(const char* v) : Value(make(host().attr_value_string, v)) {}           // NOLINT
  Value(const std::string& v) : Value(v.c_str()) {}                            // NOLINT
  Value(DLDataType v) : Value(make(host().attr_value_dtype, v)) {}             // NOLINT
  Value(const std::vector<int64_t>& v) : Value(make(host().attr_value_int_list, v.data(), v.size())) {}  // NOLINT
  Value(std::initializer_list<int64_t> v) : Value(std::vector<int64_t>(v)) {}                           // NOLINT
  Value(const std::vector<double>& v) : Value(make(host().attr_value_float_list, v.data(), v.size())) {}  // NOLINT
  Value(const std::vector<Value>& items) : Value(list(items)) {}                                          // NOLINT

  static Value none() {
    weft_attr_value_t* out = nullptr;
    check(host().attr_value_none(&out));
    return Handle::adopt(out);
  }

  weft_attr_type_t type() const { return host().attr_value_type(get()); }
  bool is_none() const { return type() == WEFT_ATTR_NONE; }
  int64_t as_int() const { return read<int64_t>(host().attr_value_as_int); }
  double as_float() const { return read<double>(host().attr_value_as_float); }
  bool as_bool() const { return read<int>(host().attr_value_as_bool) != 0; }
  std::string as_string() const { return read<const char*>(host().attr_value_as_string); }
  DLDataType as_dtype() const { return read<DLDataType>(host().attr_value_as_dtype); }
  std::vector<int64_t> as_ints() const {
    const int64_t* data = nullptr;
    size_t n = 0;
    check(host().attr_value_as_int_list(get(), &data, &n));
    return std::vector<int64_t>(data, data + n);
  }
  std::vector<double> as_floats() const {
    const double* data = nullptr;
    size_t n = 0;
    check(host().attr_value_as_float_list(get(), &data, &n));
    return std::vector<double>(data, data + n);
  }
  std::vector<Value> as_list() const {
    size_t n = 0;
    check(host().attr_value_list_size(get(), &n));
    std::vector<Value> out;
    for (size_t i = 0; i < n; ++i) {
      weft_attr_value_t* item = nullptr;
      check(host().attr_value_list_item(get(), i, &item));
      out.push_back(Handle::adopt(item));
    }
    return out;
  }

 private:
  template <typename Fn, typename... Args>
  static Handle<weft_attr_value_t> make(Fn fn, Args... args) {
    weft_attr_value_t* out = nullptr;
    check(fn(args..., &out));
    return Handle::adopt(out);
  }
  static Handle<weft_attr_value_t> list(const std::vector<Value>& items) {
    std::vector<weft_attr_value_t*> hs;
    for (const Value& v : items) hs.push_back(v.get());
    return make(host().attr_value_list, hs.data(), hs.size());
  }
  template <typename T, typename Fn>
  T read(Fn fn) const {
    T out{};
    check(fn(get(), &out));
    return out;
  }
};

/// name = value pairs, as builders take them: {{"axis", 1}, {"keepdims", true}}.
using AttrList = std::vector<std::pair<std::string, Value>>;

class Attrs : public Handle<weft_attrs_t> {
 public:
  Attrs() = default;
  Attrs(Handle<weft_attrs_t> h) : Handle(std::move(h)) {}  // NOLINT
  static Attrs make(const AttrList& entries) {
    std::vector<const char*> keys;
    std::vector<weft_attr_value_t*> values;
    for (const auto& [k, v] : entries) {
      keys.push_back(k.c_str());
      values.push_back(v.get());
    }
    weft_attrs_t* out = nullptr;
    check(host().attrs_create(keys.data(), values.data(), entries.size(), &out));
    return Handle::adopt(out);
  }

  size_t size() const { return get() ? host().attrs_size(get()) : 0; }
  /// The keys in order (the op's schema order for a call's attrs).
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < size(); ++i) {
      const char* k = nullptr;
      check(host().attrs_entry(get(), i, &k, nullptr));
      out.push_back(k);
    }
    return out;
  }
  bool has(const std::string& key) const {
    std::vector<std::string> all = keys();
    return std::find(all.begin(), all.end(), key) != all.end();
  }
  /// The value for `key`; Error naming it when absent.
  Value get_value(const std::string& key) const {
    weft_attr_value_t* out = nullptr;
    check(host().attrs_get(get(), key.c_str(), &out));
    return Handle<weft_attr_value_t>::adopt(out);
  }
  int64_t get_int(const std::string& key) const { return get_value(key).as_int(); }
  double get_float(const std::string& key) const { return get_value(key).as_float(); }
  bool get_bool(const std::string& key) const { return get_value(key).as_bool(); }
  std::string get_string(const std::string& key) const { return get_value(key).as_string(); }
  DLDataType get_dtype(const std::string& key) const { return get_value(key).as_dtype(); }
  std::vector<int64_t> get_ints(const std::string& key) const { return get_value(key).as_ints(); }
  std::vector<double> get_floats(const std::string& key) const { return get_value(key).as_floats(); }
};

// ---- Expressions --------------------------------------------------------------------

class Expr : public Handle<weft_expr_t> {
 public:
  Expr() = default;
  Expr(Handle<weft_expr_t> h) : Handle(std::move(h)) {}  // NOLINT

  weft_expr_kind_t kind() const { return host().expr_kind(get()); }
  /// The type inference gave it; Error before inference.
  Type type() const {
    weft_type_t* out = nullptr;
    check(host().expr_checked_type(get(), &out));
    return Handle<weft_type_t>::adopt(out);
  }
  /// A Var's, GlobalVar's or Op's name.
  std::string name() const {
    const char* out = nullptr;
    check(host().expr_name(get(), &out));
    return out;
  }
  bool is(weft_expr_kind_t k) const { return kind() == k; }
  /// A Var's type annotation (empty when it has none).
  Type var_type() const {
    weft_type_t* out = nullptr;
    check(host().expr_var_type(get(), &out));
    return Handle<weft_type_t>::adopt(out);
  }
  /// The name of the op a call calls; Error for a call of a function.
  std::string op_name() const {
    Expr op = callee();
    if (!op.is(WEFT_EXPR_OP)) throw Error("the call does not call an op", WEFT_STATUS_TYPE_MISMATCH);
    return op.name();
  }
  /// A call's arguments.
  std::vector<Expr> args() const {
    size_t n = 0;
    check(host().expr_call_num_args(get(), &n));
    std::vector<Expr> out;
    for (size_t i = 0; i < n; ++i) out.push_back(arg(i));
    return out;
  }
  Expr arg(size_t i) const { return take([&](weft_expr_t** o) { return host().expr_call_arg(get(), i, o); }); }
  Expr callee() const { return take([&](weft_expr_t** o) { return host().expr_call_callee(get(), o); }); }
  Attrs attrs() const {
    weft_attrs_t* out = nullptr;
    check(host().expr_call_attrs(get(), &out));
    return Handle<weft_attrs_t>::adopt(out);
  }
  /// A constant's data, borrowed from this expression.
  DLTensor data() const {
    DLTensor view{};
    check(host().expr_constant_data(get(), &view));
    return view;
  }
  std::vector<Expr> fields() const {
    size_t n = 0;
    check(host().expr_tuple_size(get(), &n));
    std::vector<Expr> out;
    for (size_t i = 0; i < n; ++i) {
      out.push_back(take([&](weft_expr_t** o) { return host().expr_tuple_field(get(), i, o); }));
    }
    return out;
  }

  /// A function's parameters (Vars), return annotation (empty when it has
  /// none) and attrs (Primitive=1 on a fused group).
  std::vector<Expr> params() const {
    size_t n = 0;
    check(host().expr_function_num_params(get(), &n));
    std::vector<Expr> out;
    for (size_t i = 0; i < n; ++i) {
      out.push_back(take([&](weft_expr_t** o) { return host().expr_function_param(get(), i, o); }));
    }
    return out;
  }
  Type ret_type() const {
    weft_type_t* out = nullptr;
    check(host().expr_function_ret_type(get(), &out));
    return Handle<weft_type_t>::adopt(out);
  }
  Attrs function_attrs() const {
    weft_attrs_t* out = nullptr;
    check(host().expr_function_attrs(get(), &out));
    return Handle<weft_attrs_t>::adopt(out);
  }
  /// A function's or a let's body.
  Expr body() const {
    if (is(WEFT_EXPR_LET)) return let_part(2);
    return take([&](weft_expr_t** o) { return host().expr_function_body(get(), o); });
  }
  /// A let's variable and the value bound to it.
  Expr let_var() const { return let_part(0); }
  Expr let_value() const { return let_part(1); }
  /// An if's condition and branches.
  Expr cond() const { return if_part(0); }
  Expr then_branch() const { return if_part(1); }
  Expr else_branch() const { return if_part(2); }
  /// A tuple access's tuple and field index.
  Expr tuple() const {
    return take([&](weft_expr_t** o) { return host().expr_tuple_get_item_info(get(), o, nullptr); });
  }
  int index() const {
    int index = 0;
    check(host().expr_tuple_get_item_info(get(), nullptr, &index));
    return index;
  }

 private:
  // The host fills only the out parameters given (the others may be NULL).
  Expr let_part(int i) const {
    return take([&](weft_expr_t** o) {
      return host().expr_let_info(get(), i == 0 ? o : nullptr, i == 1 ? o : nullptr, i == 2 ? o : nullptr);
    });
  }
  Expr if_part(int i) const {
    return take([&](weft_expr_t** o) {
      return host().expr_if_info(get(), i == 0 ? o : nullptr, i == 1 ? o : nullptr, i == 2 ? o : nullptr);
    });
  }
  template <typename F>
  static Expr take(F fn) {
    weft_expr_t* out = nullptr;
    check(fn(&out));
    return Handle<weft_expr_t>::adopt(out);
  }
};

namespace detail {
inline std::vector<weft_expr_t*> raw(const std::vector<Expr>& exprs) {
  std::vector<weft_expr_t*> out;
  for (const Expr& e : exprs) out.push_back(e.get());
  return out;
}
/// Takes the out pointer by address: it is read only after the call that fills it.
inline Expr adopt_expr(weft_status_t status, weft_expr_t* const* out) {
  check(status);
  return Handle<weft_expr_t>::adopt(*out);
}
}  // namespace detail

// A node kind as messages name it ("the null target does not run let nodes").
inline const char* node_kind_name(weft_expr_kind_t kind) {
  switch (kind) {
    case WEFT_EXPR_VAR: return "variable";
    case WEFT_EXPR_GLOBAL_VAR: return "global variable";
    case WEFT_EXPR_CONSTANT: return "constant";
    case WEFT_EXPR_OP: return "op";
    case WEFT_EXPR_CALL: return "call";
    case WEFT_EXPR_FUNCTION: return "function";
    case WEFT_EXPR_TUPLE: return "tuple";
    case WEFT_EXPR_TUPLE_GET_ITEM: return "tuple access";
    case WEFT_EXPR_LET: return "let";
    case WEFT_EXPR_IF: return "if";
  }
  return "?";
}

// Builders: they read like the graph they build.
//   Expr x = var("x", Type::tensor({1, 3}));
//   Expr y = call("add", {x, call("exp", {x})});

inline Expr var(const std::string& name, const Type& type = Type()) {
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_var(name.c_str(), type.get(), &out), &out);
}
/// A call to op `op_name` with attrs validated against its schema.
inline Expr call(const std::string& op_name, const std::vector<Expr>& args, const AttrList& attrs = {}) {
  auto a = detail::raw(args);
  Attrs dict = attrs.empty() ? Attrs() : Attrs::make(attrs);
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_call_op(op_name.c_str(), a.data(), a.size(), dict.get(), &out), &out);
}
inline Expr call_function(const Expr& callee, const std::vector<Expr>& args) {
  auto a = detail::raw(args);
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_call_function(callee.get(), a.data(), a.size(), &out), &out);
}
inline Expr function(const std::vector<Expr>& params, const Expr& body, const Type& ret = Type(),
                     const AttrList& attrs = {}) {
  auto p = detail::raw(params);
  Attrs dict = attrs.empty() ? Attrs() : Attrs::make(attrs);
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_function(p.data(), p.size(), body.get(), ret.get(), dict.get(), &out), &out);
}
inline Expr tuple(const std::vector<Expr>& fields) {
  auto f = detail::raw(fields);
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_tuple(f.data(), f.size(), &out), &out);
}
inline Expr get_item(const Expr& t, int index) {
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_tuple_get_item(t.get(), index, &out), &out);
}
inline Expr let(const Expr& v, const Expr& value, const Expr& body) {
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_let(v.get(), value.get(), body.get(), &out), &out);
}
inline Expr if_then_else(const Expr& cond, const Expr& then_branch, const Expr& else_branch) {
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_if(cond.get(), then_branch.get(), else_branch.get(), &out), &out);
}
/// A constant copied from CPU memory.
inline Expr constant(const DLTensor& data) {
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_constant(&data, &out), &out);
}
/// A 0-d float32 or float64 constant.
inline Expr scalar(double value, DLDataType dt = dtype::float32) {
  if (dt != dtype::float32 && dt != dtype::float64) throw Error("scalar(): dtype must be float32 or float64");
  float f = static_cast<float>(value);
  DLTensor t{};
  t.data = dt == dtype::float32 ? static_cast<void*>(&f) : static_cast<void*>(&value);
  t.device = DLDevice{kDLCPU, 0};
  t.dtype = dt;
  return constant(t);
}

/// The free variables of `expr` in first-use order, as Relay's free_vars:
/// `function(free_vars(body), body)` makes a Function of everything it reads.
inline std::vector<Expr> free_vars(const Expr& expr) {
  weft_expr_t* out = nullptr;
  return detail::adopt_expr(host().expr_free_vars(expr.get(), &out), &out).fields();
}

// ---- Modules ----------------------------------------------------------------------------

class Module : public Handle<weft_module_t> {
 public:
  Module() = default;
  Module(Handle<weft_module_t> h) : Handle(std::move(h)) {}  // NOLINT
  static Module make(const std::vector<std::pair<std::string, Expr>>& functions) {
    std::vector<const char*> names;
    std::vector<weft_expr_t*> fns;
    for (const auto& [n, f] : functions) {
      names.push_back(n.c_str());
      fns.push_back(f.get());
    }
    weft_module_t* out = nullptr;
    check(host().module_create(names.data(), fns.data(), functions.size(), &out));
    return Handle::adopt(out);
  }
  /// (name, function) in definition order.
  std::vector<std::pair<std::string, Expr>> functions() const {
    std::vector<std::pair<std::string, Expr>> out;
    for (size_t i = 0, n = host().module_size(get()); i < n; ++i) {
      const char* name = nullptr;
      weft_expr_t* fn = nullptr;
      check(host().module_entry(get(), i, &name, &fn));
      out.emplace_back(name, Handle<weft_expr_t>::adopt(fn));
    }
    return out;
  }
  Module infer_type() const {
    weft_module_t* out = nullptr;
    check(host().module_infer_type(get(), &out));
    return Handle::adopt(out);
  }
  /// The registered pass `name` run on this module (ABI 1.3).
  Module run_pass(const std::string& name) const {
    weft_module_t* out = nullptr;
    check(host().module_run_pass(get(), name.c_str(), &out));
    return Handle::adopt(out);
  }
};

// ---- Tensors in kernels -----------------------------------------------------------------

/// A read/write view of a host DLTensor (compact, C-ordered).
class TensorView {
 public:
  explicit TensorView(const DLTensor& t) : t_(&t) {}
  DLDataType dtype() const { return t_->dtype; }
  int ndim() const { return t_->ndim; }
  std::vector<int64_t> shape() const { return std::vector<int64_t>(t_->shape, t_->shape + t_->ndim); }
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < t_->ndim; ++i) n *= t_->shape[i];
    return n;
  }
  /// Bytes one element occupies (a bool takes a byte).
  size_t element_bytes() const { return (t_->dtype.bits * t_->dtype.lanes + 7) / 8; }
  /// The data as T; Error if T's size does not match the dtype's storage.
  template <typename T>
  T* data() const {
    if (sizeof(T) != element_bytes()) {
      throw Error("tensor of " + dtype_name(t_->dtype) + " read as a " + std::to_string(sizeof(T) * 8) + "-bit type");
    }
    return reinterpret_cast<T*>(static_cast<char*>(t_->data) + t_->byte_offset);
  }
  const DLTensor& dl() const { return *t_; }

 private:
  const DLTensor* t_;
};

struct KernelArgs {
  std::vector<TensorView> inputs;
  std::vector<TensorView> outputs;
  Attrs attrs;
};

}  // namespace weft::sdk
