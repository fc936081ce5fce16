// weft plugin SDK: a header-only C++ layer over plugin.h, compiled into each
// plugin (C++17 or later). It adds RAII handles, builders that read like the
// graph they build, and fluent registration in the style of TVM's
// RELAY_REGISTER_OP; exceptions thrown by plugin code become statuses at the
// boundary. Nothing C++ crosses into the host.
//
//   #include <weft/plugin.hpp>
//   namespace sdk = weft::sdk;
//
//   WEFT_PLUGIN(reg) {
//     reg.op("negative")
//         .describe("Elementwise -x.")
//         .input("data", "Tensor", "The input tensor.")
//         .support_level(3)
//         .pattern(WEFT_PATTERN_ELEMWISE)
//         .type_relation(sdk::identity_relation)
//         .kernel([](const sdk::KernelArgs& k) { ... })
//         .gradient([](const sdk::Expr& call, const sdk::Expr& grad) {
//           return std::vector<sdk::Expr>{sdk::call("negative", {grad})};
//         });
//   }
//
// The host table is set when the plugin's init runs; handles and builders may
// be used from then on, in init and in every callback.
#pragma once

#include <weft/plugin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::sdk {

// ---- Host and errors --------------------------------------------------------

namespace detail {
inline const weft_host_api_t*& host_slot() {
  static const weft_host_api_t* host = nullptr;  // one per plugin (hidden visibility)
  return host;
}
}  // namespace detail

/// The host function table (valid once init has started).
inline const weft_host_api_t& host() { return *detail::host_slot(); }

/// An error with a plugin.h status code. Throw it (or any std::exception) from
/// plugin code; the SDK turns it into a status at the boundary.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, weft_status_code_t code = WEFT_STATUS_INVALID_ARGUMENT)
      : std::runtime_error(message), code_(code) {}
  weft_status_code_t code() const { return code_; }

 private:
  weft_status_code_t code_;
};

/// Throws Error for a non-OK status from the host (and frees it).
inline void check(weft_status_t status) {
  if (!status) return;
  std::string message = host().status_message(status);
  weft_status_code_t code = host().status_code(status);
  host().status_free(status);
  throw Error(message, code);
}

/// Runs plugin code, turning any exception into a status for the host.
template <typename F>
weft_status_t guarded(F&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return host().status_create(e.code(), e.what());
  } catch (const std::exception& e) {
    return host().status_create(WEFT_STATUS_INVALID_ARGUMENT, e.what());
  } catch (...) {
    return host().status_create(WEFT_STATUS_INTERNAL, "unknown exception in plugin");
  }
}

// ---- Data types ---------------------------------------------------------------

namespace dtype {
inline constexpr DLDataType float16{kDLFloat, 16, 1};
inline constexpr DLDataType float32{kDLFloat, 32, 1};
inline constexpr DLDataType float64{kDLFloat, 64, 1};
inline constexpr DLDataType bfloat16{kDLBfloat, 16, 1};
inline constexpr DLDataType int8{kDLInt, 8, 1};
inline constexpr DLDataType int16{kDLInt, 16, 1};
inline constexpr DLDataType int32{kDLInt, 32, 1};
inline constexpr DLDataType int64{kDLInt, 64, 1};
inline constexpr DLDataType uint8{kDLUInt, 8, 1};
inline constexpr DLDataType boolean{kDLUInt, 1, 1};
}  // namespace dtype

// DLDataType is DLPack's (global) type; these live here so the SDK adds nothing
// to the global namespace. `using namespace weft::sdk` or using-declarations bring them in.
inline bool operator==(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }
inline bool operator!=(DLDataType a, DLDataType b) { return !(a == b); }

/// Relay's spelling of a dtype: "float32", "bool", "int8x4".
inline std::string dtype_name(DLDataType t) {
  if (t.code == kDLUInt && t.bits == 1 && t.lanes == 1) return "bool";
  const char* base = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat" : "opaque";
  std::string out = base + std::to_string(t.bits);
  if (t.lanes != 1) out += "x" + std::to_string(t.lanes);
  return out;
}

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
  bool has(const std::string& key) const {
    for (size_t i = 0; i < size(); ++i) {
      const char* k = nullptr;
      check(host().attrs_entry(get(), i, &k, nullptr));
      if (key == k) return true;
    }
    return false;
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

 private:
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
  /// The data as T; Error if T's size does not match the dtype.
  template <typename T>
  T* data() const {
    if (sizeof(T) * 8 != t_->dtype.bits * t_->dtype.lanes) {
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

// ---- Registration ----------------------------------------------------------------------------

using TypeRelation = std::function<Type(const std::vector<Type>& args, const Attrs& attrs)>;
using Kernel = std::function<void(const KernelArgs& args)>;
using Gradient = std::function<std::vector<Expr>(const Expr& call, const Expr& output_grad)>;
using Normalizer = std::function<Value(const Value& value)>;

namespace detail {

template <typename T>
constexpr weft_attr_type_t attr_type_of() {
  if constexpr (std::is_same_v<T, bool>) return WEFT_ATTR_BOOL;
  else if constexpr (std::is_integral_v<T>) return WEFT_ATTR_INT;
  else if constexpr (std::is_floating_point_v<T>) return WEFT_ATTR_FLOAT;
  else if constexpr (std::is_same_v<T, DLDataType>) return WEFT_ATTR_DTYPE;
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return WEFT_ATTR_INT_LIST;
  else if constexpr (std::is_same_v<T, std::vector<double>>) return WEFT_ATTR_FLOAT_LIST;
  else if constexpr (std::is_convertible_v<T, std::string>) return WEFT_ATTR_STRING;
  else return WEFT_ATTR_ANY;
}

/// An attribute schema under construction; owns the values and callbacks the
/// C field descriptors point at.
class Schema {
 public:
  void add(std::string name, weft_attr_type_t type, std::optional<Value> default_value, std::string doc,
           std::string expected) {
    fields_.push_back(Field{std::move(name), type, std::move(default_value), std::move(doc), std::move(expected), {}});
  }
  void normalize_last(Normalizer fn) {
    if (fields_.empty()) throw Error("normalize() must follow an attr()/param()");
    fields_.back().normalize = std::make_shared<Normalizer>(std::move(fn));
  }
  /// C descriptors valid while this schema lives.
  const std::vector<weft_attr_field_t>& descriptors() {
    c_.clear();
    for (Field& f : fields_) {
      weft_attr_field_t d{};
      d.struct_size = sizeof(d);
      d.name = f.name.c_str();
      d.type = f.type;
      d.default_value = f.default_value ? f.default_value->get() : nullptr;
      d.doc = f.doc.c_str();
      d.expected = f.expected.c_str();
      if (f.normalize) {
        d.normalize = &Schema::normalize_trampoline;
        d.normalize_user_data = f.normalize.get();
      }
      c_.push_back(d);
    }
    return c_;
  }
  /// Keeps the normalizers alive with the registration that uses them.
  std::vector<std::shared_ptr<Normalizer>> normalizers() const {
    std::vector<std::shared_ptr<Normalizer>> out;
    for (const Field& f : fields_) {
      if (f.normalize) out.push_back(f.normalize);
    }
    return out;
  }

 private:
  struct Field {
    std::string name;
    weft_attr_type_t type;
    std::optional<Value> default_value;
    std::string doc, expected;
    std::shared_ptr<Normalizer> normalize;
  };
  static weft_status_t normalize_trampoline(void* ud, weft_attr_value_t* value, weft_attr_value_t** out) {
    return guarded([&] { *out = (*static_cast<Normalizer*>(ud))(Value(Handle<weft_attr_value_t>::borrow(value))).release(); });
  }
  std::vector<Field> fields_;
  std::vector<weft_attr_field_t> c_;
};

template <typename T>
void destroy(void* p) {
  delete static_cast<T*>(p);
}

inline std::vector<Type> borrow_types(weft_type_t* const* types, size_t n) {
  std::vector<Type> out;
  for (size_t i = 0; i < n; ++i) out.push_back(Handle<weft_type_t>::borrow(types[i]));
  return out;
}

}  // namespace detail

/// Fluent description of one op; registered when the plugin's init returns.
class OpBuilder {
 public:
  explicit OpBuilder(std::string name) : name_(std::move(name)) {}

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
  OpBuilder& support_level(int level) { support_level_ = level; return *this; }
  OpBuilder& pattern(weft_op_pattern_t p) { pattern_ = p; return *this; }
  OpBuilder& type_relation(TypeRelation fn) { callbacks_->relation = std::move(fn); return *this; }
  OpBuilder& kernel(Kernel fn) { callbacks_->kernel = std::move(fn); return *this; }
  OpBuilder& gradient(Gradient fn) { callbacks_->gradient = std::move(fn); return *this; }

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
    d.support_level = support_level_;
    d.type_relation = &relation_trampoline;
    d.kernel = callbacks_->kernel ? &kernel_trampoline : nullptr;
    d.gradient = callbacks_->gradient ? &gradient_trampoline : nullptr;
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
    Gradient gradient;
    std::vector<std::shared_ptr<Normalizer>> normalizers;
  };
  static weft_status_t relation_trampoline(void* ud, weft_type_t* const* args, size_t n, weft_attrs_t* attrs,
                                           weft_type_t** out) {
    return guarded([&] {
      Type t = static_cast<Callbacks*>(ud)->relation(detail::borrow_types(args, n),
                                                     Attrs(Handle<weft_attrs_t>::borrow(attrs)));
      if (!t) throw Error("type relation returned no type");
      *out = t.release();
    });
  }
  static weft_status_t kernel_trampoline(void* ud, const DLTensor* in, size_t n_in, DLTensor* out, size_t n_out,
                                         weft_attrs_t* attrs) {
    return guarded([&] {
      KernelArgs k;
      for (size_t i = 0; i < n_in; ++i) k.inputs.emplace_back(in[i]);
      for (size_t i = 0; i < n_out; ++i) k.outputs.emplace_back(out[i]);
      k.attrs = Handle<weft_attrs_t>::borrow(attrs);
      static_cast<Callbacks*>(ud)->kernel(k);
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
  ModelBuilder& normalize(Normalizer fn) { schema_.normalize_last(std::move(fn)); return *this; }
  ModelBuilder& build(Build fn) { impl_->build = std::move(fn); return *this; }

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
  std::string name_, description_;
  detail::Schema schema_;
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

/// A module-to-module pass.
class PassBuilder {
 public:
  using Run = std::function<Module(const Module& module)>;
  explicit PassBuilder(std::string name) : name_(std::move(name)) {}
  PassBuilder& opt_level(int level) { opt_level_ = level; return *this; }
  PassBuilder& requires_pass(std::string name) { required_.push_back(std::move(name)); return *this; }
  PassBuilder& run(Run fn) { impl_->run = std::move(fn); return *this; }

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
    d.run = [](void* ud, weft_module_t* in, weft_module_t** out) {
      return guarded([&] { *out = static_cast<Impl*>(ud)->run(Handle<weft_module_t>::borrow(in)).release(); });
    };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_pass(registrar, &d));
  }

 private:
  struct Impl {
    Run run;
  };
  std::string name_;
  int opt_level_ = 0;
  std::vector<std::string> required_;
  std::unique_ptr<Impl> impl_ = std::make_unique<Impl>();
};

/// A hardware target: capability query, compiler and device API.
class TargetBuilder {
 public:
  using Supports = std::function<bool(const std::string& op, const Attrs& attrs, const std::vector<Type>& args,
                                      const Type& out)>;
  using CompiledKernel = std::function<void(DLTensor* args, size_t num_args)>;
  using Compile = std::function<CompiledKernel(const Expr& primitive_function)>;
  struct DeviceApi {
    std::function<void*(int device_id, size_t nbytes, size_t alignment)> alloc;
    std::function<void(int device_id, void* ptr)> free;
    std::function<void(const DLTensor& src, DLTensor& dst)> copy;
    std::function<void(int device_id)> sync;
  };
  explicit TargetBuilder(std::string name) : name_(std::move(name)) {}
  TargetBuilder& describe(std::string text) { description_ = std::move(text); return *this; }
  TargetBuilder& device_type(DLDeviceType type) { device_type_ = type; return *this; }
  TargetBuilder& supports(Supports fn) { impl_->supports = std::move(fn); return *this; }
  TargetBuilder& compile(Compile fn) { impl_->compile = std::move(fn); return *this; }
  TargetBuilder& device_api(DeviceApi api) { impl_->device = std::move(api); return *this; }

  void register_with(weft_registrar_t* registrar) {
    if (!impl_->supports || !impl_->compile || !impl_->device.alloc || !impl_->device.free || !impl_->device.copy ||
        !impl_->device.sync) {
      throw Error("target '" + name_ + "' needs supports, compile and a complete device_api");
    }
    weft_target_desc_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.description = description_.c_str();
    d.device_type = device_type_;
    d.supports = [](void* ud, const char* op, weft_attrs_t* attrs, weft_type_t* const* args, size_t n,
                    weft_type_t* out_type, int* out) {
      return guarded([&] {
        *out = static_cast<Impl*>(ud)->supports(op, Handle<weft_attrs_t>::borrow(attrs), detail::borrow_types(args, n),
                                                Handle<weft_type_t>::borrow(out_type))
                   ? 1
                   : 0;
      });
    };
    d.compile = [](void* ud, weft_expr_t* fn, void** out) {
      return guarded([&] { *out = new CompiledKernel(static_cast<Impl*>(ud)->compile(Handle<weft_expr_t>::borrow(fn))); });
    };
    d.run_kernel = [](void*, void* kernel, DLTensor* args, size_t n) {
      return guarded([&] { (*static_cast<CompiledKernel*>(kernel))(args, n); });
    };
    d.release_kernel = [](void*, void* kernel) { delete static_cast<CompiledKernel*>(kernel); };
    d.alloc = [](void* ud, int device_id, size_t nbytes, size_t alignment, void** out) {
      return guarded([&] { *out = static_cast<Impl*>(ud)->device.alloc(device_id, nbytes, alignment); });
    };
    d.free = [](void* ud, int device_id, void* ptr) {
      // free cannot report errors; a throwing free is a plugin bug and is swallowed here.
      weft_status_t s = guarded([&] { static_cast<Impl*>(ud)->device.free(device_id, ptr); });
      host().status_free(s);
    };
    d.copy = [](void* ud, const DLTensor* src, DLTensor* dst) {
      return guarded([&] { static_cast<Impl*>(ud)->device.copy(*src, *dst); });
    };
    d.sync = [](void* ud, int device_id) { return guarded([&] { static_cast<Impl*>(ud)->device.sync(device_id); }); };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_target(registrar, &d));
  }

 private:
  struct Impl {
    Supports supports;
    Compile compile;
    DeviceApi device;
  };
  std::string name_, description_;
  DLDeviceType device_type_ = kDLCPU;
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
  ModelBuilder& model(std::string name) { return add(models_, std::move(name)); }
  InitializerBuilder& initializer(std::string name) { return add(initializers_, std::move(name)); }
  PassBuilder& pass(std::string name) { return add(passes_, std::move(name)); }
  TargetBuilder& target(std::string name) { return add(targets_, std::move(name)); }
  FrontendBuilder& frontend(std::string name) { return add(frontends_, std::move(name)); }

  void commit() {
    for (auto& b : ops_) b->register_with(r_);
    for (auto& b : models_) b->register_with(r_);
    for (auto& b : initializers_) b->register_with(r_);
    for (auto& b : passes_) b->register_with(r_);
    for (auto& b : targets_) b->register_with(r_);
    for (auto& b : frontends_) b->register_with(r_);
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
  std::vector<std::unique_ptr<TargetBuilder>> targets_;
  std::vector<std::unique_ptr<FrontendBuilder>> frontends_;
};

// ---- Shared relations -------------------------------------------------------------------------

/// Output type = the first argument's type (unary elementwise ops).
inline Type identity_relation(const std::vector<Type>& args, const Attrs&) {
  if (args.empty()) throw Error("expected at least one argument");
  if (!args[0].is_tensor()) throw Error("expected a tensor, got " + args[0].str());
  return args[0];
}

/// NumPy broadcasting of two tensors of one dtype: dims are matched from the
/// right, and each pair must be equal or contain a 1.
inline Type broadcast_relation(const std::vector<Type>& args, const Attrs&) {
  if (args.size() != 2) throw Error("expected 2 arguments, got " + std::to_string(args.size()));
  if (!args[0].is_tensor() || !args[1].is_tensor()) {
    throw Error("expected two tensors, got " + args[0].str() + " and " + args[1].str());
  }
  if (args[0].dtype() != args[1].dtype()) {
    throw Error("dtypes differ: " + args[0].str() + " and " + args[1].str());
  }
  std::vector<int64_t> a = args[0].shape(), b = args[1].shape();
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else if (da == WEFT_DIM_ANY || db == WEFT_DIM_ANY) out[i] = WEFT_DIM_ANY;
    else throw Error("shapes " + args[0].str() + " and " + args[1].str() + " do not broadcast (dimension " +
                     std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")");
  }
  return Type::tensor(out, args[0].dtype());
}

namespace detail {
inline weft_status_t run_init(const weft_host_api_t* host_api, weft_registrar_t* r, void (*body)(Registrar&)) {
  host_slot() = host_api;  // the host always passes its table
  if (host_api->struct_size < sizeof(weft_host_api_t)) {
    return host_api->status_create(WEFT_STATUS_UNSUPPORTED,
                                   "the host's function table is older than the plugin SDK this plugin was built with");
  }
  return guarded([&] {
    Registrar registrar(r);
    body(registrar);
    registrar.commit();
  });
}
}  // namespace detail

}  // namespace weft::sdk

/// Defines a plugin's entry symbol and the function that registers its
/// contents:  WEFT_PLUGIN(reg) { reg.op("add")....; }
#define WEFT_PLUGIN(registrar)                                                                      \
  static void weft_plugin_register_(::weft::sdk::Registrar& registrar);                            \
  static weft_status_t weft_plugin_init_(const weft_host_api_t* host, weft_registrar_t* r) {       \
    return ::weft::sdk::detail::run_init(host, r, &weft_plugin_register_);                          \
  }                                                                                                 \
  WEFT_PLUGIN_ENTRY(weft_plugin_init_)                                                              \
  static void weft_plugin_register_(::weft::sdk::Registrar& registrar)
